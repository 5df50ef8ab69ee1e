"""Bootstrap confidence interval for the WEAT effect size.

Ethayarajh et al. (2019) and May et al. (2019) caution that a single effect
size over-claims; resampling the four word sets shows how much d depends on
which words were chosen. Each replicate draws X, Y, A and B independently with
replacement and recomputes d (percentile interval, Efron 1979).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .association import unit_rows
from .validation import check_options, check_vectors


@dataclass(frozen=True)
class BootstrapInterval:
    """Percentile interval ``[low, high]`` of d over ``n_resamples`` replicates
    (replicates with an undefined d are dropped and counted in ``n_undefined``)."""

    low: float
    high: float
    confidence_level: float
    n_resamples: int
    n_undefined: int
    replicates: np.ndarray


def _resampled_attribute_score(cos: np.ndarray, counts: np.ndarray, variant: str) -> np.ndarray:
    """Per-replicate mean (or max) of cos(w, a) over a resampled attribute set.

    ``cos``: (words, attributes); ``counts``: (replicates, attributes)
    counts of each item among the draws. Returns (replicates, words).
    """
    if variant == "mean":
        return counts @ cos.T / counts.sum(axis=1, keepdims=True)
    present = counts[:, None, :] > 0  # (replicates, 1, attributes)
    return np.where(present, cos[None, :, :], -np.inf).max(axis=2)


def resample_counts(indices: np.ndarray, m: int) -> np.ndarray:
    """(replicates, m) float counts of each item in each row of resampled ``indices`` (one bincount)."""
    r = len(indices)
    flat = (indices + m * np.arange(r)[:, None]).ravel()
    return np.bincount(flat, minlength=r * m).reshape(r, m).astype(np.float64)


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
    s = _resampled_attribute_score(cos_a, counts_a, variant) - _resampled_attribute_score(cos_b, counts_b, variant)
    sx = np.take_along_axis(s, ix, axis=1)
    sy = np.take_along_axis(s, n_x + iy, axis=1)
    pooled = np.concatenate([sx, sy], axis=1)
    std = pooled.std(axis=1, ddof=ddof) if pooled.shape[1] > ddof else np.zeros(len(pooled))
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (sx.mean(axis=1) - sy.mean(axis=1)) / std
    d[~(std > 0)] = np.nan
    return d


def percentile_interval(replicates: np.ndarray, confidence_level: float) -> tuple[float, float]:
    """``[q(tail), q(1 - tail)]`` of the defined replicates, ``tail = (1 - level) / 2`` (numpy's linear
    quantile, as ``scipy.stats.bootstrap(method="percentile")``); NaN when none is defined."""
    defined = replicates[np.isfinite(replicates)]
    if defined.size == 0:
        return float("nan"), float("nan")
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return float(low), float(high)


def effect_size_interval_from_cosines(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, *, variant: str = "mean", ddof: int = 1,
    n_resamples: int = 2_000, confidence_level: float = 0.95, rng: np.random.Generator | int | None = None,
    batch: int = 256,
) -> BootstrapInterval:
    """Percentile bootstrap interval for d from a run's cosine matrices (nothing encoded again).

    Each replicate draws ``|X|`` of X's rows, ``|Y|`` of Y's rows, ``|A|`` of A's columns and ``|B|`` of B's
    columns with replacement, independently (words resampled within each set), and recomputes d
    (:func:`bootstrap_replicates`); the interval is the replicates' percentiles (Efron 1979).
    """
    check_options(variant=variant, ddof=ddof, n_resamples=n_resamples, confidence_level=confidence_level, seed=rng)
    rng = np.random.default_rng(rng)
    cos_a, cos_b = np.asarray(cos_a, dtype=np.float64), np.asarray(cos_b, dtype=np.float64)
    n_a, n_b = cos_a.shape[1], cos_b.shape[1]
    nx, ny = n_x, cos_a.shape[0] - n_x
    out = []
    for start in range(0, n_resamples, batch):
        r = min(batch, n_resamples - start)
        counts_a = resample_counts(rng.integers(0, n_a, size=(r, n_a)), n_a)
        counts_b = resample_counts(rng.integers(0, n_b, size=(r, n_b)), n_b)
        ix = rng.integers(0, nx, size=(r, nx))
        iy = rng.integers(0, ny, size=(r, ny))
        out.append(bootstrap_replicates(cos_a, cos_b, nx, counts_a, counts_b, ix, iy, variant=variant, ddof=ddof))
    replicates = np.concatenate(out)
    low, high = percentile_interval(replicates, confidence_level)
    return BootstrapInterval(
        low=low,
        high=high,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        n_undefined=int(np.count_nonzero(~np.isfinite(replicates))),
        replicates=replicates,
    )


def effect_size_interval(
    X: np.ndarray,
    Y: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    *,
    variant: str = "mean",
    ddof: int = 1,
    n_resamples: int = 2_000,
    confidence_level: float = 0.95,
    rng: np.random.Generator | int | None = None,
    batch: int = 256,
) -> BootstrapInterval:
    """Percentile bootstrap interval for the WEAT effect size d (words resampled within each set).

    Vectorised: per replicate, attribute resampling is a multinomial count
    vector, so ``mean_a cos(w, a)`` is one matrix product for all words
    (:func:`effect_size_interval_from_cosines`).
    """
    check_options(variant=variant, ddof=ddof, n_resamples=n_resamples, confidence_level=confidence_level, seed=rng)
    X, Y, A, B = (unit_rows(check_vectors(m, n), name=n) for m, n in ((X, "X"), (Y, "Y"), (A, "A"), (B, "B")))
    W = np.vstack([X, Y])
    return effect_size_interval_from_cosines(
        W @ A.T, W @ B.T, len(X), variant=variant, ddof=ddof, n_resamples=n_resamples,
        confidence_level=confidence_level, rng=rng, batch=batch,
    )
