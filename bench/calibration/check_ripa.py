"""RIPA: each word's interval over the relation pairs (:func:`embias_widgets.metrics.relation_intervals.ripa_intervals`:
bias-corrected, or percentile with a warning where the pairs differ along a second direction) and, as
'before' rows, the percentile interval of the same replicates, on pairs whose differences are a known
direction plus noise (:mod:`bench.calibration.dgp_relation`); with a second direction, how often it warns."""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.metrics.projection import relation_vector
from embias_widgets.metrics.relation_intervals import ripa_intervals, two_directions_note
from embias_widgets.metrics.score_intervals import percentile_interval

from .core import Check, Outcome
from .dgp_relation import draw_pairs, draw_words

PROJECTIONS = (0.0, 1.0, 4.0)
ESTIMAND = "the word's projection on the population relation vector"


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    second, common = params.get("second", 0.0), params.get("common", 0.0)
    X, Y = draw_pairs(rng, params["pairs"], params["noise"], second=second, common=common)
    W = draw_words(rng, PROJECTIONS, params["perp"], common=common)
    got = ripa_intervals(X, Y, W, n_resamples=params["resamples"], seed=int(rng.integers(2**32)))
    old_low, old_high = percentile_interval(got.replicates, level=got.level, axis=0)
    out = {"warned": two_directions_note(relation_vector(X, Y).singular_values) is not None}
    for j, a in enumerate(PROJECTIONS):
        key = f"{a:g}"
        out[f"bias_corrected_covered_{key}"] = bool(got.low[j] <= a <= got.high[j])
        out[f"percentile_covered_{key}"] = bool(old_low[j] <= a <= old_high[j])
    return out


def bands(params: dict[str, Any]) -> dict[str, tuple[float, float] | None]:
    """The full grid (1,000 resamples) is held to the promise itself, the fast grid to bands wide enough for the
    Monte Carlo error of 200 replicates. A word projecting at 4 is held to "at least": the interval is
    conservative there (0.94-1.0 in the full grid; up to 1.0 when the word lies almost along the relation, cos
    0.97 at perp 1), which costs width, not validity. Where the pairs differ along a second direction the promise
    does not hold (0.89-0.94; the docs say so): coverage is reported, and the warning must fire in most studies
    once that direction is strong (spread 0.8; at 0.5 it fires in about 40%); without it, it must stay silent."""
    if params.get("second"):  # the warning must fire in most studies once the second direction is strong
        return {**{f"bias_corrected_covered_{a:g}": None for a in PROJECTIONS},
                "warned": (0.5, 1.0) if params["second"] >= 0.8 else None}
    full = params["resamples"] >= 1_000
    out = {f"bias_corrected_covered_{a:g}": (0.92, 0.98) if full else (0.90, 0.99) for a in PROJECTIONS}
    out["bias_corrected_covered_4"] = (0.92, 1.0) if full else (0.90, 1.0)
    out["warned"] = (0.0, 0.02)
    return out


CHECKS = [
    Check(
        name="ripa",
        description="RIPA on relation pairs in 50 dimensions (differences = unit direction + noise per coordinate), "
                    "words projecting at 0, 1 and 4 with a perpendicular part of length perp",
        outcomes=[
            *(Outcome(f"bias_corrected_covered_{a:g}", f"RIPA of a word at {a:g}, ripa_intervals (bias-corrected; "
                      "percentile where it warns of a second direction)", ESTIMAND, "coverage", (0.90, 0.99))
              for a in PROJECTIONS),
            *(Outcome(f"percentile_covered_{a:g}", f"before: RIPA of a word at {a:g}, percentile bootstrap over "
                      "the pairs", ESTIMAND, "coverage", None) for a in PROJECTIONS),
            Outcome("warned", "the 'second direction' warning (two_directions_note)", "pairs differ along a "
                    "second direction", "rate", None),
        ],
        replicate=replicate,
        fast=[{"pairs": 10, "noise": 0.15, "perp": 3.0, "resamples": 500},
              {"pairs": 30, "noise": 0.15, "perp": 3.0, "resamples": 500},
              {"pairs": 10, "noise": 0.15, "perp": 3.0, "resamples": 500, "second": 0.8, "common": 3.0}],
        full=[{"pairs": p, "noise": s, "perp": w, "resamples": 1_000}
              for p in (10, 30) for s in (0.1, 0.15, 0.25) for w in (1.0, 3.0)] + [
            {"pairs": 5, "noise": 0.15, "perp": 3.0, "resamples": 1_000}] + [
            {"pairs": p, "noise": 0.15, "perp": 3.0, "resamples": 1_000, "second": s, "common": 3.0}
            for p, s in ((10, 0.5), (10, 0.8), (30, 0.65))],
        bands=bands,
    ),
]
