"""Paired comparison of two models on the same items: the tests and intervals of a change in a bias score.

Both models scored the very same pairs, words or templates, so each item carries a before and an after value
and the change is estimated item by item (``../shared/docs/metrics.md`` section 6c):

- **McNemar's exact test** (McNemar 1947) on the discordant items of a binary outcome (a pair counted for the
  more stereotypical sentence): ``b`` items counted before and not after, ``c`` after and not before; under
  "no change" ``b ~ Binomial(b + c, 1/2)``, so ``p = binomtest(b, b + c, 1/2)`` two-sided (as statsmodels'
  ``mcnemar(table, exact=True)``: ``min(1, 2 P(X <= min(b, c)))``). Concordant items carry no information.
- **The paired bootstrap** (Efron & Tibshirani 1993, ch. 6): one resample of the items (indices drawn as
  scipy's ``bootstrap(..., paired=True)`` draws them) serves both models, and the change is recomputed on it;
  the percentile interval of the replicate changes is for the change over the population the items stand for.
- **The sign-flip (paired randomization) test** of a mean of unit-level differences (Fisher 1935): under "the
  two models are exchangeable on each unit" every unit's difference is as likely negated; exact over all
  ``2^k`` sign patterns for ``k <= 16`` units, else ``n_resamples`` random patterns with the +1 correction.
- **BCa** (Efron 1987): the percentile interval corrected for the replicates' median bias ``z0`` and their
  acceleration ``a`` from a jackknife that leaves out one item of each sample in turn (scipy's multi-sample
  ``bootstrap(method="BCa")`` computes ``a`` the same way).

Each change is a :class:`PairedChange`: before, after, their difference, its interval (a
:class:`~.score_intervals.ScoreInterval` naming what was resampled), the test's p-value and the change in
*bias*, the distance from the value that means "no bias" (``|after - ref| - |before - ref|``, the same
replicates): a score can move a lot and its bias not at all when it crosses the no-bias value.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .score_intervals import DEFAULT_LEVEL, ScoreInterval, bootstrap_indices, check_level, percentile_interval
from .validation import check_options

__all__ = [
    "DEFAULT_PAIRED_RESAMPLES",
    "EXACT_SIGN_FLIP_UNITS",
    "McNemarResult",
    "PairedChange",
    "bca_bounds",
    "bootstrap_p_value",
    "mcnemar_exact",
    "pair_score_change",
    "sign_flip_test",
]

DEFAULT_PAIRED_RESAMPLES = 2_000
"""Bootstrap replicates of a paired change unless asked otherwise."""
EXACT_SIGN_FLIP_UNITS = 16
"""Up to this many units the sign-flip test enumerates all ``2^k`` sign patterns (65,536 at 16)."""


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's exact test: ``b`` items counted before only, ``c`` after only, ``p_value`` two-sided."""

    b: int
    c: int
    p_value: float
    method: str


@dataclass(frozen=True)
class PairedChange:
    """A change in one score between two models scored on the same items.

    Attributes
    ----------
    before, after, change
        The score of the first (baseline) model, of the second, and ``after - before``.
    interval
        Of ``change`` at its level; ``method`` names what was resampled and which interval it is.
    p_value, test
        The paired test of "no change" (two-sided) and how it was computed; ``None`` for a descriptive change.
    reference
        The score that means "no bias" (50 for percentages, 0 for effect sizes, 1 for NLI neutrality).
    bias_change, bias_interval
        ``|after - ref| - |before - ref|`` and its interval from the same replicates: positive when the
        bias grew.
    n
        Items (or clusters) the change is paired on; ``counts`` holds what the test counted (``b``, ``c``).
    replicates
        The bootstrap replicates of ``change`` (NaN where undefined).
    warning
        Why the interval may not hold its promise on these data (None when nothing is known against it): e.g.
        a change in WEAT's d where the attribute words' own spread dominates the association scores.
    """

    before: float
    after: float
    change: float
    interval: ScoreInterval | None
    p_value: float | None
    test: str
    reference: float
    bias_change: float
    bias_interval: ScoreInterval | None
    n: int
    counts: dict[str, int] = field(default_factory=dict)
    replicates: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False, compare=False)
    warning: str | None = None

    def to_dict(self) -> dict[str, object]:
        """JSON-ready, full precision: ``before, after, change, change_interval, p_value, test, reference,
        bias_change, bias_change_interval, n, counts, warning`` (intervals as ``{low, high, level, method}``)."""
        return {"before": float(self.before), "after": float(self.after), "change": float(self.change),
                "change_interval": None if self.interval is None else self.interval.to_dict(),
                "p_value": None if self.p_value is None else float(self.p_value), "test": self.test,
                "reference": float(self.reference), "bias_change": float(self.bias_change),
                "bias_change_interval": None if self.bias_interval is None else self.bias_interval.to_dict(),
                "n": int(self.n), "counts": {k: int(v) for k, v in self.counts.items()}, "warning": self.warning}


def mcnemar_exact(b: int, c: int) -> McNemarResult:
    """McNemar's exact test: ``p = binomtest(b, b + c, 1/2)`` two-sided; 1.0 without discordant items."""
    for name, v in (("b", b), ("c", c)):
        if isinstance(v, bool) or int(v) != v or v < 0:
            raise ValueError(f"`{name}` must be a whole number >= 0 (a count of discordant items), got {v!r}")
    b, c = int(b), int(c)
    if b + c == 0:
        p = 1.0
    else:
        from scipy import stats

        p = float(stats.binomtest(b, b + c, 0.5).pvalue)
    return McNemarResult(b, c, p, f"McNemar's exact test: b = {b} items counted before only, c = {c} after only, "
                         "binomial(b, b + c, 1/2) two-sided")


def bootstrap_p_value(replicates: np.ndarray, null: float = 0.0) -> float | None:
    """Two-sided p from the bootstrap distribution of a change: ``min(1, 2 min(#(r <= null) + 1, #(r >= null) + 1)
    / (R + 1))`` over the ``R`` finite replicates. It is the level at which the percentile interval starts to
    exclude ``null`` (so ``p < alpha`` where the ``1 - alpha`` percentile interval excludes it); None when no
    replicate is finite."""
    r = np.asarray(replicates, dtype=np.float64)
    r = r[np.isfinite(r)]
    if r.size == 0:
        return None
    low, high = int(np.sum(r <= null)), int(np.sum(r >= null))
    return float(min(1.0, 2.0 * (min(low, high) + 1) / (r.size + 1)))


def sign_flip_test(differences: Sequence[float] | np.ndarray, *, n_resamples: int = 10_000,
                   rng: np.random.Generator | int | None = None) -> tuple[float, bool]:
    """``(p, exact)``: the two-sided sign-flip test that the unit differences' mean is 0 (see the module docstring).

    ``p = #(|mean(s * d)| >= |mean(d)|) / 2^k`` over every sign pattern ``s`` (exact, ``k <= 16``), else
    ``(1 + #) / (1 + n_resamples)`` over random patterns. A tolerance of 1e-12 relative keeps float noise from
    ranking the observed pattern below its own replicate."""
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or d.size == 0 or not np.all(np.isfinite(d)):
        raise ValueError("`differences` must be a non-empty 1-D array of finite unit-level differences")
    check_options(n_resamples=n_resamples, seed=rng)
    observed = abs(d.mean())
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    if d.size <= EXACT_SIGN_FLIP_UNITS:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
        return float(np.mean(np.abs(signs @ d) / d.size >= observed - tol)), True
    gen = np.random.default_rng(rng)
    hits = 0
    for start in range(0, n_resamples, 1024):
        r = min(1024, n_resamples - start)
        signs = gen.choice((-1.0, 1.0), size=(r, d.size))
        hits += int(np.sum(np.abs(signs @ d) / d.size >= observed - tol))
    return float((1 + hits) / (1 + n_resamples)), False


def bca_bounds(estimate: float, replicates: np.ndarray, jackknife: Sequence[np.ndarray], *,
               level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """The BCa interval ``[low, high]`` of ``estimate`` from its bootstrap ``replicates`` and, per sample, the
    leave-one-out values of the statistic (``jackknife[j][i]``: item i of sample j left out).

    ``z0 = Phi^-1((#(r < est) + #(r <= est)) / 2R)``; per sample ``U_ji = (n_j - 1)(mean_i t_ji - t_ji)``,
    ``a = sum_j sum_i U_ji^3 / n_j^3 / (6 (sum_j sum_i U_ji^2 / n_j^2)^(3/2))``; the bounds are the replicates'
    quantiles at ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1(tail)`` and ``Phi^-1(1 - tail)``
    (Efron 1987; scipy ``bootstrap(method="BCa")``). NaN replicates are left out; NaN bounds when none is left
    or the correction is undefined (every replicate equal to the estimate on one side)."""
    from scipy.special import ndtr, ndtri

    level = check_level(level)
    r = np.asarray(replicates, dtype=np.float64)
    r = r[np.isfinite(r)]
    if r.size == 0 or not np.isfinite(estimate):
        return float("nan"), float("nan")
    z0 = ndtri((np.sum(r < estimate) + np.sum(r <= estimate)) / (2.0 * r.size))
    nums, dens = 0.0, 0.0
    for values in jackknife:
        t = np.asarray(values, dtype=np.float64)
        t = t[np.isfinite(t)]
        if t.size < 2:
            continue
        u = (t.size - 1) * (t.mean() - t)
        nums += float(np.sum(u ** 3)) / t.size ** 3
        dens += float(np.sum(u ** 2)) / t.size ** 2
    a = nums / (6.0 * dens ** 1.5) if dens > 0 else 0.0
    tail = (1.0 - level) / 2.0
    bounds = []
    for z in (ndtri(tail), ndtri(1.0 - tail)):
        q = ndtr(z0 + (z0 + z) / (1.0 - a * (z0 + z)))
        bounds.append(float(np.percentile(r, 100.0 * q)) if np.isfinite(q) else float("nan"))
    return bounds[0], bounds[1]


def interval_of(replicates: np.ndarray, level: float, method: str) -> ScoreInterval | None:
    """The percentile interval of ``replicates`` (None when none is finite)."""
    got = percentile_interval(np.asarray(replicates, dtype=np.float64), level=level, method=method)
    return got if isinstance(got, ScoreInterval) else None


def bias_distance(values: np.ndarray | float, reference: float, *, higher_is_better: bool = False) -> np.ndarray:
    """How far ``values`` are from "no bias": ``|v - ref|``, or ``ref - v`` for a score whose best value is its
    reference from below (NLI neutrality, 1 = unbiased)."""
    v = np.asarray(values, dtype=np.float64)
    return reference - v if higher_is_better else np.abs(v - reference)


def pair_score_change(
    before: Sequence[bool] | np.ndarray,
    after: Sequence[bool] | np.ndarray,
    *,
    reference: float = 50.0,
    level: float = DEFAULT_LEVEL,
    n_resamples: int = DEFAULT_PAIRED_RESAMPLES,
    rng: np.random.Generator | int | None = None,
) -> PairedChange:
    """The change in a pair bias score (CPS, PLL, AUL, AULA: ``100 k / n``) between two models on the same pairs.

    ``before[i]`` / ``after[i]``: whether pair i counts for the more stereotypical sentence under each model
    (a tie counts as not, as CrowS-Pairs' ``metric.py``). ``change = 100 (c - b) / n`` with ``b``, ``c`` the
    discordant pairs; the test is McNemar's exact test on them (:func:`mcnemar_exact`); the interval the
    paired percentile bootstrap over pairs (one index resample for both models, drawn as scipy's
    ``bootstrap(paired=True)``); ``bias_change`` is the change in ``|score - 50|`` (with ``reference`` the
    score's no-bias value: 50, or 0 in Zhou et al.'s convention, which subtracts 50)."""
    level = check_level(level)
    check_options(n_resamples=n_resamples, seed=rng)
    x = np.asarray(before).astype(bool)
    y = np.asarray(after).astype(bool)
    if x.ndim != 1 or x.size == 0 or x.shape != y.shape:
        raise ValueError("`before` and `after` must be non-empty 1-D arrays of equal length (one entry per pair, "
                         f"the same pairs in the same order), got shapes {x.shape} and {y.shape}")
    shift = reference - 50.0
    n = x.size
    b, c = int(np.sum(x & ~y)), int(np.sum(~x & y))
    test = mcnemar_exact(b, c)
    idx = bootstrap_indices(np.random.default_rng(rng), n, int(n_resamples))
    score_b = 100.0 * x[idx].mean(axis=1) + shift
    score_a = 100.0 * y[idx].mean(axis=1) + shift
    s_before, s_after = 100.0 * int(x.sum()) / n + shift, 100.0 * int(y.sum()) / n + shift
    method = (f"paired percentile bootstrap: {n_resamples} replicates resampling the {n} pairs with replacement, "
              "the same pairs for both models")
    reps = score_a - score_b
    bias_reps = bias_distance(score_a, reference) - bias_distance(score_b, reference)
    return PairedChange(
        before=s_before, after=s_after, change=s_after - s_before, interval=interval_of(reps, level, method),
        p_value=test.p_value, test=test.method, reference=reference,
        bias_change=float(bias_distance(s_after, reference) - bias_distance(s_before, reference)),
        bias_interval=interval_of(bias_reps, level, method), n=n, counts={"b": b, "c": c}, replicates=reps)
