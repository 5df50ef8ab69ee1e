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
from scipy import stats

from .validation import SAMPLERS

ALTERNATIVES = ("greater", "less", "two-sided")
METHODS = ("auto", "exact", "sampled", "parametric")
#: Float64 cells per batch of split indicators (8 MB per batch).
DEFAULT_BATCH_CELLS = 1 << 20
#: Random-key cells per independently seeded block of sampled splits.
SAMPLING_BLOCK_CELLS = 1 << 20


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


def _uniform_keys(rng: np.random.Generator, rows: int, n: int, dtype: type) -> np.ndarray:
    """``rng.integers(0, max, size=(rows, n), dtype=dtype, endpoint=True)``, bit for bit, faster.

    For the default bit generator (PCG64) numpy draws full-range 16- and
    32-bit integers as the little-endian halves of its 32-bit outputs, which
    are the halves of its 64-bit outputs; reading the 64-bit outputs at once
    (``random_raw``) and viewing them gives the same keys about 3x faster.
    A 32-bit half left over is handed back to the generator's buffer exactly
    as numpy leaves it, so later draws are unchanged too
    (``test_fast_keys_equal_numpy_integers`` checks both). Other bit
    generators, or a generator holding a buffered half, take numpy's path.
    """
    bitgen = rng.bit_generator
    if type(bitgen) is not np.random.PCG64 or bitgen.state["has_uint32"]:
        return rng.integers(0, np.iinfo(dtype).max, size=(rows, n), dtype=dtype, endpoint=True)
    count = rows * n
    n32 = -(-count * np.dtype(dtype).itemsize // 4)
    raw = bitgen.random_raw(-(-n32 // 2))
    if n32 % 2:  # numpy keeps the unused upper half of the last 64-bit output for the next draw
        state = bitgen.state
        state["has_uint32"], state["uinteger"] = 1, int(raw[-1] >> np.uint64(32))
        bitgen.state = state
    return raw.view(dtype)[:count].reshape(rows, n)


def _random_subset_indicators(
    rng: np.random.Generator, rows: int, n: int, k: int, out: np.ndarray | None = None
) -> np.ndarray:
    """``rows`` x ``n`` float 0/1 indicators of uniform random k-subsets of range(n).

    A row's subset is the k smallest of n i.i.d. uniform integer keys. When
    the k-th and (k+1)-th smallest keys tie, the row is drawn again: ties are
    a permutation-invariant event, so the accepted subsets stay exactly
    uniform. 16-bit keys (32-bit for large n) keep the draw and the partition
    cheap; ``np.partition`` finds the (k+1)-th smallest key ``v`` in O(n) per
    row, and the row's subset is ``keys < v``: exactly k items unless the
    k-th smallest key equals ``v`` (a tie). Only tied rows are drawn and
    partitioned again, in row order, so every draw is the one the earlier
    whole-block re-partition made, bit for bit. Float indicators (not bool)
    let one BLAS pass count the items and another sum the values; ``out``
    (``rows`` x ``n`` float64, reused across blocks) saves page faults.
    """
    dtype = np.uint16 if n <= 2048 else np.uint32
    keys = _uniform_keys(rng, rows, n, dtype)
    chosen = np.empty((rows, n), dtype=np.float64) if out is None else out
    if k >= n:
        chosen.fill(1.0)
        return chosen
    # One pivot only (several pivots make np.partition many times slower).
    kplus1 = np.partition(keys, k, axis=1)[:, k]
    np.less(keys, kplus1[:, None], out=chosen)
    counts = chosen @ np.ones(n)  # exact: integers below 2**53
    tied = np.flatnonzero(counts != k)
    while tied.size:
        redrawn = rng.integers(0, np.iinfo(dtype).max, size=(tied.size, n), dtype=dtype, endpoint=True)
        kplus1 = np.partition(redrawn, k, axis=1)[:, k]
        rows_chosen = redrawn < kplus1[:, None]
        chosen[tied] = rows_chosen
        tied = tied[np.count_nonzero(rows_chosen, axis=1) != k]
    return chosen


def sampling_block_rows(n: int) -> int:
    """Rows (sampled splits) per independently seeded block for ``n`` pooled items."""
    return max(64, SAMPLING_BLOCK_CELLS // n)


def first_block_samples(n: int, n_x: int, n_samples: int, method: str = "auto") -> int | None:
    """``n_samples`` for a quick run whose sampled splits are the first block of the full run's.

    Block b of a sampled run draws from the b-th child of the seed, so a run
    with ``sampling_block_rows(n) + 1`` samples and the same seed draws exactly
    the full run's first block: a provisional p at a small fraction of the
    cost (Monte Carlo error about ``sqrt(p (1 - p) / block)``), which the full
    run then refines. ``None`` when there is nothing to gain: the full run is
    exact or parametric, or one block already.
    """
    quick = sampling_block_rows(n) + 1
    sampled = method == "sampled" or (method == "auto" and math.comb(n, n_x) > n_samples)
    return quick if sampled and n_samples > quick else None


def _sampled_split_sums(values: np.ndarray, k: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Subset sums of ``n_draws`` uniform random k-subsets, in blocks.

    Blocks hold a fixed number of key cells (memory stays bounded), and block
    b always draws from the b-th child of ``rng`` (``Generator.spawn``), so
    the draws depend on the seed alone, not on batching, and the first block
    of a long run is the whole of a run of ``sampling_block_rows(n)`` draws.
    (Running blocks on two threads measured no faster: the bounded-integer
    draw holds the GIL.)
    """
    n = values.size
    block_rows = sampling_block_rows(n)
    sizes = [min(block_rows, n_draws - lo) for lo in range(0, n_draws, block_rows)]
    children = rng.spawn(len(sizes))
    buffer = np.empty((sizes[0], n), dtype=np.float64)
    return np.concatenate(
        [
            _random_subset_indicators(child, rows, n, k, out=buffer[:rows]) @ values
            for child, rows in zip(children, sizes, strict=True)
        ]
    )


#: Bytes of random bits per independently seeded block of the "bits" sampler.
BITS_BLOCK_BYTES = 1 << 23
#: Sum of the values at the set bits of each byte value: ``_BYTE_BITS[b, i] = (b >> i) & 1``.
_BYTE_BITS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float64)


def _bit_subset_sums(rng: np.random.Generator, rows: int, values: np.ndarray, k: int) -> np.ndarray:
    """Subset sums of ``rows`` uniform random k-subsets from n random bits and |m - k| removals.

    Each row starts from n fair random bits: a random subset of random size
    m whose law is invariant under every permutation of the items. When
    ``m > k``, ``m - k`` of its items are removed one at a time, each a
    uniform random position that is still in the subset (rejection: a
    position drawn outside it is drawn again); when ``m < k`` the same is
    done to the complement. Every step treats the items alike, so the final
    k-subset's law is permutation invariant too, and the only such law on
    k-subsets is the uniform one: the split is exactly uniform. It needs
    n bits plus about 2|m - k| ~ sqrt(n) bounded integers per split instead
    of n 16-bit keys and a partition. Sums come from per-byte look-up tables
    (``n / 8`` look-ups per split).
    """
    n = values.size
    n_bytes = (n + 7) // 8
    raw = np.frombuffer(rng.bytes(rows * n_bytes), dtype=np.uint8).reshape(n_bytes, rows).copy()
    tail = np.uint8((1 << (n % 8)) - 1 if n % 8 else 255)
    raw[-1] &= tail
    m = np.bitwise_count(raw).sum(axis=0, dtype=np.int64)
    complement = m < k  # these rows shrink their complement down to n - k items instead
    raw ^= np.where(complement, np.uint8(255), np.uint8(0))[None, :]
    raw[-1] &= tail
    need = np.where(complement, k - m, m - k)

    padded = np.zeros(n_bytes * 8)
    padded[:n] = values
    table = padded.reshape(n_bytes, 8) @ _BYTE_BITS.T  # table[j, b]: sum of the values at byte j's set bits
    sums = np.zeros(rows)
    for j in range(n_bytes):
        sums += table[j].take(raw[j])

    active = np.flatnonzero(need)
    left = need[active]
    removed = np.zeros(active.size)
    flat = raw.reshape(-1)
    while active.size:
        pos = rng.integers(0, n, size=active.size, dtype=np.int64)
        at = (pos >> 3) * rows + active
        byte = flat[at]
        shift = (pos & 7).astype(np.uint8)
        hit = (byte >> shift) & np.uint8(1)
        flat[at] = byte & ~(hit << shift)
        removed += values[pos] * hit
        left -= hit
        done = left == 0
        if done.any():
            sums[active[done]] -= removed[done]
            keep = ~done
            active, left, removed = active[keep], left[keep], removed[keep]
    sums[complement] = values.sum() - sums[complement]
    return sums


#: The "bits" sampler draws whole 64-bit words and keeps those of weight k when at least this share is kept.
WORD_REJECTION_MIN_RATE = 1 / 32


def _word_subset_sums(rng: np.random.Generator, rows: int, values: np.ndarray, k: int) -> np.ndarray:
    """Subset sums of ``rows`` uniform random k-subsets of n <= 64 items, by rejection.

    Each draw is one 64-bit word cut to n fair random bits; words with
    exactly k bits set are kept. Conditioning a uniform bit pattern on its
    weight leaves it uniform over the k-subsets, so the kept draws are exact
    uniform splits; for k near n / 2 about ``sqrt(2 / (pi n))`` of the
    words are kept (11% at 25 + 25), a few words per split in all. Sums come
    from the per-byte look-up tables of :func:`_bit_subset_sums`.
    """
    n = values.size
    keep_rate = math.comb(n, k) / 2.0**n
    cut = np.uint64((1 << n) - 1)
    codes = np.empty(rows, dtype=np.uint64)
    filled = 0
    while filled < rows:
        missing = rows - filled
        words = rng.bit_generator.random_raw(int(missing / keep_rate * 1.1) + 64) & cut
        kept = words[np.bitwise_count(words) == k][:missing]
        codes[filled : filled + kept.size] = kept
        filled += kept.size
    n_bytes = (n + 7) // 8
    padded = np.zeros(n_bytes * 8)
    padded[:n] = values
    table = padded.reshape(n_bytes, 8) @ _BYTE_BITS.T  # table[j, b]: sum of the values at byte j's set bits
    as_bytes = codes.astype("<u8", copy=False).view(np.uint8).reshape(rows, 8)  # byte j: bits 8j .. 8j + 7
    sums = np.zeros(rows)
    for j in range(n_bytes):
        sums += table[j].take(as_bytes[:, j])
    return sums


def _sampled_bit_split_sums(values: np.ndarray, k: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Like :func:`_sampled_split_sums`, with :func:`_bit_subset_sums` in blocks of ``BITS_BLOCK_BYTES``.

    Up to 64 items, when at least :data:`WORD_REJECTION_MIN_RATE` of random
    words have weight k, :func:`_word_subset_sums` (no corrections) instead.
    """
    n = values.size
    block_rows = max(64, BITS_BLOCK_BYTES // ((n + 7) // 8))
    sizes = [min(block_rows, n_draws - lo) for lo in range(0, n_draws, block_rows)]
    children = rng.spawn(len(sizes))
    words = n <= 64 and math.comb(n, k) / 2.0**n >= WORD_REJECTION_MIN_RATE
    draw = _word_subset_sums if words else _bit_subset_sums
    return np.concatenate([draw(c, rows, values, k) for c, rows in zip(children, sizes, strict=True)])


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
    sampler: str = "keys",
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
        How sampled splits are drawn, both exactly uniform: ``"keys"`` (the
        default; the k smallest of n random 16-bit keys, the draws this
        package has always made for a seed) or ``"bits"`` (n random bits and
        |m - k| random removals, or up to 64 items random words of weight k;
        about 2x faster at 350 + 350 and 25 + 25; other draws, so other
        p-values within Monte Carlo error, for the same seed).
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"`values` must be one-dimensional, got shape {values.shape}")
    n = values.size
    if not 0 < n_x < n:
        raise ValueError(f"`n_x` must be between 1 and {n - 1} (both groups non-empty), got {n_x}")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"`alternative` must be in {ALTERNATIVES}, got {alternative!r}")
    if method not in METHODS:
        raise ValueError(f"`method` must be in {METHODS}, got {method!r}")
    if n_samples < 2:
        raise ValueError(f"`n_samples` must be at least 2, got {n_samples}")
    if sampler not in SAMPLERS:
        raise ValueError(f"`sampler` must be in {SAMPLERS}, got {sampler!r}")
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
        draw = _sampled_split_sums if sampler == "keys" else _sampled_bit_split_sums
        sums = draw(values, n_x, n_samples - 1, rng)
    # S_i = sum_Xi - (total - sum_Xi), computed identically for the observed split.
    null = 2.0 * sums - total
    observed = 2.0 * values[:n_x].sum() - total

    if method == "parametric":
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
