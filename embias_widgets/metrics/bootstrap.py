"""Bootstrap intervals for the WEAT effect size d and the association difference beside it.

Ethayarajh et al. (2019) and May et al. (2019) caution that a single effect size over-claims; resampling the
word sets shows how much d depends on which words were chosen. Two statistics share every resample:

- ``d = (mean_X s - mean_Y s) / std_{X u Y} s`` (Caliskan et al. 2017), and
- the **association difference** ``mean_X s - mean_Y s``, d's numerator, in cosine units,

with ``s(w) = mean_a cos(w, a) - mean_b cos(w, b)`` (``max`` variant: the maxima).

**What is resampled** (``resample``), and so what the interval is for (its estimand):

- ``"all"`` (default): a replicate draws ``|X|`` of X's items, ``|Y|`` of Y's, ``|A|`` of A's and ``|B|`` of
  B's with replacement, independently. The interval is for the statistic over the *word populations the four
  lists stand for* (other words of the same kinds).
- ``"targets"``: A and B kept as they are, only X and Y drawn. The interval is for the statistic *with these
  attribute words*, over the target populations: what the permutation test conditions on.

**The interval** (``method``):

- ``"BCa"`` (default), bias-corrected and accelerated (Efron 1987; Efron & Tibshirani 1993, 14.3 and eq.
  15.36 for several samples), as ``scipy.stats.bootstrap(method="BCa")`` computes it from the same replicates:
  ``z0 = Phi^-1((#{t* < t} + #{t* <= t}) / 2B)`` over the B defined replicates t* (a replicate within
  ``100 eps |t|`` of t counts as a tie, as the permutation test counts them); the acceleration from
  the jackknife of each resampled set j (each of its n_j items left out in turn, the other sets whole),
  ``U_ji = (n_j - 1)(mean_i t_(j,i) - t_(j,i))``, ``a = sum_j sum_i U_ji^3 / n_j^3 / (6 (sum_j sum_i
  U_ji^2 / n_j^2)^(3/2))``; then ``alpha_1,2 = Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` at ``z = Phi^-1(tail)``
  and ``Phi^-1(1 - tail)``, ``tail = (1 - level) / 2``, and the interval is the replicates' quantiles at
  alpha_1 and alpha_2 (numpy's linear quantile, as scipy's).
- ``"percentile"`` (Efron 1979): the replicates' quantiles at ``tail`` and ``1 - tail``.

A set of one item never varies under resampling and has no jackknife: it adds nothing to the acceleration.
When BCa cannot be computed (an undefined jackknife d, every replicate on one side of the estimate) the
percentile interval stands in and ``fallback`` says why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from .association import unit_rows
from .robustness import _attribute_dropped, _drop_each, associations_from_cosines, effect_sizes_by_row
from .score_intervals import resample_counts
from .validation import check_options, check_vectors

__all__ = [
    "INTERVAL_METHODS",
    "RESAMPLE_UNITS",
    "AssociationIntervals",
    "BootstrapInterval",
    "association_intervals",
    "association_intervals_from_cosines",
    "bca_interval",
    "bootstrap_replicates",
    "check_interval_options",
    "effect_size_interval",
    "effect_size_interval_from_cosines",
    "jackknife_statistics",
    "percentile_interval",
    "resample_counts",
]

#: How the interval is read from the replicates: ``"BCa"`` (default) or ``"percentile"``.
INTERVAL_METHODS = ("BCa", "percentile")
#: What a replicate draws again: ``"all"`` four sets (default) or only the ``"targets"``.
RESAMPLE_UNITS = ("all", "targets")


@dataclass(frozen=True)
class BootstrapInterval:
    """Interval ``[low, high]`` of one statistic over ``n_resamples`` replicates (replicates with an undefined
    d are dropped and counted in ``n_undefined``).

    ``method``: how ``low`` and ``high`` were read (``"BCa"`` or ``"percentile"``); ``fallback``: why the
    percentile interval stands in when BCa was asked and could not be computed (None otherwise);
    ``bias_correction`` (z0) and ``acceleration`` (a): BCa's constants (None for the percentile interval);
    ``resample``: ``"all"`` or ``"targets"``; ``statistic``: ``"effect_size"`` or ``"association_difference"``.
    """

    low: float
    high: float
    confidence_level: float
    n_resamples: int
    n_undefined: int
    replicates: np.ndarray = field(repr=False)
    method: str = "percentile"
    resample: str = "all"
    bias_correction: float | None = None
    acceleration: float | None = None
    fallback: str | None = None
    statistic: str = "effect_size"


@dataclass(frozen=True)
class AssociationIntervals:
    """The intervals of d (``effect_size``) and of ``mean_X s - mean_Y s`` (``association_difference``), from
    the same resamples."""

    effect_size: BootstrapInterval
    association_difference: BootstrapInterval


def check_interval_options(method: object, resample: object) -> None:
    """``ValueError`` naming the option unless ``method`` is in :data:`INTERVAL_METHODS` and ``resample`` in
    :data:`RESAMPLE_UNITS`."""
    if method not in INTERVAL_METHODS:
        raise ValueError(f"the interval's `method` (`interval_method` of a study) must be 'BCa' or 'percentile', "
                         f"got {method!r}")
    if resample not in RESAMPLE_UNITS:
        raise ValueError(f"`resample` must be 'all' (the four sets) or 'targets' (X and Y only; A and B kept), "
                         f"got {resample!r}")


def _resampled_attribute_score(cos: np.ndarray, counts: np.ndarray, variant: str) -> np.ndarray:
    """Per-replicate mean (or max) of cos(w, a) over a resampled attribute set.

    ``cos``: (words, attributes); ``counts``: (replicates, attributes)
    counts of each item among the draws. Returns (replicates, words).
    """
    if variant == "mean":
        return counts @ cos.T / counts.sum(axis=1, keepdims=True)
    present = counts[:, None, :] > 0  # (replicates, 1, attributes)
    return np.where(present, cos[None, :, :], -np.inf).max(axis=2)


def _statistics(sx: np.ndarray, sy: np.ndarray, ddof: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row: d (NaN where the pooled spread is 0) and the difference ``mean sx - mean sy``."""
    difference = sx.mean(axis=1) - sy.mean(axis=1)
    pooled = np.concatenate([sx, sy], axis=1)
    std = pooled.std(axis=1, ddof=ddof) if pooled.shape[1] > ddof else np.zeros(len(pooled))
    with np.errstate(divide="ignore", invalid="ignore"):
        d = difference / std
    d[~(std > 0)] = np.nan
    return d, difference


def _replicate_statistics(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, counts_a: np.ndarray | None, counts_b: np.ndarray | None,
    ix: np.ndarray, iy: np.ndarray, variant: str, ddof: int,
) -> tuple[np.ndarray, np.ndarray]:
    """d and the difference of each replicate; ``counts_a is None``: the attribute sets as they are."""
    if counts_a is None or counts_b is None:
        s = associations_from_cosines(cos_a, cos_b, variant)
        return _statistics(s[ix], s[n_x + iy], ddof)
    s = _resampled_attribute_score(cos_a, counts_a, variant) - _resampled_attribute_score(cos_b, counts_b, variant)
    return _statistics(np.take_along_axis(s, ix, axis=1), np.take_along_axis(s, n_x + iy, axis=1), ddof)


def bootstrap_replicates(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, counts_a: np.ndarray, counts_b: np.ndarray,
    ix: np.ndarray, iy: np.ndarray, *, variant: str = "mean", ddof: int = 1,
) -> np.ndarray:
    """d of each bootstrap replicate, given its draws (NaN where the replicate's d is undefined).

    ``cos_a``, ``cos_b``: (targets, attributes) cosines, X's ``n_x`` rows first; ``counts_a``, ``counts_b``:
    (replicates, attributes) multinomial counts of the resampled attribute items; ``ix``, ``iy``:
    (replicates, |X|) and (replicates, |Y|) row indices of the resampled targets (``iy`` counts from 0 at
    Y's first row). ``s*(w) = sum_a c_a cos(w, a) / sum_a c_a - (same for B)`` (``max``: over the drawn
    items), ``d* = (mean_{X*} s* - mean_{Y*} s*) / std_{X* u Y*} s*``.
    """
    return _replicate_statistics(cos_a, cos_b, n_x, counts_a, counts_b, ix, iy, variant, ddof)[0]


def jackknife_statistics(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, *, variant: str = "mean", ddof: int = 1,
    resample: str = "all",
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per resampled set (``"targ1"``, ``"targ2"``, and with ``resample="all"`` ``"attr1"``, ``"attr2"``):
    ``(d, difference)`` with each of its items left out in turn, the other sets whole (the jackknife of BCa's
    acceleration). A target item drops one entry of s; an attribute item updates every s (the O(1) update of
    :func:`~embias_widgets.metrics.robustness.leave_one_out`). NaN where a set would be left empty."""
    s = associations_from_cosines(cos_a, cos_b, variant)
    n = len(s)
    reduce = np.max if variant == "max" else np.mean
    rows = {"targ1": (_drop_each(s, 0, n_x), n_x - 1), "targ2": (_drop_each(s, n_x, n), n_x)}
    if resample == "all":
        rows["attr1"] = (_attribute_dropped(cos_a, variant) - reduce(cos_b, axis=1)[None, :], n_x)
        rows["attr2"] = (reduce(cos_a, axis=1)[None, :] - _attribute_dropped(cos_b, variant), n_x)
    out = {}
    for key, (values, k) in rows.items():
        d = effect_sizes_by_row(values, k, ddof)
        if 0 < k < values.shape[1]:
            difference = values[:, :k].mean(axis=1) - values[:, k:].mean(axis=1)
        else:
            difference = np.full(len(values), np.nan)
        bad = ~np.isfinite(values).all(axis=1)
        d[bad], difference[bad] = np.nan, np.nan
        out[key] = (d, difference)
    return out


def _ndtr(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _ndtri(p: float) -> float:
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return NormalDist().inv_cdf(p)


def percentile_interval(replicates: np.ndarray, confidence_level: float) -> tuple[float, float]:
    """``[q(tail), q(1 - tail)]`` of the defined replicates, ``tail = (1 - level) / 2`` (numpy's linear
    quantile, as ``scipy.stats.bootstrap(method="percentile")``); NaN when none is defined."""
    defined = replicates[np.isfinite(replicates)]
    if defined.size == 0:
        return float("nan"), float("nan")
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return float(low), float(high)


def bca_interval(
    replicates: np.ndarray, estimate: float, jackknife: Sequence[np.ndarray], confidence_level: float,
) -> tuple[float, float, float, float]:
    """The BCa interval (Efron 1987) of ``estimate`` from its bootstrap ``replicates`` (NaN ones left out) and
    one array of jackknife values per resampled sample (the statistic with each of that sample's items left
    out in turn): ``(low, high, z0, a)``, the formulas in the module docstring, as ``scipy.stats.bootstrap``'s
    ``_bca_interval``. Samples with fewer than two values add nothing to the acceleration. Raises
    ``ValueError`` (with the reason) when BCa is undefined: no defined replicate, an undefined jackknife value,
    or every replicate on one side of the estimate."""
    defined = np.asarray(replicates, dtype=np.float64)
    defined = defined[np.isfinite(defined)]
    if defined.size == 0:
        raise ValueError("no replicate is defined")
    tie = 100 * np.finfo(np.float64).eps * abs(estimate)  # a replicate equal to it but for rounding is a tie
    share = (np.count_nonzero(defined < estimate - tie) + np.count_nonzero(defined <= estimate + tie)) / (
        2 * defined.size)
    z0 = _ndtri(float(share))
    if not math.isfinite(z0):
        raise ValueError("every replicate lies on one side of the estimate, so the bias correction is infinite")
    num = den = 0.0
    for values in jackknife:
        values = np.asarray(values, dtype=np.float64)
        if values.size < 2:
            continue
        if not np.isfinite(values).all():
            raise ValueError("d is undefined with one of the items left out, so the acceleration is undefined")
        n = values.size
        u = (n - 1) * (values.mean() - values)
        num += float(np.sum(u**3)) / n**3
        den += float(np.sum(u**2)) / n**2
    a = num / (6.0 * den**1.5) if den > 0 else 0.0
    tail = (1 - confidence_level) / 2
    levels = []
    for z in (_ndtri(tail), _ndtri(1 - tail)):
        shifted = z0 + z
        levels.append(_ndtr(z0 + shifted / (1 - a * shifted)))
    low, high = np.quantile(defined, levels)
    return float(low), float(high), z0, a


def _interval(replicates: np.ndarray, estimate: float, jackknife: list[np.ndarray], confidence_level: float,
              method: str, resample: str, statistic: str) -> BootstrapInterval:
    undefined = int(np.count_nonzero(~np.isfinite(replicates)))
    common = dict(confidence_level=confidence_level, n_resamples=len(replicates), n_undefined=undefined,
                  replicates=replicates, resample=resample, statistic=statistic)
    fallback = None
    if method == "BCa":
        try:
            low, high, z0, a = bca_interval(replicates, estimate, jackknife, confidence_level)
            return BootstrapInterval(low, high, method="BCa", bias_correction=z0, acceleration=a, **common)
        except ValueError as err:
            fallback = f"BCa undefined ({err}): percentile interval instead"
    low, high = percentile_interval(replicates, confidence_level)
    return BootstrapInterval(low, high, method="percentile", fallback=fallback, **common)


def association_intervals_from_cosines(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, *, variant: str = "mean", ddof: int = 1,
    n_resamples: int = 2_000, confidence_level: float = 0.95, method: str = "BCa", resample: str = "all",
    rng: np.random.Generator | int | None = None, batch: int = 256,
) -> AssociationIntervals:
    """Bootstrap intervals of d and of the association difference from a run's cosine matrices (nothing
    encoded again); ``method`` and ``resample`` as in the module docstring.

    Per batch of replicates, with ``resample="all"``: A's and B's draws as multinomial counts (so every
    word's resampled ``mean_a cos(w, a)`` is one matrix product), then X's and Y's row indices, drawn in that
    order from ``rng``; with ``"targets"`` only the row indices. The jackknife for BCa
    (:func:`jackknife_statistics`) costs one leave-one-out pass.
    """
    check_options(variant=variant, ddof=ddof, n_resamples=n_resamples, confidence_level=confidence_level, seed=rng)
    check_interval_options(method, resample)
    rng = np.random.default_rng(rng)
    cos_a, cos_b = np.asarray(cos_a, dtype=np.float64), np.asarray(cos_b, dtype=np.float64)
    n_a, n_b = cos_a.shape[1], cos_b.shape[1]
    nx, ny = n_x, cos_a.shape[0] - n_x
    d_out, diff_out = [], []
    for start in range(0, n_resamples, batch):
        r = min(batch, n_resamples - start)
        counts_a = counts_b = None
        if resample == "all":
            counts_a = resample_counts(rng.integers(0, n_a, size=(r, n_a)), n_a)
            counts_b = resample_counts(rng.integers(0, n_b, size=(r, n_b)), n_b)
        ix = rng.integers(0, nx, size=(r, nx))
        iy = rng.integers(0, ny, size=(r, ny))
        d, diff = _replicate_statistics(cos_a, cos_b, nx, counts_a, counts_b, ix, iy, variant, ddof)
        d_out.append(d)
        diff_out.append(diff)
    s = associations_from_cosines(cos_a, cos_b, variant)
    d_hat, diff_hat = (float(v[0]) for v in _statistics(s[None, :nx], s[None, nx:], ddof))
    jack = jackknife_statistics(cos_a, cos_b, nx, variant=variant, ddof=ddof, resample=resample) \
        if method == "BCa" else {}
    return AssociationIntervals(
        effect_size=_interval(np.concatenate(d_out), d_hat, [v[0] for v in jack.values()], confidence_level,
                              method, resample, "effect_size"),
        association_difference=_interval(np.concatenate(diff_out), diff_hat, [v[1] for v in jack.values()],
                                         confidence_level, method, resample, "association_difference"),
    )


def effect_size_interval_from_cosines(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, *, variant: str = "mean", ddof: int = 1,
    n_resamples: int = 2_000, confidence_level: float = 0.95, method: str = "BCa", resample: str = "all",
    rng: np.random.Generator | int | None = None, batch: int = 256,
) -> BootstrapInterval:
    """The bootstrap interval of d from a run's cosine matrices
    (:func:`association_intervals_from_cosines`'s ``effect_size``)."""
    return association_intervals_from_cosines(
        cos_a, cos_b, n_x, variant=variant, ddof=ddof, n_resamples=n_resamples, confidence_level=confidence_level,
        method=method, resample=resample, rng=rng, batch=batch).effect_size


def _cosines(X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    X, Y, A, B = (unit_rows(check_vectors(m, n), name=n) for m, n in ((X, "X"), (Y, "Y"), (A, "A"), (B, "B")))
    W = np.vstack([X, Y])
    return W @ A.T, W @ B.T, len(X)


def association_intervals(
    X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *, variant: str = "mean", ddof: int = 1,
    n_resamples: int = 2_000, confidence_level: float = 0.95, method: str = "BCa", resample: str = "all",
    rng: np.random.Generator | int | None = None, batch: int = 256,
) -> AssociationIntervals:
    """Bootstrap intervals of the WEAT effect size d and of ``mean_X s - mean_Y s`` from the four sets'
    vectors (rows); see :func:`association_intervals_from_cosines`."""
    check_options(variant=variant, ddof=ddof, n_resamples=n_resamples, confidence_level=confidence_level, seed=rng)
    check_interval_options(method, resample)
    return association_intervals_from_cosines(
        *_cosines(X, Y, A, B), variant=variant, ddof=ddof, n_resamples=n_resamples,
        confidence_level=confidence_level, method=method, resample=resample, rng=rng, batch=batch)


def effect_size_interval(
    X: np.ndarray, Y: np.ndarray, A: np.ndarray, B: np.ndarray, *, variant: str = "mean", ddof: int = 1,
    n_resamples: int = 2_000, confidence_level: float = 0.95, method: str = "BCa", resample: str = "all",
    rng: np.random.Generator | int | None = None, batch: int = 256,
) -> BootstrapInterval:
    """Bootstrap interval for the WEAT effect size d (BCa by default; words resampled within each set, all
    four sets by default): :func:`association_intervals`'s ``effect_size``.

    Vectorised: per replicate, attribute resampling is a multinomial count vector, so ``mean_a cos(w, a)`` is
    one matrix product for all words.
    """
    return association_intervals(X, Y, A, B, variant=variant, ddof=ddof, n_resamples=n_resamples,
                                 confidence_level=confidence_level, method=method, resample=resample, rng=rng,
                                 batch=batch).effect_size
