"""A tiny sense-vector file for the sense explorer's tests (no model: a seeded random vector per sense)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from embias_widgets.stimuli import AssociationTestSpec, WordSet
from embias_widgets.stimuli.wordnet import load_wordnet

LEMMAS = ["engineer", "carpenter", "nurse", "secretary", "man", "boy", "woman", "girl"]


def write_tiny_lmms(path: Path, seed: int, size: int = 16) -> str:
    """LMMS text format (``sensekey v1 v2 ...``), a seeded random ``size``-d vector for every sense of LEMMAS."""
    wordnet = load_wordnet()
    rng = np.random.default_rng(seed)
    lines = [
        s.key + " " + " ".join(f"{v:.6f}" for v in rng.normal(size=size))
        for lemma in LEMMAS
        for s in wordnet.senses(lemma)
    ]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def occupations_spec() -> AssociationTestSpec:
    """The sense tests' association test: two occupation sets against two gender sets, sense keys and lemmas."""
    return AssociationTestSpec(
        "occupations",
        WordSet("male jobs", ("engineer%1:18:00::", "carpenter%1:18:00::")),
        WordSet("female jobs", ("nurse%1:18:00::", "secretary%1:18:00::")),
        WordSet("male", ("man%1:18:00::", "boy")),
        WordSet("female", ("woman%1:18:00::", "girl")),
    )
