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
    multinomial counts. Returns (replicates, words).
    """
    if variant == "mean":
        return counts @ cos.T / counts.sum(axis=1, keepdims=True)
    present = counts[:, None, :] > 0  # (replicates, 1, attributes)
    return np.where(present, cos[None, :, :], -np.inf).max(axis=2)


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
    """Percentile bootstrap interval for the WEAT effect size d.

    Vectorised: per replicate, attribute resampling is a multinomial count
    vector, so ``mean_a cos(w, a)`` is one matrix product for all words.
    """
    check_options(variant=variant, ddof=ddof, n_resamples=n_resamples, confidence_level=confidence_level, seed=rng)
    rng = np.random.default_rng(rng)
    X, Y, A, B = (unit_rows(check_vectors(m, n), name=n) for m, n in ((X, "X"), (Y, "Y"), (A, "A"), (B, "B")))
    W = np.vstack([X, Y])
    cos_a, cos_b = W @ A.T, W @ B.T
    nx, ny = len(X), len(Y)
    out = []
    for start in range(0, n_resamples, batch):
        r = min(batch, n_resamples - start)
        counts_a = rng.multinomial(len(A), np.full(len(A), 1 / len(A)), size=r).astype(np.float64)
        counts_b = rng.multinomial(len(B), np.full(len(B), 1 / len(B)), size=r).astype(np.float64)
        s = (_resampled_attribute_score(cos_a, counts_a, variant)
             - _resampled_attribute_score(cos_b, counts_b, variant))  # (r, words)
        ix = rng.integers(0, nx, size=(r, nx))
        iy = nx + rng.integers(0, ny, size=(r, ny))
        sx = np.take_along_axis(s, ix, axis=1)
        sy = np.take_along_axis(s, iy, axis=1)
        pooled = np.concatenate([sx, sy], axis=1)
        std = pooled.std(axis=1, ddof=ddof) if pooled.shape[1] > ddof else np.zeros(r)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (sx.mean(axis=1) - sy.mean(axis=1)) / std
        d[~(std > 0)] = np.nan
        out.append(d)
    replicates = np.concatenate(out)
    defined = replicates[np.isfinite(replicates)]
    tail = (1 - confidence_level) / 2
    if defined.size == 0:
        low = high = float("nan")
    else:
        low, high = (float(v) for v in np.quantile(defined, [tail, 1 - tail]))
    return BootstrapInterval(
        low=low,
        high=high,
        confidence_level=confidence_level,
        n_resamples=n_resamples,
        n_undefined=int(replicates.size - defined.size),
        replicates=replicates,
    )
