"""Random WEAT-shaped word sets for the association tests: four sets of vectors and their cosines to the attributes.

Shared by ``test_association_intervals.py`` and ``test_trust_association.py``.
"""

from __future__ import annotations

import numpy as np

from embias_widgets.metrics.association import unit_rows

KEYS = ("targ1", "targ2", "attr1", "attr2")


def random_sets(rng: np.random.Generator, sizes=(6, 7, 5, 4), shift=0.15, dim=12) -> dict[str, np.ndarray]:
    """Normal vectors per set (sizes in ``KEYS`` order), targ1/attr1 shifted by +shift, targ2/attr2 by -shift."""
    signs = (1, -1, 1, -1)
    return {k: rng.normal(size=(n, dim)) + s * shift for k, n, s in zip(KEYS, sizes, signs, strict=True)}


def cosines(sets: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, int]:
    """Every target's cosine to each attr1 and attr2 word (targets stacked targ1 first) and how many targ1 has."""
    W = unit_rows(np.vstack([sets["targ1"], sets["targ2"]]))
    return W @ unit_rows(sets["attr1"]).T, W @ unit_rows(sets["attr2"]).T, len(sets["targ1"])
