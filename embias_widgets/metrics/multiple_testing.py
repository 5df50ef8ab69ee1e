"""Holm-Bonferroni step-down correction (Holm 1979), as applied by May et al.
(2019) at alpha = 0.01 across all tests x models.

:data:`DEFAULT_ALPHA` (0.01, May et al.'s level) is the one significance level every surface uses unless given
another: the report, ``embias weat``, the analyses' robustness checks and the widgets' star."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .validation import check_options

DEFAULT_ALPHA = 0.01
"""The significance level of every surface unless another is given (May et al. 2019's level)."""


@dataclass(frozen=True)
class HolmResult:
    """``reject[i]``: hypothesis i is rejected; ``adjusted[i]``: Holm-adjusted p."""

    reject: np.ndarray
    adjusted: np.ndarray
    alpha: float


def holm_bonferroni(pvalues: np.ndarray, *, alpha: float = DEFAULT_ALPHA) -> HolmResult:
    """Holm-Bonferroni over m hypotheses at level ``alpha``.

    Sort p ascending p(1)..p(m); find the smallest k with
    ``p(k) > alpha / (m + 1 - k)``; reject H(1)..H(k-1) (all if no such k).
    Adjusted p-values: ``max_{j<=k} min(1, (m + 1 - j) p(j))``.
    Results are returned in the input order.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"`pvalues` must be one-dimensional, got shape {p.shape}")
    check_options(alpha=alpha)
    if np.any((p < 0) | (p > 1) | ~np.isfinite(p)):
        raise ValueError("every p-value must be a number between 0 and 1")
    m = p.size
    order = np.argsort(p, kind="stable")
    sorted_p = p[order]
    thresholds = alpha / (m - np.arange(m))  # alpha / (m + 1 - k) for k = 1..m
    failing = np.flatnonzero(sorted_p > thresholds)
    n_reject = int(failing[0]) if failing.size else m
    reject = np.zeros(m, dtype=bool)
    reject[order[:n_reject]] = True
    adjusted_sorted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * sorted_p))
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    return HolmResult(reject=reject, adjusted=adjusted, alpha=alpha)


def holm_thresholds(pvalues: np.ndarray, *, alpha: float = DEFAULT_ALPHA) -> np.ndarray:
    """The threshold of Holm's step at which each p-value is judged (Holm 1979), in the input order.

    With ``p(1) <= ... <= p(m)``, the step of ``p(k)`` compares it with ``alpha / (m + 1 - k)``; tied p-values
    pass or fail together at the first of their steps, so each p-value's threshold is ``alpha / (m - s)`` with
    ``s`` the number of p-values strictly below it. A p-value above its threshold is never rejected; one at or
    below it is rejected when every smaller p-value passed its own step (:func:`holm_bonferroni`). Displays
    use these to show a p-value with the digits that keep it on its side of its step.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"`pvalues` must be one-dimensional, got shape {p.shape}")
    check_options(alpha=alpha)
    below = np.searchsorted(np.sort(p), p, side="left")
    return alpha / (p.size - below)
