"""The default sampler (issue 20, item 1): ``"auto"`` picks the fastest exactly uniform sampler for the sizes;
the ``"indices"`` sampler it picks for very uneven splits is exactly uniform; ``"keys"`` stays by name."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from embias_widgets.metrics import permutation_test
from embias_widgets.metrics import samplers as smp
from embias_widgets.metrics.permutation import first_block_samples


@pytest.mark.parametrize(("n", "k"), [(6, 3), (7, 2), (7, 6), (9, 4), (12, 1)])
def test_indices_sampler_is_uniform_over_all_splits(n, k):
    # Powers of two: each subset sum names one subset; every one of C(n, k) must be equally likely.
    values = 2.0 ** np.arange(n)
    sums = smp._index_subset_sums(np.random.default_rng(n * 10 + k), 60_000, values, k)
    codes = np.rint(sums).astype(np.int64)
    assert np.array_equal(codes.astype(np.float64), sums)
    assert (np.bitwise_count(codes) == k).all()  # exactly k distinct items in every split
    _, counts = np.unique(codes, return_counts=True)
    assert counts.size == math.comb(n, k)
    assert stats.chisquare(counts).pvalue > 1e-3
    item_rate = ((codes[:, None] >> np.arange(n)) & 1).mean(axis=0)
    np.testing.assert_allclose(item_rate, k / n, atol=5 * math.sqrt(k / n * (1 - k / n) / codes.size))


def test_indices_sampler_blocks_and_complement():
    values = 2.0 ** np.arange(45)  # exact in float64: sums identify the subsets
    old = smp.INDEX_BLOCK_CELLS
    try:
        smp.INDEX_BLOCK_CELLS = 3 * 500  # blocks of 500 rows for j = 3
        for k in (3, 42):  # 42: the 3 drawn are the complement
            sums = smp.sampled_index_split_sums(values, k, 1_700, np.random.default_rng(4))
            codes = sums.astype(np.int64)
            assert sums.size == 1_700 and np.array_equal(codes.astype(np.float64), sums)
            assert (np.bitwise_count(codes) == k).all()
            assert np.unique(codes).size > 1_500  # 14,190 subsets: few repeats
    finally:
        smp.INDEX_BLOCK_CELLS = old


def test_acceptance_is_the_share_of_draws_without_a_repeat():
    assert smp.index_acceptance(10, 1) == 1.0
    assert smp.index_acceptance(10, 3) == pytest.approx(1 * 0.9 * 0.8)
    assert smp.index_acceptance(10, 8) == pytest.approx(1 * 0.9)  # j = min(k, n - k) = 2
    draws = np.random.default_rng(0).integers(0, 50, size=(200_000, 6))
    share = (np.diff(np.sort(draws, axis=1), axis=1) != 0).all(axis=1).mean()
    assert share == pytest.approx(smp.index_acceptance(50, 6), abs=5 * math.sqrt(0.25 / 200_000))


@pytest.mark.parametrize(("n_x", "n_y", "expected"), [
    (25, 25, "bits"), (350, 350, "bits"), (10, 10, "bits"), (60, 240, "bits"),
    (2, 60, "indices"), (20, 700, "indices"), (5, 45, "indices"), (45, 5, "indices"),
    (40, 260, "keys"), (30, 170, "keys"),
])
def test_auto_picks_per_size_and_is_that_samplers_draws(n_x, n_y, expected):
    assert smp.DEFAULT_SAMPLER == "auto"
    n = n_x + n_y
    assert smp.choose_sampler(n, n_x) == expected
    assert smp.choose_sampler(n, n_x, "keys") == "keys"
    values = np.random.default_rng(n).normal(size=n)
    auto = permutation_test(values, n_x, n_samples=3_000, method="sampled", rng=5)
    named = permutation_test(values, n_x, n_samples=3_000, method="sampled", rng=5, sampler=expected)
    np.testing.assert_array_equal(auto.null_distribution, named.null_distribution)
    assert auto.pvalue == named.pvalue


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_indices_sampler_p_agrees_with_exact_enumeration(alternative):
    # C(24, 3) = 2,024 splits: exact enumeration is the reference; 40,000 sampled splits within Monte Carlo error.
    values = np.random.default_rng(8).normal(size=24) + np.r_[np.full(3, 0.8), np.zeros(21)]
    exact = permutation_test(values, 3, method="exact", alternative=alternative)
    sampled = permutation_test(values, 3, n_samples=40_000, method="sampled", rng=2, sampler="indices",
                               alternative=alternative)
    se = math.sqrt(max(exact.pvalue * (1 - exact.pvalue), 1e-4) / 40_000) * (2 if alternative == "two-sided" else 1)
    assert abs(sampled.pvalue - exact.pvalue) < 5 * se + 1 / 40_000


def test_first_block_of_the_indices_sampler_is_the_full_runs_first_block():
    values = np.random.default_rng(3).normal(size=300)
    quick = first_block_samples(300, 4, 2_000_000, "auto", "auto")
    assert quick == smp.index_block_rows(300, 4) + 1 == (1 << 20) // 4 + 1
    first = permutation_test(values, 4, n_samples=quick, rng=7)
    full = permutation_test(values, 4, n_samples=2 * quick, rng=7)
    np.testing.assert_array_equal(first.null_distribution, full.null_distribution[: quick - 1])


def test_keys_stays_by_name_with_its_old_draws():
    # The old default's draws for a seed are still there by name (test_samplers.py pins them bit for bit).
    values = np.random.default_rng(1).normal(size=50)
    keys = permutation_test(values, 25, n_samples=5_000, rng=1, sampler="keys")
    again = permutation_test(values, 25, n_samples=5_000, rng=1, sampler="keys")
    default = permutation_test(values, 25, n_samples=5_000, rng=1)
    np.testing.assert_array_equal(keys.null_distribution, again.null_distribution)
    assert not np.array_equal(keys.null_distribution, default.null_distribution)


def test_indices_sampler_on_balanced_splits_is_refused_with_the_fix():
    values = np.random.default_rng(0).normal(size=50)
    with pytest.raises(ValueError, match=r"sampler='indices' .* 25 of n = 50 .* use sampler='auto'"):
        permutation_test(values, 25, n_samples=1_000, rng=0, sampler="indices")
