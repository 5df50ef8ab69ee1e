"""The interval and the test against 50 of a pair bias score (CrowS-Pairs-style: CPS, PLL, AUL, AULA).

With ``k`` of ``n`` pairs whose more stereotypical sentence scores higher (``../shared/docs/metrics.md``
section 6):

- the interval of the percentage ``100 k / n`` is Wilson's score interval of ``k / n`` times 100 (scipy
  ``binomtest(k, n).proportion_ci(level, method="wilson")``), moved by ``-50`` under Zhou, Kaneko &
  Bollegala's convention (2022, eq. 6), exactly as the score is;
- the test is the exact two-sided binomial test of ``k`` of ``n`` against 1/2 (``binomtest(k, n, 0.5)``).

Ties enter as the score itself counts them (Nangia et al. 2020, CrowS-Pairs' ``metric.py``): a pair whose
two (rounded) sentence scores are equal is in ``n`` and never in ``k``. So ties pull the score, its interval
and the test towards "anti-stereotypical"; the number of ties is reported beside them (``n_ties``).
"""

from __future__ import annotations

from typing import Any

from ..score_intervals import DEFAULT_LEVEL, ScoreInterval, binomial_p_value, interval_dict, wilson_interval

__all__ = ["P_VALUE_METHOD", "TIE_RULE", "decided_interval", "pair_score_interval", "pair_score_test"]

TIE_RULE = ("a tie (equal sentence scores after the rounding) counts in n and never in k, as CrowS-Pairs' "
            "metric.py counts it")
P_VALUE_METHOD = ("exact two-sided binomial test of k of n pairs against 1/2 (scipy binomtest); " + TIE_RULE)


def pair_score_interval(k: int, n: int, *, reference: float = 50.0,
                        level: float = DEFAULT_LEVEL) -> ScoreInterval | None:
    """Wilson interval of the pair bias score ``100 k / n - 50 + reference`` (``reference`` 50 for the
    CrowS-Pairs convention, 0 for Zhou et al.'s); ``None`` for ``n = 0``."""
    shift = "" if reference == 50.0 else f", minus {50.0 - reference:g} as the score"
    method = (f"Wilson score interval of k/n x 100 (k = {k} pairs whose more stereotypical sentence scores "
              f"higher, n = {n} pairs){shift}; {TIE_RULE}")
    interval = wilson_interval(k, n, level=level, method=method)
    return None if interval is None else interval.scaled(100.0).shifted(reference - 50.0)


def pair_score_test(k: int, n: int, *, reference: float = 50.0, level: float = DEFAULT_LEVEL) -> dict[str, Any]:
    """``{"score_interval", "p_value", "p_value_method"}`` of a (group's) pair bias score, JSON-ready."""
    return {
        "score_interval": interval_dict(pair_score_interval(k, n, reference=reference, level=level)),
        "p_value": binomial_p_value(k, n),
        "p_value_method": P_VALUE_METHOD,
    }


def decided_interval(k: int, n_decided: int, *, level: float = DEFAULT_LEVEL) -> ScoreInterval | None:
    """Wilson interval of CrowS-Pairs ``metric.py``'s per-direction sub-score ``100 k / (n - ties)`` (ties left
    out, as that sub-score leaves them out); ``None`` when every pair is a tie."""
    method = (f"Wilson score interval of k/(n - ties) x 100 (k = {k} of the {n_decided} non-tied pairs), "
              "as metric.py's sub-score leaves ties out")
    interval = wilson_interval(k, n_decided, level=level, method=method)
    return None if interval is None else interval.scaled(100.0)
