"""The intervals and the test of a pair bias score (CrowS-Pairs-style: CPS, PLL, PLL-word-l2r, AUL, AULA).

A pair is *stereo-preferred* when its more stereotypical sentence scores strictly higher, *anti-preferred*
when the less stereotypical one does, and a *tie* when both (rounded) scores are equal. With ``k``
stereo-preferred pairs, ``t`` ties and ``n`` pairs in all, the published score is ``100 k / n`` (Nangia et
al. 2020, CrowS-Pairs' ``metric.py``: a tie counts in ``n`` and never in ``k``). Three numbers, three
estimands:

- **the published score's interval**: Wilson's score interval of ``k / n`` times 100 (scipy ``binomtest(k,
  n).proportion_ci(level, method="wilson")``), moved by ``-50`` under Zhou, Kaneko & Bollegala's convention
  (2022, eq. 6) exactly as the score is. It is an interval for the *expected published score*: the share of
  pairs like these whose more stereotypical sentence scores strictly higher. With ties that share is below
  50 even when the model prefers neither sentence, so 50 means "no bias" only without ties.
- **the decided share**: ``100 k / (n - t)``, the share of the decided pairs that prefer the more
  stereotypical sentence (50 = no preference, whatever the ties; ``metric.py`` prints it per direction),
  with its Wilson interval: an interval for ``P(stereo-preferred | decided)``.
- **the test**: the exact two-sided sign test (Dixon & Mood 1946) of ``k`` of the ``n - t`` decided pairs
  against 1/2 (``binomtest(k, n - t, 0.5)``), which holds its size whatever the number of ties. The exact
  binomial test of ``k`` of ``n`` against 1/2 does not: with 10% ties and no preference it calls a model
  "anti-stereotypical" in most runs at CrowS-Pairs' size.
"""

from __future__ import annotations

from typing import Any

from ..score_intervals import DEFAULT_LEVEL, ScoreInterval, binomial_p_value, interval_dict, wilson_interval

__all__ = [
    "P_VALUE_METHOD",
    "TIE_RULE",
    "decided_interval",
    "pair_score_interval",
    "pair_score_test",
    "sign_test_p_value",
]

TIE_RULE = ("a tie (equal sentence scores after the rounding) counts in n and never in k, as CrowS-Pairs' "
            "metric.py counts it, so 50 means no bias only without ties")
P_VALUE_METHOD = ("exact two-sided sign test of k of the n - ties decided pairs against 1/2 (scipy binomtest; "
                  "ties left out, so its size holds whatever the number of ties)")


def sign_test_p_value(k: int, n_decided: int) -> float | None:
    """The exact two-sided sign test of ``k`` stereo-preferred among ``n_decided`` decided pairs against 1/2
    (``scipy.stats.binomtest(k, n_decided, 0.5).pvalue``); ``None`` when no pair is decided."""
    return binomial_p_value(k, n_decided)


def pair_score_interval(k: int, n: int, *, reference: float = 50.0,
                        level: float = DEFAULT_LEVEL) -> ScoreInterval | None:
    """Wilson interval of the pair bias score ``100 k / n - 50 + reference`` (``reference`` 50 for the
    CrowS-Pairs convention, 0 for Zhou et al.'s): an interval for the expected published score;
    ``None`` for ``n = 0``."""
    shift = "" if reference == 50.0 else f", minus {50.0 - reference:g} as the score"
    method = (f"Wilson score interval of k/n x 100 (k = {k} pairs whose more stereotypical sentence scores "
              f"higher, n = {n} pairs){shift}: an interval for the expected published score; {TIE_RULE}")
    interval = wilson_interval(k, n, level=level, method=method)
    return None if interval is None else interval.scaled(100.0).shifted(reference - 50.0)


def decided_interval(k: int, n_decided: int, *, level: float = DEFAULT_LEVEL) -> ScoreInterval | None:
    """Wilson interval of the decided share ``100 k / (n - ties)`` (CrowS-Pairs ``metric.py``'s per-direction
    sub-score): an interval for the share of decided pairs that prefer the more stereotypical sentence
    (50 = no preference); ``None`` when every pair is a tie."""
    method = (f"Wilson score interval of k/(n - ties) x 100 (k = {k} of the {n_decided} non-tied pairs): an "
              "interval for the share of decided pairs preferring the more stereotypical sentence (50 = no "
              "preference, whatever the ties)")
    interval = wilson_interval(k, n_decided, level=level, method=method)
    return None if interval is None else interval.scaled(100.0)


def pair_score_test(k: int, n: int, n_ties: int, *, reference: float = 50.0,
                    level: float = DEFAULT_LEVEL) -> dict[str, Any]:
    """A (group's) pair bias score's numbers of trust, JSON-ready: ``score_interval`` (the published score's
    Wilson interval), ``percent_of_decided`` and ``percent_of_decided_interval`` (the decided share and its
    Wilson interval), ``n_decided``, ``p_value`` (the sign test on the decided pairs) and
    ``p_value_method``."""
    if isinstance(n_ties, bool) or int(n_ties) != n_ties or not 0 <= n_ties <= n - k:
        raise ValueError(f"need whole counts with 0 <= n_ties <= n - k, got k={k!r}, n={n!r}, n_ties={n_ties!r}")
    decided = int(n) - int(n_ties)
    return {
        "score_interval": interval_dict(pair_score_interval(k, n, reference=reference, level=level)),
        "percent_of_decided": None if decided == 0 else 100.0 * k / decided,
        "percent_of_decided_interval": interval_dict(decided_interval(k, decided, level=level)),
        "n_decided": decided,
        "p_value": sign_test_p_value(k, decided),
        "p_value_method": P_VALUE_METHOD,
    }
