"""Pair scores (CrowS-Pairs-style: CPS, PLL, AUL, AULA) with ties: the test of a preference and the intervals.

Each of ``n`` pairs is a tie with probability ``ties``; a decided pair prefers the more stereotypical sentence
with probability ``prefer`` (0.5: no preference). The published score counts a tie in n and never in k
(CrowS-Pairs' metric.py), so its expectation is ``100 (1 - ties) prefer``; the decided share's is ``100
prefer``. Measured: the sign test of the decided pairs (the headline ``p_value``), the earlier binomial test
of k of n (before: ties counted as not stereotypical), and the Wilson intervals of both shares, all through
the library's public functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.metrics.likelihood import pair_bias_score
from embias_widgets.metrics.likelihood.pair_intervals import pair_score_test
from embias_widgets.metrics.score_intervals import binomial_p_value

from .core import Check, Outcome

ALPHA = 0.05
FAST = [{"n": 1508, "ties": 0.1, "prefer": 0.5}, {"n": 100, "ties": 0.2, "prefer": 0.6}]
#: The fast grid's bands, wide enough for the Monte Carlo error of 200 replicates (the full grid holds the promise:
#: coverage in [0.92, 0.98], size at most 0.07); ``bands`` knows a fast setting by identity (the runner passes the
#: grid's own dicts).
CI_BANDS = {"sign_rejects": (0.0, 0.08), "score_covered": (0.90, 0.99), "decided_covered": (0.90, 0.99)}


def draw_pairs(rng: np.random.Generator, n: int, ties: float, prefer: float) -> tuple[np.ndarray, np.ndarray]:
    """Sentence scores of ``n`` pairs: equal for a tie, else the more stereotypical one higher with ``prefer``."""
    tie = rng.random(n) < ties
    stereo_wins = rng.random(n) < prefer
    anti = rng.normal(-20.0, 3.0, n)
    gap = np.where(tie, 0.0, np.where(stereo_wins, 1.0, -1.0) * rng.uniform(0.01, 2.0, n))
    return anti + gap, anti


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    n, ties, prefer = params["n"], params["ties"], params["prefer"]
    stereo, anti = draw_pairs(rng, n, ties, prefer)
    bias = pair_bias_score(stereo, anti)
    k = bias.n_stereo_preferred
    test = pair_score_test(k, bias.n, bias.n_ties)
    score, decided = test["score_interval"], test["percent_of_decided_interval"]
    out = {"score_covered": score["low"] <= 100 * (1 - ties) * prefer <= score["high"]}
    if decided is not None:
        out["decided_covered"] = decided["low"] <= 100 * prefer <= decided["high"]
    sign = bias.p_value is not None and bias.p_value < ALPHA
    old = binomial_p_value(k, bias.n) < ALPHA
    if prefer == 0.5:
        out.update(sign_rejects=sign, old_rejects=old)
    else:
        out.update(sign_power=sign, old_power=old)
    return out


CHECKS = [
    Check(
        name="pairs",
        description="n pairs, a share `ties` of them tied, the decided ones preferring the more stereotypical "
                    "sentence with probability `prefer`",
        outcomes=[
            Outcome("sign_rejects", "sign test of the decided pairs, p < 0.05 (p_value)", "no preference among "
                    "decided pairs", "size", (0.0, 0.07)),
            Outcome("old_rejects", "before: binomial test of k of n (a tie counted as not stereotypical), p < 0.05",
                    "no preference among decided pairs", "size", None),
            Outcome("sign_power", "sign test of the decided pairs, p < 0.05", "a preference of `prefer`", "power"),
            Outcome("old_power", "before: binomial test of k of n, p < 0.05", "a preference of `prefer`", "power"),
            Outcome("score_covered", "Wilson interval of k/n (score_interval)", "the expected published score "
                    "100 (1 - ties) prefer", "coverage", (0.92, 0.98)),
            Outcome("decided_covered", "Wilson interval of k/(n - ties) (percent_of_decided_interval)",
                    "the decided share 100 prefer", "coverage", (0.92, 0.98)),
        ],
        replicate=replicate,
        fast=FAST,
        full=[{"n": n, "ties": t, "prefer": p} for p in (0.5, 0.6) for t in (0.0, 0.05, 0.1, 0.2)
              for n in (20, 100, 400, 1508)],
        bands=lambda p: CI_BANDS if any(p is f for f in FAST) else {},
    ),
]
