"""A tiny sense-vector file for the sense explorer's tests (no model: a seeded random vector per sense)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from embias_widgets.stimuli.wordnet import load_wordnet

LEMMAS = ["engineer", "carpenter", "nurse", "secretary", "man", "boy", "woman", "girl"]


def write_tiny_lmms(path: Path, seed: int) -> str:
    """LMMS text format (``sensekey v1 v2 ...``), a seeded random 16-d vector for every sense of LEMMAS."""
    wordnet = load_wordnet()
    rng = np.random.default_rng(seed)
    lines = [
        s.key + " " + " ".join(f"{v:.6f}" for v in rng.normal(size=16))
        for lemma in LEMMAS
        for s in wordnet.senses(lemma)
    ]
    path.write_text("\n".join(lines) + "\n")
    return str(path)
