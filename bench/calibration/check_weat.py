"""WEAT: the interval of d and the permutation test, on word clusters with a planted association
(:mod:`bench.calibration.dgp_words`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.metrics import effect_size_interval, weat

from .core import Check, Outcome
from .dgp_words import concepts, population_d, strength_for

RESAMPLES = 1_000


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    n, d, sigma = params["n"], params["d"], params["sigma"]
    t = strength_for(d, sigma=sigma)
    world = concepts(t, sigma=sigma)
    truth = population_d(t, sigma=sigma)
    X, Y, A, B = world.draw(rng, (n, n, n, n))
    seed = int(rng.integers(2**32))
    interval = effect_size_interval(X, Y, A, B, n_resamples=RESAMPLES, rng=seed)
    out = {"percentile_covered": bool(interval.low <= truth <= interval.high)}
    if d == 0:
        out["permutation_rejects"] = bool(weat(X, Y, A, B, n_samples=2_000, rng=seed).pvalue < 0.05)
    return out


CHECKS = [
    Check(
        name="weat",
        description="WEAT on Gaussian word clusters in 50 dimensions (spread sigma), n words a set, d planted",
        outcomes=[
            Outcome("percentile_covered", "d, percentile bootstrap over the four sets",
                    "d over the word populations", "coverage", (0.90, 0.99)),
            Outcome("permutation_rejects", "permutation test p < 0.05", "X and Y interchangeable", "size",
                    (0.0, 0.08)),
        ],
        replicate=replicate,
        fast=[{"n": 8, "d": 0.0, "sigma": 0.4}, {"n": 8, "d": 1.5, "sigma": 0.4}],
        full=[{"n": n, "d": d, "sigma": s} for s in (0.25, 0.4) for n in (3, 8, 25, 50) for d in (0.0, 0.5, 1.0, 1.5)],
    ),
]
