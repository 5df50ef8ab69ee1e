"""The samplers of sampled permutation tests: exactly uniform splits, the same draws for a seed."""

import math

import numpy as np
import pytest
from scipy import stats

from embias_widgets.metrics import permutation_test


def _whole_block_repartition(rng, rows, n, k):
    # The earlier sampler, kept as the reference its speed-ups must match draw for draw:
    # numpy's bounded integers, and a whole-block re-partition whenever any row ties.
    keys = rng.integers(0, 65535, size=(rows, n), dtype=np.uint16, endpoint=True)
    while True:
        part = np.partition(keys, k, axis=1)
        kth = part[:, :k].max(axis=1)
        tied = np.flatnonzero(kth == part[:, k])
        if tied.size == 0:
            return keys <= kth[:, None]
        keys[tied] = rng.integers(0, 65535, size=(tied.size, n), dtype=np.uint16, endpoint=True)


@pytest.mark.parametrize(("rows", "n", "k"), [(3000, 700, 350), (20971, 50, 25), (999, 37, 5), (64, 2, 1)])
def test_tied_rows_only_redrawn_gives_the_same_draws(rows, n, k):
    from embias_widgets.metrics.samplers import _random_subset_indicators

    expected = _whole_block_repartition(np.random.default_rng(rows + n), rows, n, k)
    got = _random_subset_indicators(np.random.default_rng(rows + n), rows, n, k)
    assert got.dtype == np.float64 and np.array_equal(got, expected)
    assert (got.sum(axis=1) == k).all()


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32])
@pytest.mark.parametrize("count", [1, 2, 3, 5, 6, 7, 50 * 20971, 99])
def test_fast_keys_equal_numpy_integers(dtype, count):
    from embias_widgets.metrics.samplers import _uniform_keys

    a, b = np.random.default_rng(count), np.random.default_rng(count)
    high = np.iinfo(dtype).max
    expected = a.integers(0, high, size=(count, 1), dtype=dtype, endpoint=True)
    assert np.array_equal(_uniform_keys(b, count, 1, dtype), expected)
    # The generator is left where numpy leaves it, a buffered half included.
    assert np.array_equal(
        b.integers(0, high, size=9, dtype=dtype, endpoint=True), a.integers(0, high, size=9, dtype=dtype, endpoint=True)
    )
    # Other bit generators take numpy's own path.
    c, d = np.random.Generator(np.random.MT19937(3)), np.random.Generator(np.random.MT19937(3))
    assert np.array_equal(_uniform_keys(c, count, 1, dtype), d.integers(0, high, size=(count, 1), dtype=dtype,
                                                                         endpoint=True))


def test_sampled_p_values_unchanged_for_the_same_seed():
    # p-values of the sampler as it was before the speed-ups (same seeds, same data), by the
    # reference above: the draws, hence the null distribution and p, are reproduced exactly.
    from embias_widgets.metrics.samplers import sampling_block_rows

    for n, seed in ((50, 1), (120, 2)):
        values = np.random.default_rng(seed).normal(size=n) + np.r_[np.full(n // 2, 0.1), np.zeros(n - n // 2)]
        res = permutation_test(values, n // 2, n_samples=30_000, method="sampled", rng=seed, sampler="keys")
        children = np.random.default_rng(seed).spawn(-(-29_999 // sampling_block_rows(n)))
        sizes = [min(sampling_block_rows(n), 29_999 - lo) for lo in range(0, 29_999, sampling_block_rows(n))]
        blocks = zip(children, sizes, strict=True)
        sums = np.concatenate([_whole_block_repartition(c, r, n, n // 2) @ values for c, r in blocks])
        np.testing.assert_array_equal(res.null_distribution, 2.0 * sums - values.sum())
        observed = 2.0 * values[: n // 2].sum() - values.sum()
        gamma = abs(observed) * np.finfo(np.float64).eps * 100
        assert res.pvalue == (1 + np.count_nonzero(2.0 * sums - values.sum() >= observed - gamma)) / 30_000


@pytest.mark.parametrize("draw", ["_word_subset_sums", "_bit_subset_sums"])
@pytest.mark.parametrize(("n", "k"), [(6, 3), (7, 2), (7, 6), (9, 4)])
def test_bits_sampler_is_uniform_over_all_splits(draw, n, k):
    # Both ways of the "bits" sampler (words of weight k; n bits + |m - k| removals), on their own.
    # Powers of two: each subset sum names one subset; every one of C(n, k) must be equally likely.
    from embias_widgets.metrics import samplers as perm

    values = 2.0 ** np.arange(n)
    sums = getattr(perm, draw)(np.random.default_rng(n * 10 + k), 60_000, values, k)
    codes = np.rint(sums).astype(np.int64)
    assert np.array_equal(codes.astype(np.float64), sums)
    assert (np.bitwise_count(codes) == k).all()  # exactly k items in every split
    _, counts = np.unique(codes, return_counts=True)
    assert counts.size == math.comb(n, k)
    assert stats.chisquare(counts).pvalue > 1e-3
    # and each item is in Xi with probability k / n
    item_rate = ((codes[:, None] >> np.arange(n)) & 1).mean(axis=0)
    np.testing.assert_allclose(item_rate, k / n, atol=5 * math.sqrt(k / n * (1 - k / n) / codes.size))


def test_bits_sampler_with_removals_on_many_items():
    # n = 100 (past the 64-bit words): rebuild every split from one-hot values (same seed, same draws).
    from embias_widgets.metrics import samplers as perm

    n, k, rows = 100, 37, 4_000
    ind = np.array([perm._bit_subset_sums(np.random.default_rng(3), rows, np.eye(n)[i], k) for i in range(n)]).T
    assert set(np.unique(ind)) <= {0.0, 1.0} and (ind.sum(axis=1) == k).all()
    se = math.sqrt(k / n * (1 - k / n) / rows)
    np.testing.assert_allclose(ind.mean(axis=0), k / n, atol=5 * se)
    # pairs: P(i and j both in) = k (k - 1) / (n (n - 1)), for a few pairs
    both = (ind[:, :10, None] * ind[:, None, :10]).mean(axis=0)[np.triu_indices(10, 1)]
    p2 = k * (k - 1) / (n * (n - 1))
    np.testing.assert_allclose(both, p2, atol=5 * math.sqrt(p2 * (1 - p2) / rows))
    values = np.random.default_rng(4).normal(size=n)
    np.testing.assert_allclose(perm._bit_subset_sums(np.random.default_rng(3), rows, values, k), ind @ values,
                               rtol=0, atol=1e-12)


def test_bits_sampler_sums_match_their_subsets():
    # n not a multiple of 8, both directions of the |m - k| correction, several blocks.
    from embias_widgets.metrics import samplers as perm

    values = 2.0 ** np.arange(45)  # exact in float64: sums identify the subsets
    old = perm.BITS_BLOCK_BYTES
    try:
        perm.BITS_BLOCK_BYTES = 6 * 1000
        sums = perm.sampled_bit_split_sums(values, 20, 3_500, np.random.default_rng(4))
    finally:
        perm.BITS_BLOCK_BYTES = old
    codes = sums.astype(np.int64)
    assert sums.size == 3_500 and np.array_equal(codes.astype(np.float64), sums)
    assert (np.bitwise_count(codes) == 20).all()
