"""The split permutation test against scipy.stats.permutation_test and by hand."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from embias_widgets.metrics import permutation_test, split_statistic


def _scipy_test(values, n_x, alternative, **kw):
    # The statistic of an "independent" permutation of (x, y) is sum(x) - sum(y).
    return stats.permutation_test(
        (values[:n_x], values[n_x:]),
        lambda x, y, axis: np.sum(x, axis=axis) - np.sum(y, axis=axis),
        permutation_type="independent",
        alternative=alternative,
        vectorized=True,
        **kw,
    )


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
@pytest.mark.parametrize(("n_x", "n_y"), [(4, 4), (5, 3), (6, 6)])
def test_exact_matches_scipy(alternative, n_x, n_y):
    values = np.random.default_rng(n_x * 10 + n_y).normal(size=n_x + n_y)
    ours = permutation_test(values, n_x, alternative=alternative)
    ref = _scipy_test(values, n_x, alternative, n_resamples=np.inf)
    assert ours.exact
    assert ours.n_permutations == math.comb(n_x + n_y, n_x)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    np.testing.assert_allclose(np.sort(ours.null_distribution), np.sort(ref.null_distribution), rtol=1e-12, atol=1e-12)


def test_exact_with_ties_matches_scipy():
    # Integer-valued associations give many tied splits: the non-strict >= counts them.
    values = np.array([1.0, 2.0, 2.0, 3.0, 1.0, 2.0, 2.0, 0.0]) / 10
    ours = permutation_test(values, 4)
    ref = _scipy_test(values, 4, "greater", n_resamples=np.inf)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_exact_by_hand():
    # X = {3, 1}, Y = {0, 2}: S = 4 - 2 = 2; splits of {3,1,0,2} into pairs:
    # sums of Xi: 4, 3, 5, 1, 3, 2 -> S_i = 2*sum - 6 = 2, 0, 4, -4, 0, -2 -> P[S_i >= 2] = 2/6.
    res = permutation_test(np.array([3.0, 1.0, 0.0, 2.0]), 2)
    assert res.statistic == 2.0
    assert sorted(res.null_distribution.tolist()) == [-4, -2, 0, 0, 2, 4]
    assert res.pvalue == pytest.approx(2 / 6)


def test_sampled_uses_plus_one_rule_and_agrees_with_exact():
    values = np.random.default_rng(3).normal(size=16)
    exact = permutation_test(values, 8)
    sampled = permutation_test(values, 8, n_samples=5_000, rng=7)
    assert not sampled.exact and sampled.method == "sampled"
    assert sampled.n_permutations == 5_000
    assert sampled.null_distribution.size == 4_999
    count = np.count_nonzero(sampled.null_distribution >= sampled.statistic - 1e-12)
    assert sampled.pvalue == (count + 1) / 5_000
    # Binomial standard error of the sampled p around the exact p.
    se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / 5_000)
    assert abs(sampled.pvalue - exact.pvalue) < 5 * se + 1 / 5_000


def test_sampled_agrees_with_scipy_randomized():
    values = np.random.default_rng(11).normal(size=40) + np.r_[np.full(20, 0.3), np.zeros(20)]
    ours = permutation_test(values, 20, n_samples=20_000, rng=1)
    ref = _scipy_test(values, 20, "greater", n_resamples=19_999, rng=np.random.default_rng(2))
    # Same estimator ((1 + count) / (n + 1)), independent draws: close within MC error.
    se = math.sqrt(ref.pvalue * (1 - ref.pvalue) / 20_000)
    assert abs(ours.pvalue - ref.pvalue) < 6 * se + 2 / 20_000


def test_smallest_sampled_p_is_one_over_n():
    values = np.r_[np.full(30, 10.0), np.zeros(30)] + np.linspace(0, 1e-3, 60)
    res = permutation_test(values, 30, n_samples=1_000, rng=0)
    assert res.pvalue == 1 / 1_000


def test_uniform_sampling_of_splits():
    # Each item should land in Xi with probability k/n.
    values = np.eye(6)[0]  # the sum is 1 exactly when item 0 is in Xi
    res = permutation_test(values, 2, n_samples=30_001, method="sampled", rng=5)
    frac = np.mean(res.null_distribution > 0)  # S_i = 2*1[item 0 in Xi] - 1
    assert frac == pytest.approx(2 / 6, abs=0.01)


def test_seed_reproduces_and_batch_size_changes_nothing():
    values = np.random.default_rng(0).normal(size=50)
    a = permutation_test(values, 25, n_samples=50_000, rng=42)
    b = permutation_test(values, 25, n_samples=50_000, rng=42, batch_cells=777)
    c = permutation_test(values, 25, n_samples=50_000, rng=43)
    # Same draws; summation order may differ in the last bit, never the p-value.
    np.testing.assert_allclose(a.null_distribution, b.null_distribution, rtol=0, atol=1e-12)
    assert a.pvalue == b.pvalue
    assert not np.array_equal(a.null_distribution, c.null_distribution)
    e1 = permutation_test(values[:16], 8)
    e2 = permutation_test(values[:16], 8, batch_cells=100)
    np.testing.assert_allclose(e1.null_distribution, e2.null_distribution, rtol=0, atol=1e-12)
    assert e1.pvalue == e2.pvalue


def test_exact_enumerates_every_split_once():
    values = 2.0 ** np.arange(7)  # distinct subset sums identify subsets
    res = permutation_test(values, 3)
    total = values.sum()
    subset_sums = (res.null_distribution + total) / 2
    expected = sorted(sum(c) for c in itertools.combinations(values.tolist(), 3))
    assert sorted(subset_sums.tolist()) == expected


def test_parametric_is_normal_tail_of_null():
    values = np.random.default_rng(9).normal(size=12)
    res = permutation_test(values, 6, method="parametric")
    null = res.null_distribution
    expected = stats.norm.sf(res.statistic, loc=null.mean(), scale=null.std(ddof=1))
    assert res.method == "parametric"
    assert res.pvalue == pytest.approx(expected, rel=1e-12)


def test_unequal_sizes():
    values = np.random.default_rng(2).normal(size=9)
    res = permutation_test(values, 3)
    assert res.n_permutations == math.comb(9, 3)
    assert res.statistic == pytest.approx(split_statistic(values, 3))
    ref = _scipy_test(values, 3, "greater", n_resamples=np.inf)
    assert res.pvalue == pytest.approx(ref.pvalue)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alternative": "bigger"}, "`alternative` must be in"),
        ({"method": "magic"}, "`method` must be in"),
        ({"n_samples": 1}, "`n_samples` must be at least 2"),
    ],
)
def test_bad_options_name_the_parameter(kwargs, message):
    with pytest.raises(ValueError, match=message):
        permutation_test(np.arange(4.0), 2, **kwargs)


def test_empty_group_is_an_error():
    with pytest.raises(ValueError, match="both groups non-empty"):
        permutation_test(np.arange(4.0), 4)


def test_sampled_subsets_are_uniform_over_all_splits():
    # Distinct powers of two: each subset sum names one subset. 20 subsets of 3 from 6.
    values = 2.0 ** np.arange(6)
    res = permutation_test(values, 3, n_samples=40_001, method="sampled", rng=8)
    subset_sums = ((res.null_distribution + values.sum()) / 2).astype(int)
    _, counts = np.unique(subset_sums, return_counts=True)
    assert counts.size == 20
    assert stats.chisquare(counts).pvalue > 1e-3


@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
def test_bits_sampler_agrees_with_exact_and_scipy(alternative):
    values = np.random.default_rng(21).normal(size=16) + np.r_[np.full(8, 0.4), np.zeros(8)]
    exact = permutation_test(values, 8, alternative=alternative)
    bits = permutation_test(values, 8, n_samples=20_000, method="sampled", rng=3, sampler="bits",
                            alternative=alternative)
    se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / 20_000)
    assert abs(bits.pvalue - exact.pvalue) < 5 * se + 2 / 20_000
    for n in (60, 90):  # 64-bit words of weight k; n bits and |m - k| removals
        big = np.random.default_rng(5).normal(size=n) + np.r_[np.full(n // 2, 0.25), np.zeros(n // 2)]
        ours = permutation_test(big, n // 2, n_samples=20_000, rng=1, sampler="bits", alternative=alternative)
        ref = _scipy_test(big, n // 2, alternative, n_resamples=19_999, rng=np.random.default_rng(2))
        se = math.sqrt(ref.pvalue * (1 - ref.pvalue) / 20_000)
        assert abs(ours.pvalue - ref.pvalue) < 6 * se + 2 / 20_000


def test_bits_sampler_reproduces_and_rejects_unknown_sampler():
    values = np.random.default_rng(0).normal(size=30)
    a = permutation_test(values, 15, n_samples=5_000, rng=9, sampler="bits")
    b = permutation_test(values, 15, n_samples=5_000, rng=9, sampler="bits")
    assert np.array_equal(a.null_distribution, b.null_distribution)
    with pytest.raises(ValueError, match="`sampler` must be in"):
        permutation_test(values, 15, sampler="dice")
