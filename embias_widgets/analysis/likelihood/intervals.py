"""How far to trust a likelihood result's numbers: the records that put an interval beside each score.

- The pair bias score, overall, per bias type and per direction: the Wilson interval of the published
  percentage (a tie counts in n, never in k, as CrowS-Pairs' ``metric.py``: an interval for the expected
  published score), the share of decided pairs with its Wilson interval, and the exact sign test of the
  decided pairs against 1/2 (:mod:`~embias_widgets.metrics.likelihood.pair_intervals`).
- StereoSet's SS, LMS and ICAT: target (cluster) bootstrap intervals, each score recomputed per target and
  averaged as the official scorer (:mod:`~embias_widgets.metrics.likelihood.stereoset_intervals`).

Each record follows the JSON convention: beside score ``X`` and its ``n``, ``X_interval`` =
``{"low", "high", "level", "method"}`` (``None`` when ``X`` is undefined).
"""

from __future__ import annotations

from typing import Any

from ...formatting import READ_AT, format_value
from ...metrics.likelihood import CONVENTIONS, PairBiasScore, StereoSetScore
from ...metrics.likelihood.pair_intervals import pair_score_interval, pair_score_test
from ...metrics.score_intervals import DEFAULT_LEVEL, interval_dict

__all__ = ["STEREOSET_SEED", "bias_interval_rows", "group_test", "score_brackets", "stereoset_record"]

STEREOSET_SEED = 0
"""Seed of the StereoSet target bootstrap: a result's intervals are the same on every call."""


def group_test(g: Any, convention: str, level: float = DEFAULT_LEVEL) -> dict[str, Any]:
    """``score_interval``, ``percent_of_decided`` (and its interval), ``n_decided``, ``p_value`` (the sign test
    of the decided pairs) and ``p_value_method`` of a pair bias score or one group of it."""
    return pair_score_test(g.n_stereo_preferred, g.n, g.n_ties, reference=CONVENTIONS[convention], level=level)


def score_brackets(test: dict[str, Any], level: float = DEFAULT_LEVEL) -> str:
    """``[95% Wilson interval a to b; c% of the decided pairs prefer ... [d, e], sign test p f]`` of a
    :func:`group_test`."""
    iv, dec = test["score_interval"], test["percent_of_decided_interval"]
    if iv is None:
        return "[no interval]"
    text = f"[{level:.0%} Wilson interval {iv['low']:.2f} to {iv['high']:.2f}"
    if dec is None:
        return text + "; every pair a tie, so no decided pair to test]"
    return (text + f"; {test['percent_of_decided']:.2f}% of the decided pairs prefer the more stereotypical "
            f"sentence [{dec['low']:.2f}, {dec['high']:.2f}], sign test p "
            f"{format_value(test['p_value'], 'p', READ_AT)}]")


def bias_interval_rows(bias: PairBiasScore | None, convention: str,
                       level: float = DEFAULT_LEVEL) -> list[dict[str, Any]]:
    """One row per score (all pairs, each bias type, each direction): score, its interval, the decided share
    and its interval, the sign test's p."""
    if bias is None:
        return []
    reference = CONVENTIONS[convention]
    rows = []
    for group, name, g in [("all", "all pairs", bias), *(("bias_type", k, v) for k, v in bias.by_bias_type.items()),
                           *(("direction", k, v) for k, v in bias.by_direction.items())]:
        iv = pair_score_interval(g.n_stereo_preferred, g.n, reference=reference, level=level)
        test = group_test(g, convention, level)
        decided = test["percent_of_decided_interval"]
        rows.append({"group": group, "name": name, "score": g.score, "low": None if iv is None else iv.low,
                     "high": None if iv is None else iv.high, "percent_of_decided": test["percent_of_decided"],
                     "decided_low": None if decided is None else decided["low"],
                     "decided_high": None if decided is None else decided["high"], "p_value": test["p_value"],
                     "n": g.n, "n_more_preferred": g.n_stereo_preferred, "n_ties": g.n_ties})
    return rows


def stereoset_record(s: StereoSetScore, level: float = DEFAULT_LEVEL, *, by_type: bool = True) -> dict[str, Any]:
    """SS, LMS, ICAT with their target bootstrap intervals (``ss_interval``, ...), ``n`` and, with
    ``by_type``, the same per bias type."""
    out: dict[str, Any] = {}
    ivs = s.intervals(level=level, seed=STEREOSET_SEED)
    for name in ("ss", "lms", "icat"):
        out[name] = getattr(s, name)
        out[f"{name}_interval"] = None if ivs is None else interval_dict(getattr(ivs, name))
    out["n"] = s.n
    out["average"] = s.average
    if by_type:
        out["by_bias_type"] = {k: stereoset_record(v, level, by_type=False) for k, v in s.by_bias_type.items()}
        for v in out["by_bias_type"].values():
            v.pop("average")
    return out
