"""Intervals of headline scores: Wilson intervals of percentages, the exact binomial test, percentile bootstrap.

Every headline number carries an interval that says what was resampled or assumed
(``../shared/docs/metrics.md`` section 6):

- a share ``k / n`` (CrowS-Pairs-style pair scores and their decided pairs): Wilson's score interval
  (Wilson 1927; scipy ``binomtest(k, n).proportion_ci(level, method="wilson")``), with centre
  ``(p + z^2/2n) / (1 + z^2/n)`` and half-width ``z / (1 + z^2/n) * sqrt(p(1-p)/n + z^2/4n^2)``,
  ``z = Phi^-1((1 + level) / 2)``; the exact two-sided binomial test of ``k`` of ``n`` against 1/2;
- a mean of ``n`` independent values: Student's t interval ``mean +- t_{n-1} * s / sqrt(n)``;
- anything else: the percentile bootstrap interval (Efron 1979) of seeded replicates, the
  ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles (``numpy.quantile``, linear, as scipy's
  ``bootstrap(method="percentile")``).

Every interval is a :class:`ScoreInterval` whose :meth:`~ScoreInterval.to_dict` is the JSON convention
``{"low", "high", "level", "method"}``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DEFAULT_LEVEL",
    "ScoreInterval",
    "binomial_p_value",
    "bootstrap_indices",
    "check_level",
    "expanded_level",
    "interval_dict",
    "percentile_interval",
    "resample_counts",
    "t_interval",
    "t_interval_from_sums",
    "wilson_interval",
]

DEFAULT_LEVEL = 0.95
"""The level of every interval unless ``level=`` (API) or ``--level`` (CLI) says otherwise."""


@dataclass(frozen=True)
class ScoreInterval:
    """``[low, high]`` at ``level``, and ``method``: in words, what was resampled or assumed."""

    low: float
    high: float
    level: float
    method: str

    def to_dict(self) -> dict[str, float | str]:
        """``{"low", "high", "level", "method"}`` (the library's JSON convention for intervals)."""
        return {"low": float(self.low), "high": float(self.high), "level": float(self.level), "method": self.method}

    def shifted(self, by: float) -> ScoreInterval:
        """The same interval moved by ``by`` (a convention that reports ``score - 50``)."""
        return ScoreInterval(self.low + by, self.high + by, self.level, self.method)

    def scaled(self, by: float) -> ScoreInterval:
        """The same interval times ``by`` (a share as a percentage)."""
        return ScoreInterval(self.low * by, self.high * by, self.level, self.method)


def interval_dict(interval: ScoreInterval | None) -> dict[str, float | str] | None:
    """:meth:`ScoreInterval.to_dict`, or ``None`` for an undefined score."""
    return None if interval is None else interval.to_dict()


def check_level(level: object) -> float:
    """``level`` as a float strictly between 0 and 1; ``ValueError`` naming what to give otherwise."""
    if isinstance(level, bool) or not isinstance(level, int | float | np.floating | np.integer) \
            or not 0.0 < float(level) < 1.0:
        raise ValueError(f"`level` must be a number strictly between 0 and 1 (e.g. 0.95), got {level!r}")
    return float(level)


def _counts(k: int, n: int) -> tuple[int, int]:
    if isinstance(k, bool) or isinstance(n, bool) or int(k) != k or int(n) != n or not 0 <= k <= n:
        raise ValueError(f"need whole counts 0 <= k <= n, got k={k!r}, n={n!r}")
    return int(k), int(n)


def wilson_interval(k: int, n: int, *, level: float = DEFAULT_LEVEL, method: str = "") -> ScoreInterval | None:
    """Wilson's score interval of the share ``k / n`` (as scipy's ``proportion_ci(method="wilson")``);
    ``None`` for ``n = 0``."""
    k, n = _counts(k, n)
    level = check_level(level)
    if n == 0:
        return None
    from scipy import stats

    ci = stats.binomtest(k, n).proportion_ci(level, method="wilson")
    return ScoreInterval(float(ci.low), float(ci.high), level, method or f"Wilson score interval of {k} of {n}")


def binomial_p_value(k: int, n: int) -> float | None:
    """Exact two-sided binomial test of ``k`` successes in ``n`` against 1/2 (scipy ``binomtest``);
    ``None`` for ``n = 0``."""
    from scipy import stats

    k, n = _counts(k, n)
    return None if n == 0 else float(stats.binomtest(k, n, 0.5).pvalue)


def t_interval(values: np.ndarray, *, level: float = DEFAULT_LEVEL, method: str = "") -> ScoreInterval | None:
    """Student's t interval of the mean of ``values``: ``mean +- t_{n-1, (1+level)/2} * s / sqrt(n)``
    (``s`` with ddof 1); ``None`` for fewer than 2 values."""
    v = np.asarray(values, dtype=np.float64).ravel()
    return t_interval_from_sums(float(v.sum()), float(np.sum((v - v.mean()) ** 2)) if v.size else 0.0, v.size,
                                level=level, method=method, centred=True)


def t_interval_from_sums(total: float, squares: float, n: int, *, level: float = DEFAULT_LEVEL, method: str = "",
                         centred: bool = False) -> ScoreInterval | None:
    """:func:`t_interval` from ``sum x`` and ``sum x^2`` (or, with ``centred``, ``sum (x - mean)^2``):
    sufficient statistics that add across chunks. ``None`` for ``n < 2``."""
    from scipy import stats

    level = check_level(level)
    if n < 2:
        return None
    mean = total / n
    ss = squares if centred else max(0.0, squares - n * mean * mean)
    sem = math.sqrt(ss / (n - 1) / n)
    half = float(stats.t.ppf((1.0 + level) / 2.0, n - 1)) * sem
    return ScoreInterval(mean - half, mean + half, level, method or f"t interval of the mean of {n} values")


def bootstrap_indices(rng: np.random.Generator, n: int, n_resamples: int) -> np.ndarray:
    """``(n_resamples, n)`` indices drawn with replacement, as scipy's ``bootstrap`` draws them
    (``rng.integers(0, n, (n_resamples, n))``), so a test can hand scipy the same generator."""
    return rng.integers(0, n, (n_resamples, n))


def resample_counts(indices: np.ndarray, m: int) -> np.ndarray:
    """(replicates, m) float counts of each item in each row of resampled ``indices`` (one bincount)."""
    r = len(indices)
    flat = (indices + m * np.arange(r)[:, None]).ravel()
    return np.bincount(flat, minlength=r * m).reshape(r, m).astype(np.float64)


def percentile_interval(replicates: np.ndarray, *, level: float = DEFAULT_LEVEL, method: str = "",
                        axis: int = 0, percentiles: float | None = None
                        ) -> tuple[np.ndarray, np.ndarray] | ScoreInterval | None:
    """The percentile bootstrap interval: the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of the
    finite ``replicates``. 1-D replicates give a :class:`ScoreInterval` (``None`` when none is finite);
    2-D ones give ``(low, high)`` arrays along the other axis (NaN where none is finite). ``percentiles``:
    read the quantiles at this level instead (e.g. :func:`expanded_level`'s), the interval still labelled
    ``level``."""
    level = check_level(level)
    read = level if percentiles is None else check_level(percentiles)
    r = np.asarray(replicates, dtype=np.float64)
    tails = [(1.0 - read) / 2.0, (1.0 + read) / 2.0]
    if r.ndim == 1:
        finite = r[np.isfinite(r)]
        if finite.size == 0:
            return None
        low, high = np.quantile(finite, tails)
        return ScoreInterval(float(low), float(high), level, method or f"percentile bootstrap of {r.size} replicates")
    with warnings.catch_warnings():  # a column with no finite replicate: NaN, said by the caller
        warnings.simplefilter("ignore", RuntimeWarning)
        qs = np.nanquantile(np.where(np.isfinite(r), r, np.nan), tails, axis=axis)
    return qs[0], qs[1]


def expanded_level(level: float, df: float) -> float:
    """The level of the percentiles that give a bootstrap interval at ``level`` from ``df + 1`` independent units
    (clusters): Hesterberg's (2015) expanded percentile, ``2 Phi(sqrt(n / (n - 1)) t_{n-1, (1 + level)/2}) - 1``
    with ``n = df + 1``, which undoes the bootstrap's ``(n - 1)/n`` variance and its normal tails when the units
    are few (``level`` itself for ``df < 1``; ``df`` may be fractional, e.g. a Satterthwaite df)."""
    from scipy import stats

    level = check_level(level)
    if not df >= 1:
        return level
    z = math.sqrt((df + 1) / df) * float(stats.t.ppf((1 + level) / 2, df))
    return min(float(2 * stats.norm.cdf(z) - 1), 1.0 - 1e-9)  # with very few units: the replicates' extremes
