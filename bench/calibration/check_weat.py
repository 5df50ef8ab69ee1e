"""WEAT: the intervals of d and of the association difference, and the permutation test, on word clusters with a
planted association (:mod:`bench.calibration.dgp_words`).

One replicate draws n words a set and runs the library's own functions on them:

- ``bca_covered``: the default interval, BCa over the four sets (:func:`embias_widgets.metrics.
  association_intervals`), holds the population d (every set replaced by its population);
- ``percentile_covered``: the percentile interval of the same replicates (the earlier default), reported as
  the "before" row, no promise;
- ``difference_covered``: the BCa interval of ``mean_X s - mean_Y s`` holds its population value. It is held
  to the promise's lower end only: resampling the four crossed sets over-counts the target-by-attribute
  interaction (its variance enters three times instead of once; Owen 2007), so where the words spread widely
  the interval is too wide (coverage up to 0.99), not too narrow;
- ``conditional_covered``: the conditional interval (``resample="targets"``: A and B kept) holds d with these
  attribute words over the target populations (:func:`~bench.calibration.dgp_words.conditional_d`);
- ``permutation_rejects``: at d = 0, the permutation test's p < 0.05 (its size); at d > 0, its power.

Both grids use the library's default resamples (2,000); the fast grid (CI) is held to wider bands.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.metrics import association_intervals, weat
from embias_widgets.metrics.bootstrap import percentile_interval

from .core import Check, Outcome
from .dgp_words import concepts, conditional_d, population_values, strength_for

LEVEL, ALPHA = 0.95, 0.05
PROMISE, CI_BAND = (0.92, 0.98), (0.88, 0.99)
SIZE, CI_SIZE = (0.0, 0.07), (0.0, 0.08)
PERMUTATIONS = 2_000


def _covers(interval: Any, truth: float) -> bool:
    return bool(interval.low <= truth <= interval.high)


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    n, d, sigma = params["n"], params["d"], params["sigma"]
    resamples = 2_000  # the library's default
    t = strength_for(d, sigma=sigma)
    world = concepts(t, sigma=sigma)
    truth_d, truth_difference = population_values(t, sigma=sigma)
    X, Y, A, B = world.draw(rng, (n, n, n, n))
    seed = int(rng.integers(2**32))
    both = association_intervals(X, Y, A, B, n_resamples=resamples, confidence_level=LEVEL, rng=seed)
    conditional = association_intervals(X, Y, A, B, n_resamples=resamples, confidence_level=LEVEL,
                                        resample="targets", rng=seed).effect_size
    low, high = percentile_interval(both.effect_size.replicates, LEVEL)
    p = weat(X, Y, A, B, n_samples=PERMUTATIONS, rng=seed).pvalue
    return {
        "bca_covered": _covers(both.effect_size, truth_d),
        "percentile_covered": bool(low <= truth_d <= high),
        "difference_covered": _covers(both.association_difference, truth_difference),
        "conditional_covered": _covers(conditional, conditional_d(world, A, B)),
        "permutation_rejects": bool(p < ALPHA),
    }


def bands(params: dict[str, Any]) -> dict[str, tuple[float, float] | None]:
    """The fast grid (CI: 200 replicates a setting) gets bands wide enough for its Monte Carlo error: a true
    coverage at the promise's edge, 0.92, falls below 0.88 in under 1% of 200-replicate runs (2.3 standard
    errors). The permutation test's rejection rate is a size at d = 0 and a power (no band) otherwise."""
    fast = params.get("fast", False)
    coverage = CI_BAND if fast else PROMISE
    out: dict[str, tuple[float, float] | None] = {
        "bca_covered": coverage, "difference_covered": (coverage[0], 1.0), "conditional_covered": coverage}
    out["permutation_rejects"] = (CI_SIZE if fast else SIZE) if params["d"] == 0 else None
    return out


def _grid(sizes: tuple[int, ...], effects: tuple[float, ...], sigmas: tuple[float, ...]) -> list[dict[str, Any]]:
    return [{"n": n, "d": d, "sigma": s} for s in sigmas for n in sizes for d in effects]


CHECKS = [
    Check(
        name="weat",
        description="WEAT on Gaussian word clusters in 50 dimensions (spread sigma), n words a set, d planted",
        outcomes=[
            Outcome("bca_covered", "d, BCa bootstrap over the four sets (default)",
                    "d over the word populations the four lists stand for", "coverage", PROMISE),
            Outcome("percentile_covered", "d, percentile bootstrap over the four sets (before: the old default)",
                    "d over the word populations the four lists stand for", "coverage", None),
            Outcome("difference_covered", "mean_X s - mean_Y s, BCa bootstrap over the four sets (conservative: "
                    "at least the promise)", "mean_X s - mean_Y s over the word populations", "coverage",
                    (PROMISE[0], 1.0)),
            Outcome("conditional_covered", "d, BCa bootstrap over X and Y (resample='targets')",
                    "d with these attribute words, over the target populations", "coverage", PROMISE),
            Outcome("permutation_rejects", "permutation test p < 0.05", "X and Y interchangeable", "size", SIZE),
        ],
        replicate=replicate,
        bands=bands,
        fast=[{"n": 8, "d": d, "sigma": 0.4, "fast": True} for d in (0.0, 1.5)],
        full=_grid((3, 8, 25, 50), (0.0, 0.5, 1.0, 1.5), (0.25, 0.4)),
    ),
]
