"""Holm-Bonferroni by hand and the bootstrap interval for d."""

import numpy as np
import pytest

from embias_widgets.metrics import effect_size_interval, holm_bonferroni, holm_thresholds, weat


def test_holm_by_hand():
    # m = 4, alpha = 0.05: thresholds 0.0125, 0.01667, 0.025, 0.05.
    p = np.array([0.04, 0.001, 0.02, 0.011])
    res = holm_bonferroni(p, alpha=0.05)
    # sorted: 0.001 (<.0125 reject), 0.011 (<.01667 reject), 0.02 (<.025 reject), 0.04 (<.05 reject)
    assert res.reject.tolist() == [True, True, True, True]
    res = holm_bonferroni(np.array([0.04, 0.001, 0.03, 0.011]), alpha=0.05)
    # 0.03 > 0.025 stops: reject only 0.001 and 0.011, and not 0.04 even though 0.04 < 0.05.
    assert res.reject.tolist() == [False, True, False, True]
    np.testing.assert_allclose(res.adjusted, [0.06, 0.004, 0.06, 0.033])


def test_holm_matches_statsmodels_formula_for_random_p():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.05, size=30)
    res = holm_bonferroni(p, alpha=0.01)
    assert np.array_equal(res.reject, res.adjusted <= 0.01)


def test_holm_rejects_bad_input():
    with pytest.raises(ValueError, match="between 0 and 1"):
        holm_bonferroni(np.array([0.5, 1.5]))


def test_bootstrap_interval_covers_point_estimate_and_is_seeded():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 6)) + 1
    Y = rng.normal(size=(10, 6)) - 1
    A = rng.normal(size=(8, 6)) + 1
    B = rng.normal(size=(8, 6)) - 1
    d = weat(X, Y, A, B).effect_size
    ci = effect_size_interval(X, Y, A, B, n_resamples=500, rng=3)
    again = effect_size_interval(X, Y, A, B, n_resamples=500, rng=3)
    assert ci.low <= d <= ci.high
    np.testing.assert_array_equal(ci.replicates, again.replicates)


def test_bootstrap_replicate_matches_direct_recomputation():
    # One replicate with known resampled indices equals weat() on the resampled sets.
    rng = np.random.default_rng(5)
    X, Y, A, B = (rng.normal(size=(4, 3)) for _ in range(4))
    ci = effect_size_interval(X, Y, A, B, n_resamples=1, rng=11, batch=1)
    g = np.random.default_rng(11)
    ia = g.integers(0, 4, size=(1, 4))[0]  # the attribute words drawn (as indices, like scipy.stats.bootstrap)
    ib = g.integers(0, 4, size=(1, 4))[0]
    ix = g.integers(0, 4, size=(1, 4))[0]
    iy = g.integers(0, 4, size=(1, 4))[0]
    A2, B2 = A[ia], B[ib]
    direct = weat(X[ix], Y[iy], A2, B2, n_samples=2, method="sampled").effect_size
    assert ci.replicates[0] == pytest.approx(direct, rel=1e-10)


def test_holm_step_thresholds_by_hand_and_against_the_rejections():
    p = np.array([0.03, 0.001, 0.001, 0.2, 0.0004])
    # sorted 0.0004, 0.001, 0.001, 0.03, 0.2: steps 0.05/5, 0.05/4, (tie: the first of its steps) 0.05/4, 0.05/2, 0.05
    np.testing.assert_allclose(holm_thresholds(p, alpha=0.05), [0.025, 0.0125, 0.0125, 0.05, 0.01])
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = np.round(rng.uniform(0, 0.05, rng.integers(1, 12)), 3)  # rounded: ties happen
        t, reject = holm_thresholds(p, alpha=0.01 * 3), holm_bonferroni(p, alpha=0.01 * 3).reject
        passed = p <= t
        for i in range(p.size):
            assert reject[i] == all(passed[j] for j in range(p.size) if p[j] <= p[i])
