"""Permutation tests over equal-size-preserving splits of a pooled sample.

The WEAT/SEAT test statistic depends on a split (Xi, Yi) of X ∪ Y only through
``sum_{x in Xi} s(x)``, because the total over X ∪ Y is constant (May et al.
2019, appendix A). So a null distribution is a set of subset sums of the
per-word associations, which we compute as a matrix product of split
indicators with the association vector, in memory-bounded batches.

- exact: every split is enumerated when ``C(n, k) <= n_samples``; the observed
  split is one of them and the inequality is non-strict (May et al. 2019).
- sampled: ``n_samples - 1`` uniform random splits, plus one "hallucinated"
  success (the observed split), so ``p = (1 + #{S_i >= S}) / n_samples``.
- parametric: Caliskan et al. (2017)'s released code fits a normal
  distribution (mean, ``ddof=1`` standard deviation) to the null and takes its
  tail at the observed statistic.

Ties are compared with a relative tolerance of ``100 * eps`` exactly as
``scipy.stats.permutation_test`` does, so that two splits with the same sum in
exact arithmetic are not told apart by floating-point rounding.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .samplers import DEFAULT_SAMPLER, first_block_samples, sampling_block_rows, split_sums
from .validation import check_options

__all__ = [
    "MAX_EXACT_SPLITS",
    "PermutationTestResult",
    "first_block_samples",
    "permutation_test",
    "sampling_block_rows",
    "split_statistic",
]

#: Float64 cells per batch of split indicators (8 MB per batch).
DEFAULT_BATCH_CELLS = 1 << 20


@dataclass(frozen=True)
class PermutationTestResult:
    """Outcome of a split permutation test.

    Attributes
    ----------
    statistic
        Observed ``S = sum_{x in X} s(x) - sum_{y in Y} s(y)``.
    pvalue
        p-value under ``alternative``.
    null_distribution
        ``S_i`` for every enumerated or sampled split (the observed split is
        included when exact; excluded - it is the +1 - when sampled).
    exact
        Whether every split was enumerated.
    n_permutations
        Number of splits the p-value is over (``C(n, k)`` when exact, else
        ``n_samples``, the hallucinated split included).
    method
        ``"exact"``, ``"sampled"`` or ``"parametric"``.
    alternative
        ``"greater"``, ``"less"`` or ``"two-sided"``.
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    exact: bool
    n_permutations: int
    method: str
    alternative: str


def split_statistic(values: np.ndarray, n_x: int) -> float:
    """``S = sum(values[:n_x]) - sum(values[n_x:])`` (Caliskan et al. 2017)."""
    values = np.asarray(values, dtype=np.float64)
    return float(values[:n_x].sum() - values[n_x:].sum())


#: Most splits ever enumerated exactly (a few seconds): with more, ``method="auto"`` samples
#: ``n_samples`` splits even when ``n_samples`` is larger (C(49, 24) = 6.3e13 would never end).
MAX_EXACT_SPLITS = 5_000_000

#: Up to this many items, exact splits are enumerated as bit patterns (2**n codes).
BIT_ENUMERATION_MAX_N = 22


def _exact_indicator_batches(n: int, k: int, batch_rows: int) -> Iterator[np.ndarray]:
    """Yield 0/1 indicator rows for every k-subset of range(n), in batches.

    Small n: the k-subsets are the n-bit codes with k bits set, found with
    vectorised popcounts; otherwise ``itertools.combinations``. Either way
    every split appears exactly once (the order does not matter to a p-value).
    """
    if n <= BIT_ENUMERATION_MAX_N:
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, 1 << n, 1 << 16):
            codes = np.arange(start, min(start + (1 << 16), 1 << n), dtype=np.int64)
            codes = codes[np.bitwise_count(codes) == k]
            ind = ((codes[:, None] >> bits) & 1).astype(np.float64)
            for lo in range(0, len(ind), batch_rows):
                yield ind[lo : lo + batch_rows]
        return
    combos = itertools.combinations(range(n), k)
    while True:
        chunk = list(itertools.islice(combos, batch_rows))
        if not chunk:
            return
        idx = np.asarray(chunk, dtype=np.intp)
        ind = np.zeros((len(chunk), n), dtype=np.float64)
        np.put_along_axis(ind, idx, 1.0, axis=1)
        yield ind


def _tail_counts(null: np.ndarray, observed: float, alternative: str) -> tuple[int, int]:
    """Counts of null values >= and <= observed, with scipy's tie tolerance."""
    gamma = abs(observed) * np.finfo(np.float64).eps * 100
    greater = int(np.count_nonzero(null >= observed - gamma))
    less = int(np.count_nonzero(null <= observed + gamma))
    return greater, less


def _combine(p_greater: float, p_less: float, alternative: str) -> float:
    if alternative == "greater":
        return p_greater
    if alternative == "less":
        return p_less
    return min(1.0, 2.0 * min(p_greater, p_less))


def permutation_test(
    values: np.ndarray,
    n_x: int,
    *,
    n_samples: int = 100_000,
    alternative: str = "greater",
    method: str = "auto",
    rng: np.random.Generator | int | None = None,
    batch_cells: int = DEFAULT_BATCH_CELLS,
    sampler: str = DEFAULT_SAMPLER,
) -> PermutationTestResult:
    """Permutation test of ``S = sum(values[:n_x]) - sum(values[n_x:])``.

    Parameters
    ----------
    values
        Per-item values of the pooled sample, the first ``n_x`` from X.
    n_x
        Size of X; ``len(values) - n_x`` is the size of Y (may differ).
    n_samples
        Enumerate every split when ``C(n, n_x) <= n_samples``, else sample
        ``n_samples - 1`` random splits (May et al. 2019, appendix A). Exact
        enumeration is capped at :data:`MAX_EXACT_SPLITS` splits; beyond it
        ``n_samples`` splits are sampled.
    alternative
        ``"greater"``: ``P[S_i >= S]`` (the papers' one-sided test);
        ``"less"``: ``P[S_i <= S]``; ``"two-sided"``: twice the smaller tail,
        capped at 1 (scipy's convention).
    method
        ``"auto"`` (exact or sampled by the rule above), ``"exact"`` (always
        enumerate), ``"sampled"`` (always sample) or ``"parametric"`` (normal
        fit to the null, Caliskan et al. 2017).
    rng
        A ``numpy.random.Generator`` or a seed, for reproducible sampling.
    batch_cells
        Bound on the cells of exact split indicators held at once (at least
        64 rows; sampled splits come in fixed blocks of
        ``SAMPLING_BLOCK_CELLS``). It changes no p-value: the null
        distribution can differ only in floating-point summation order
        (about 1e-15), below the tie tolerance.
    sampler
        How sampled splits are drawn, all exactly uniform
        (:mod:`embias_widgets.metrics.samplers`): ``"auto"`` (the default: the
        fastest for the sizes, :func:`~embias_widgets.metrics.samplers.choose_sampler`),
        ``"bits"`` (n random bits and ``|m - k|`` random removals, or up to 64
        items random words of weight k), ``"indices"`` (``min(k, n - k)``
        random indices, drawn again on a repeat) or ``"keys"`` (the k smallest
        of n random 16-bit keys: the library's earlier default, kept to
        reproduce the p-values of older seeds). Other samplers make other
        draws, so p-values within Monte Carlo error, for the same seed.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"`values` must be one-dimensional, got shape {values.shape}")
    n = values.size
    if not 0 < n_x < n:
        raise ValueError(f"`n_x` must be between 1 and {n - 1} (both groups non-empty), got {n_x}")
    check_options(n_samples=n_samples, alternative=alternative, method=method, sampler=sampler, seed=rng)
    rng = np.random.default_rng(rng)

    total = values.sum()
    n_splits = math.comb(n, n_x)
    if method == "exact" and n_splits > MAX_EXACT_SPLITS:
        raise ValueError(
            f"exact enumeration of C({n}, {n_x}) = {n_splits:.3g} splits would not finish (at most "
            f"{MAX_EXACT_SPLITS:,}): use method='auto' or 'sampled'"
        )
    exact = method == "exact" or (method in ("auto", "parametric") and n_splits <= min(n_samples, MAX_EXACT_SPLITS))
    batch_rows = max(64, batch_cells // n)
    if exact:
        sums = np.concatenate([ind @ values for ind in _exact_indicator_batches(n, n_x, batch_rows)])
    else:
        sums = split_sums(values, n_x, n_samples - 1, rng, sampler)
    # S_i = sum_Xi - (total - sum_Xi), computed identically for the observed split.
    null = 2.0 * sums - total
    observed = 2.0 * values[:n_x].sum() - total

    if method == "parametric":
        from scipy import stats  # here, not at import: scipy.stats costs about 1 s to import

        mean, std = null.mean(), null.std(ddof=1)
        p_greater = float(stats.norm.sf(observed, loc=mean, scale=std)) if std > 0 else float(observed <= mean)
        p_less = float(stats.norm.cdf(observed, loc=mean, scale=std)) if std > 0 else float(observed >= mean)
        return PermutationTestResult(
            statistic=float(observed),
            pvalue=_combine(p_greater, p_less, alternative),
            null_distribution=null,
            exact=exact,
            n_permutations=int(null.size),
            method="parametric",
            alternative=alternative,
        )

    greater, less = _tail_counts(null, observed, alternative)
    if exact:
        denominator = null.size
    else:
        greater, less, denominator = greater + 1, less + 1, null.size + 1
    return PermutationTestResult(
        statistic=float(observed),
        pvalue=_combine(greater / denominator, less / denominator, alternative),
        null_distribution=null,
        exact=exact,
        n_permutations=int(denominator),
        method="exact" if exact else "sampled",
        alternative=alternative,
    )
