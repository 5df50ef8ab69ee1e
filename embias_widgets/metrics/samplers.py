"""Uniform random splits of a pooled sample, drawn in independently seeded blocks.

A sampled permutation test (:func:`embias_widgets.metrics.permutation.permutation_test`) needs the
subset sums ``sum_{x in Xi} values[x]`` of many uniform random k-subsets ``Xi`` of ``range(n)``. Three
samplers draw them, all exactly uniform:

- ``"keys"`` (:func:`sampled_split_sums`): the k smallest of n random 16-bit keys per split, the draws
  this package's earlier versions made for a seed (kept by name to reproduce them);
- ``"bits"`` (:func:`sampled_bit_split_sums`): n random bits and ``|m - k|`` random removals, or up to
  64 items random 64-bit words of weight k;
- ``"indices"`` (:func:`sampled_index_split_sums`): ``j = min(k, n - k)`` random indices, drawn again
  when two repeat.

``"auto"`` (the default, :data:`DEFAULT_SAMPLER`) picks the fastest of the three for the sizes
(:func:`choose_sampler`): a fixed rule of ``n`` and ``k``, so the draws still depend on the seed alone.

Block b of a run always draws from the b-th child of the seed (``Generator.spawn``), so the draws depend
on the seed alone, never on memory or batching, and a short run reproduces the first block of a long one
(:func:`first_block_samples`).
"""

from __future__ import annotations

import math

import numpy as np

#: The sampler a sampled permutation test uses unless told otherwise: the fastest for the sizes.
DEFAULT_SAMPLER = "auto"
#: ``"indices"`` is chosen while at least this share of its draws has no repeated index.
INDEX_MIN_ACCEPTANCE = 0.3
#: Otherwise ``"bits"`` when ``min(k, n - k) / n`` is at least this, else ``"keys"`` (measured crossovers,
#: bench/bench_weat.py ``--sizes``).
BITS_MIN_SHARE = 0.2


def index_acceptance(n: int, k: int) -> float:
    """Share of draws of ``j = min(k, n - k)`` indices from ``range(n)`` with no repeat: ``prod_{i<j} (1 - i/n)``."""
    return float(np.exp(np.log1p(-np.arange(min(k, n - k)) / n).sum()))


def choose_sampler(n: int, k: int, sampler: str = DEFAULT_SAMPLER) -> str:
    """The sampler that draws uniform k-subsets of ``range(n)``: ``sampler`` itself unless it is ``"auto"``.

    ``"auto"``: ``"indices"`` while few draws repeat an index (:data:`INDEX_MIN_ACCEPTANCE`), else ``"bits"``
    for splits not too uneven (:data:`BITS_MIN_SHARE`), else ``"keys"``; each is the fastest there.
    Every one is exactly uniform, so the choice changes draws, never the law of p.
    """
    if sampler != "auto":
        return sampler
    if index_acceptance(n, k) >= INDEX_MIN_ACCEPTANCE:
        return "indices"
    return "bits" if min(k, n - k) / n >= BITS_MIN_SHARE else "keys"

#: Random-key cells per independently seeded block of sampled splits.
SAMPLING_BLOCK_CELLS = 1 << 20


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


def first_block_samples(
    n: int, n_x: int, n_samples: int, method: str = "auto", sampler: str = DEFAULT_SAMPLER
) -> int | None:
    """``n_samples`` for a quick run whose sampled splits are the first block of the full run's.

    Block b of a sampled run draws from the b-th child of the seed, so a run
    with one block's rows + 1 samples (:func:`sampling_block_rows` for
    ``sampler="keys"``, :func:`bits_block_rows` for ``"bits"``, :func:`index_block_rows` for ``"indices"``;
    ``"auto"``: that of :func:`choose_sampler`) and the same
    seed draws exactly the full run's first block: a provisional p at a small
    fraction of the cost (Monte Carlo error about ``sqrt(p (1 - p) / block)``),
    which the full run then refines. ``None`` when there is nothing to gain:
    the full run is exact or parametric, or one block already.
    """
    rows = {"keys": sampling_block_rows, "bits": bits_block_rows, "indices": lambda n: index_block_rows(n, n_x)}
    quick = rows[choose_sampler(n, n_x, sampler)](n) + 1
    sampled = method == "sampled" or (method == "auto" and math.comb(n, n_x) > n_samples)
    return quick if sampled and n_samples > quick else None


def sampled_split_sums(values: np.ndarray, k: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
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


def bits_block_rows(n: int) -> int:
    """Rows (sampled splits) per independently seeded block of the ``"bits"`` sampler for ``n`` pooled items."""
    return max(64, BITS_BLOCK_BYTES // ((n + 7) // 8))


def sampled_bit_split_sums(values: np.ndarray, k: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Like :func:`sampled_split_sums`, with :func:`_bit_subset_sums` in blocks of ``BITS_BLOCK_BYTES``.

    Up to 64 items, when at least :data:`WORD_REJECTION_MIN_RATE` of random
    words have weight k, :func:`_word_subset_sums` (no corrections) instead.
    """
    n = values.size
    block_rows = bits_block_rows(n)
    sizes = [min(block_rows, n_draws - lo) for lo in range(0, n_draws, block_rows)]
    children = rng.spawn(len(sizes))
    words = n <= 64 and math.comb(n, k) / 2.0**n >= WORD_REJECTION_MIN_RATE
    draw = _word_subset_sums if words else _bit_subset_sums
    return np.concatenate([draw(c, rows, values, k) for c, rows in zip(children, sizes, strict=True)])


#: The "indices" sampler is refused when a smaller share of its draws has no repeated index.
INDEX_MIN_USABLE = 0.01
#: Random indices per independently seeded block of the "indices" sampler.
INDEX_BLOCK_CELLS = 1 << 20


def index_block_rows(n: int, k: int) -> int:
    """Rows (sampled splits) per independently seeded block of the ``"indices"`` sampler."""
    return max(64, INDEX_BLOCK_CELLS // max(1, min(k, n - k)))


def _index_subset_sums(rng: np.random.Generator, rows: int, values: np.ndarray, k: int) -> np.ndarray:
    """Subset sums of ``rows`` uniform random k-subsets from ``j = min(k, n - k)`` random indices each.

    Each row draws j i.i.d. uniform indices of ``range(n)``; rows where two are equal are drawn again
    (in row order, until none is left). Given no repeat, the ordered j-tuple is uniform over the
    ``n! / (n - j)!`` tuples of distinct items, so its set is a uniform j-subset: the split is exactly
    uniform. When ``j = n - k`` the drawn items are the complement, and the sum is the total minus
    theirs. A share ``prod_{i<j} (1 - i/n)`` of the draws is kept (:func:`index_acceptance`), so it
    costs about ``j / acceptance`` integers per split, far below n for very uneven splits.
    """
    n = values.size
    j = min(k, n - k)
    sums = np.empty(rows)
    todo = np.arange(rows)
    while todo.size:
        idx = rng.integers(0, n, size=(todo.size, j))
        ordered = np.sort(idx, axis=1)
        ok = (ordered[:, 1:] != ordered[:, :-1]).all(axis=1)
        sums[todo[ok]] = values[idx[ok]].sum(axis=1)
        todo = todo[~ok]
    return sums if j == k else values.sum() - sums


def sampled_index_split_sums(values: np.ndarray, k: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Like :func:`sampled_split_sums`, with :func:`_index_subset_sums` in blocks of :func:`index_block_rows`.

    Refused (``ValueError``) when fewer than :data:`INDEX_MIN_USABLE` of the draws would be kept: it would run
    for hours (at 25 + 25, one draw in a thousand has no repeat).
    """
    n = values.size
    if index_acceptance(n, k) < INDEX_MIN_USABLE:
        raise ValueError(
            f"sampler='indices' draws min(k, n - k) = {min(k, n - k)} of n = {n} items and would keep only "
            f"{index_acceptance(n, k):.2g} of its draws (it suits very uneven splits): use sampler='auto' (the "
            "default, the fastest for the sizes) or 'bits'"
        )
    block_rows = index_block_rows(n, k)
    sizes = [min(block_rows, n_draws - lo) for lo in range(0, n_draws, block_rows)]
    children = rng.spawn(len(sizes))
    return np.concatenate([_index_subset_sums(c, rows, values, k) for c, rows in zip(children, sizes, strict=True)])


def split_sums(values: np.ndarray, k: int, n_draws: int, rng: np.random.Generator,
               sampler: str = DEFAULT_SAMPLER) -> np.ndarray:
    """Subset sums of ``n_draws`` uniform random k-subsets of ``range(values.size)`` by ``sampler``
    (``"auto"``: :func:`choose_sampler`)."""
    draw = {"keys": sampled_split_sums, "bits": sampled_bit_split_sums, "indices": sampled_index_split_sums}
    return draw[choose_sampler(values.size, k, sampler)](values, k, n_draws, rng)
