"""Shared fixtures. Nothing here downloads: HF_HUB_OFFLINE is set for every test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the project root (CI always has it; a user's clone may not)."""
    data = SHARED / "data"
    if not data.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must have {data} beside the project root")
        pytest.skip(f"reference data not found at {data}: it lives in ../shared beside the project root")
    return data


@pytest.fixture(scope="session")
def glove():
    """The embedded GloVe 6B 50d vectors (loaded once per session)."""
    from embias_widgets.models import load_model

    return load_model("glove-6b-50d")


@pytest.fixture(scope="session")
def wn():
    """WordNet 3.0 (CI installs Debian's wordnet-base; a user's clone may lack it: then skip, saying why)."""
    from embias_widgets.stimuli.wordnet import WordNetNotFoundError, load_wordnet

    try:
        return load_wordnet()
    except WordNetNotFoundError as err:
        pytest.skip(str(err))
