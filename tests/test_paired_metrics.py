"""The paired comparison's metric core against statsmodels, scipy and hand-computed cases: McNemar's exact test,
the paired bootstrap of a pair score, BCa of the change in d, the swap permutation test, StereoSet by target,
NLI two-way, RIPA by relation pair."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

from embias_widgets.metrics import effect_size, per_word_association, relation_vector, ripa
from embias_widgets.metrics.paired import (
    bca_bounds,
    bootstrap_p_value,
    mcnemar_exact,
    pair_score_change,
    sign_flip_test,
)
from embias_widgets.metrics.paired_association import (
    ATTRIBUTE_NOISE_GAP,
    ATTRIBUTE_NOISE_LIMIT,
    _noise_warning,
    attribute_noise_share,
    effect_size_change,
    swap_permutation_test,
)
from embias_widgets.metrics.paired_resampling import neutrality_change, ripa_change, stereoset_change


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 5), (3, 9), (10, 10), (25, 40), (1, 0), (117, 88)])
def test_mcnemar_equals_statsmodels_and_binomtest(b, c):
    got = mcnemar_exact(b, c)
    table = [[7, b], [c, 11]]  # the concordant cells never matter
    assert got.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12, abs=1e-15)
    if b + c:
        assert got.p_value == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-12)


def test_mcnemar_hand_computed():
    # b = 1, c = 5: P(X <= 1) for Binomial(6, 1/2) = (1 + 6) / 64; two-sided doubles it
    assert mcnemar_exact(1, 5).p_value == pytest.approx(2 * 7 / 64)
    assert mcnemar_exact(0, 0).p_value == 1.0
    with pytest.raises(ValueError, match="`b` must be a whole number"):
        mcnemar_exact(-1, 3)


def test_pair_score_change_hand_computed_and_mcnemar():
    before = np.array([1, 1, 1, 1, 0, 0, 1, 0, 1, 1], bool)  # 7 of 10
    after = np.array([1, 0, 0, 1, 0, 1, 0, 0, 1, 0], bool)   # 4 of 10
    ch = pair_score_change(before, after, rng=0, n_resamples=500)
    assert (ch.before, ch.after, ch.change) == (70.0, 40.0, -30.0)
    assert ch.counts == {"b": 4, "c": 1}
    assert ch.p_value == pytest.approx(mcnemar([[0, 4], [1, 0]], exact=True).pvalue)
    assert ch.bias_change == pytest.approx(abs(40 - 50) - abs(70 - 50))  # -10: bias fell
    zhou = pair_score_change(before, after, rng=0, n_resamples=500, reference=0.0)
    assert (zhou.before, zhou.after) == (20.0, -10.0) and zhou.change == ch.change


def test_pair_score_bootstrap_equals_scipy_paired_on_the_same_resamples():
    rng = np.random.default_rng(5)
    before = rng.random(60) < 0.6
    after = rng.random(60) < 0.45
    ch = pair_score_change(before, after, rng=123, n_resamples=999, level=0.9)

    def statistic(x, y, axis=-1):
        return 100.0 * (y.mean(axis=axis) - x.mean(axis=axis))

    ref = stats.bootstrap((before.astype(float), after.astype(float)), statistic, paired=True, vectorized=True,
                          n_resamples=999, confidence_level=0.9, method="percentile",
                          rng=np.random.default_rng(123))
    assert ch.interval.low == pytest.approx(ref.confidence_interval.low, abs=1e-9)
    assert ch.interval.high == pytest.approx(ref.confidence_interval.high, abs=1e-9)
    assert np.allclose(np.sort(ch.replicates), np.sort(ref.bootstrap_distribution))


def test_bootstrap_p_and_sign_flip():
    assert bootstrap_p_value(np.array([1.0, 2.0, 3.0])) == pytest.approx(2 * 1 / 4)
    assert bootstrap_p_value(np.array([np.nan])) is None
    d = np.array([0.5, 1.0, -0.25, 2.0])
    p, exact = sign_flip_test(d)
    means = [abs(np.dot(s, d)) / 4 for s in itertools.product((1, -1), repeat=4)]
    assert exact and p == pytest.approx(np.mean(np.array(means) >= abs(d.mean()) - 1e-12))
    p_mc, exact_mc = sign_flip_test(np.r_[d, d, d, d, d], n_resamples=2000, rng=1)
    assert not exact_mc and 0 < p_mc <= 1


def _cosines(rng, n=(8, 8, 8, 8), dim=20, lean=0.4):
    X, Y, A, B = (rng.standard_normal((k, dim)) for k in n)
    X[:, 0] += lean
    Y[:, 1] += lean
    A[:, 0] += 1
    B[:, 1] += 1
    unit = [m / np.linalg.norm(m, axis=1, keepdims=True) for m in (X, Y, A, B)]
    W = np.vstack(unit[:2])
    return W @ unit[2].T, W @ unit[3].T, (X, Y, A, B)


def test_change_in_d_point_estimate_and_bca_equal_scipy_on_the_same_resamples():
    rng = np.random.default_rng(2)
    ca0, cb0, (X, Y, A, B) = _cosines(rng)
    noise = [m + 0.3 * rng.standard_normal(m.shape) for m in (X, Y, A, B)]
    unit = [m / np.linalg.norm(m, axis=1, keepdims=True) for m in noise]
    W = np.vstack(unit[:2])
    ca1, cb1 = W @ unit[2].T, W @ unit[3].T
    ch = effect_size_change((ca0, cb0), (ca1, cb1), 8, n_resamples=400, rng=np.random.default_rng(11))
    s0 = per_word_association(np.vstack([X, Y]), A, B)
    s1 = per_word_association(np.vstack(noise[:2]), noise[2], noise[3])
    d0, d1 = effect_size(s0[:8], s0[8:]).value, effect_size(s1[:8], s1[8:]).value
    assert ch.before == pytest.approx(d0) and ch.after == pytest.approx(d1) and ch.change == pytest.approx(d1 - d0)

    def statistic(ix, iy, ia, ib):
        ix, iy, ia, ib = (np.asarray(i, dtype=int) for i in (ix, iy, ia, ib))
        rows = np.r_[ix, 8 + iy]
        out = []
        for ca, cb in ((ca0, cb0), (ca1, cb1)):
            s = ca[np.ix_(rows, ia)].mean(axis=1) - cb[np.ix_(rows, ib)].mean(axis=1)
            out.append((s[:len(ix)].mean() - s[len(ix):].mean()) / s.std(ddof=1))
        return out[1] - out[0]

    ref = stats.bootstrap((np.arange(8), np.arange(8), np.arange(8), np.arange(8)), statistic, vectorized=False,
                          n_resamples=400, method="BCa", rng=np.random.default_rng(11))
    assert ch.interval.low == pytest.approx(ref.confidence_interval.low, abs=1e-9)
    assert ch.interval.high == pytest.approx(ref.confidence_interval.high, abs=1e-9)
    assert "BCa" in ch.interval.method and "four" not in ch.interval.method


def test_bca_bounds_reduce_to_percentile_without_bias_or_acceleration():
    reps = np.linspace(-1, 1, 2001)
    low, high = bca_bounds(0.0, reps, [np.array([1.0, 1.0, 1.0])])
    assert low == pytest.approx(np.percentile(reps, 2.5)) and high == pytest.approx(np.percentile(reps, 97.5))


def test_swap_test_exact_by_hand_and_scale_free():
    rng = np.random.default_rng(4)
    s0 = rng.standard_normal(8)
    s1 = s0 + 0.1 * rng.standard_normal(8)
    p, exact, patterns = swap_permutation_test(s0, s1, 4)
    assert exact and patterns == 256
    z0, z1 = ((s - s.mean()) / s.std(ddof=1) for s in (s0, s1))

    def d(s):
        return (s[:4].mean() - s[4:].mean()) / s.std(ddof=1)

    obs = abs(d(z1) - d(z0))
    hits = [abs(d(np.where(m, z0, z1)) - d(np.where(m, z1, z0))) >= obs - 1e-12
            for m in itertools.product((False, True), repeat=8)]
    assert p == pytest.approx(np.mean(hits))
    # a model whose scores are only scaled and shifted has the same d: no change, p = 1
    assert swap_permutation_test(s0, 3 * s0 + 1, 4)[0] == pytest.approx(1.0)


def test_swap_test_random_patterns_equal_a_word_by_word_loop_on_the_same_draws():
    rng = np.random.default_rng(8)
    s0 = rng.standard_normal(40)
    s1 = s0 + 0.5 * rng.standard_normal(40)
    p, exact, patterns = swap_permutation_test(s0, s1, 19, n_permutations=3_000, rng=5)
    assert not exact and patterns == 3_000
    z0, z1 = ((s - s.mean()) / s.std(ddof=1) for s in (s0, s1))

    def d(s):
        return (s[:19].mean() - s[19:].mean()) / s.std(ddof=1)

    obs = abs(d(z1) - d(z0))
    gen = np.random.default_rng(5)
    masks = np.vstack([gen.random((min(2048, 3_000 - k), 40)) < 0.5 for k in range(0, 3_000, 2048)])
    hits = sum(abs(d(np.where(m, z0, z1)) - d(np.where(m, z1, z0))) >= obs - 1e-12 for m in masks)
    assert p == pytest.approx((1 + hits) / 3_001)


def _debiased_views(rng, n, keep, dim=50, sigma=0.4, tau=0.15, t=0.6):
    """Word clusters (X, Y lean to A, B by ``t``) seen by two models: each adds its own noise ``tau``; the second
    keeps ``keep`` of the association axis (a partial projection debiasing)."""
    e = np.eye(dim)
    axis = (e[0] - e[1]) / np.sqrt(2)
    means = [e[2] + t * axis, e[2] - t * axis, e[0], e[1]]
    words = [m + sigma * rng.standard_normal((n, dim)) for m in means]
    cos = []
    for k in (1.0, keep):
        views = [w + tau * rng.standard_normal(w.shape) for w in words]
        views = [v - (1 - k) * np.outer(v @ axis, axis) for v in views]
        unit = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in views]
        W = np.vstack(unit[:2])
        cos.append((W @ unit[2].T, W @ unit[3].T))
    return cos, words


def test_attribute_noise_share_equals_the_trace_of_the_two_covariances():
    rng = np.random.default_rng(21)
    X, Y, A, B = (rng.standard_normal((k, 12)) + 0.5 * (i == 2) for i, k in enumerate((7, 9, 6, 5)))
    unit = [m / np.linalg.norm(m, axis=1, keepdims=True) for m in (X, Y, A, B)]
    W = np.vstack(unit[:2])
    s = (W @ unit[2].T).mean(axis=1) - (W @ unit[3].T).mean(axis=1)
    # tr(S_w S_a) / |A| + tr(S_w S_b) / |B| over var(s): unbiased covariances of the unit vectors
    cov_w, cov_a, cov_b = (np.cov(m, rowvar=False) for m in (W, unit[2], unit[3]))
    want = (np.trace(cov_w @ cov_a) / 6 + np.trace(cov_w @ cov_b) / 5) / s.var(ddof=1)
    assert attribute_noise_share(W @ unit[2].T, W @ unit[3].T) == pytest.approx(want, rel=1e-10)
    # undefined with one attribute word, or with scores that do not vary
    assert np.isnan(attribute_noise_share(W @ unit[2][:1].T, W @ unit[3].T))
    assert np.isnan(attribute_noise_share(np.ones((16, 6)), np.ones((16, 5))))


def test_attribute_noise_share_estimates_what_the_attribute_draw_adds_to_the_spread():
    # averaged over draws of A and B (targets fixed), var(s) exceeds its value at the attribute populations'
    # mean directions by the noise the share estimates: E[rho var(s)] = E[var(s)] - var(s at the populations)
    rng = np.random.default_rng(3)
    dim, n = 30, 6
    e = np.eye(dim)
    W = e[2] + 0.4 * rng.standard_normal((20, dim))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    pop = [e[k] + 0.4 * rng.standard_normal((200_000, dim)) for k in (0, 1)]
    direction = sum(sign * (m / np.linalg.norm(m, axis=1, keepdims=True)).mean(axis=0)
                    for sign, m in ((1, pop[0]), (-1, pop[1])))
    var_pop = (W @ direction).var(ddof=1)
    noise, spread = [], []
    for _ in range(4_000):
        A, B = (e[k] + 0.4 * rng.standard_normal((n, dim)) for k in (0, 1))
        A, B = (m / np.linalg.norm(m, axis=1, keepdims=True) for m in (A, B))
        rho = attribute_noise_share(W @ A.T, W @ B.T)
        v = ((W @ A.T).mean(axis=1) - (W @ B.T).mean(axis=1)).var(ddof=1)
        noise.append(rho * v)
        spread.append(v)
    assert np.mean(noise) == pytest.approx(np.mean(spread) - var_pop, rel=0.05)


def test_change_in_d_warns_where_one_model_keeps_little_of_the_association_axis():
    rng = np.random.default_rng(12)
    cos, _ = _debiased_views(rng, 8, keep=0.3)
    ch = effect_size_change(*cos, 8, n_resamples=200, n_permutations=200, rng=1)
    shares = [attribute_noise_share(*c) for c in cos]
    assert max(shares) >= ATTRIBUTE_NOISE_LIMIT and abs(shares[1] - shares[0]) >= ATTRIBUTE_NOISE_GAP
    assert ch.warning is not None and f"{shares[1]:.2f}" in ch.warning and "these words" in ch.warning
    assert ch.to_dict()["warning"] == ch.warning
    # attribute words fixed (the conditional estimand) and the max variant: no warning
    assert effect_size_change(*cos, 8, n_resamples=200, resample_attributes=False, rng=1).warning is None
    assert effect_size_change(*cos, 8, n_resamples=200, variant="max", rng=1).warning is None
    # a clean pair of models with many attribute words: no warning
    clean, _ = _debiased_views(np.random.default_rng(13), 40, keep=1.0, sigma=0.25, t=1.0)
    assert max(attribute_noise_share(*c) for c in clean) < ATTRIBUTE_NOISE_LIMIT
    assert effect_size_change(*clean, 40, n_resamples=200, n_permutations=200, rng=1).warning is None
    # both models with the same large share (understated alike): no warning; a gap of the shares: a warning
    assert _noise_warning([0.8, 0.9]) is None and _noise_warning([0.8, 0.96]) is not None
    assert _noise_warning([0.2, 0.49]) is None and _noise_warning([float("nan"), 0.9]) is None


def test_stereoset_change_by_target_hand_computed():
    targets = ["a", "a", "b", "b", "b", "c"]
    sw = ([1, 0, 1, 1, 0, 1], [0, 0, 1, 0, 0, 1])
    rw = ([1, 1, 0.5, 1, 1, 0], [1, 0.5, 1, 1, 1, 1])
    got = stereoset_change(sw, rw, targets, rng=0, n_resamples=300)
    ss0, ss1 = np.mean([50, 200 / 3, 100]), np.mean([0, 100 / 3, 100])
    lms0, lms1 = np.mean([100, 250 / 3, 0]), np.mean([75, 100, 100])
    assert got["ss"].before == pytest.approx(ss0) and got["ss"].after == pytest.approx(ss1)
    assert got["lms"].change == pytest.approx(lms1 - lms0)
    icat = [lms * min(ss, 100 - ss) / 50 for ss, lms in ((ss0, lms0), (ss1, lms1))]
    assert got["icat"].change == pytest.approx(icat[1] - icat[0])
    # the sign-flip test over the three targets' differences, exact (8 patterns)
    diffs = np.array([0 - 50, 100 / 3 - 200 / 3, 0.0])
    assert got["ss"].p_value == pytest.approx(sign_flip_test(diffs)[0])
    assert got["ss"].counts == {"items": 6, "clusters": 3}
    assert "targets" in got["ss"].interval.method


def test_neutrality_change_two_way_and_point_values():
    rng = np.random.default_rng(0)
    t = np.repeat(np.arange(6), 10).astype(str)
    w = np.tile(np.arange(10), 6).astype(str)
    p0 = rng.dirichlet([1, 2, 1], size=60)
    p1 = rng.dirichlet([1, 4, 1], size=60)
    got = neutrality_change((p0, p1), t, w, rng=1, n_resamples=400)
    assert got["net_neutral"].change == pytest.approx(p1[:, 1].mean() - p0[:, 1].mean())
    fn = [(p.argmax(axis=1) == 1).mean() for p in (p0, p1)]
    assert got["fraction_neutral"].change == pytest.approx(fn[1] - fn[0])
    assert got["threshold_0.5"].after == pytest.approx((p1[:, 1] > 0.5).mean())
    assert got["net_neutral"].bias_change == pytest.approx(-got["net_neutral"].change)
    assert got["net_neutral"].counts == {"sentence_pairs": 60, "templates": 6, "word_pairs": 10}
    iv = got["net_neutral"].interval
    assert iv.low < got["net_neutral"].change < iv.high
    # the same model twice: no change, every replicate 0
    same = neutrality_change((p0, p0), t, w, rng=1, n_resamples=50)["net_neutral"]
    assert same.change == 0 and same.interval.low == same.interval.high == 0


def test_ripa_change_point_equals_ripa_per_model():
    rng = np.random.default_rng(3)
    Xp, Yp = rng.standard_normal((6, 12)), rng.standard_normal((6, 12))
    W = rng.standard_normal((5, 12))
    M = np.eye(12)
    M[0, 0] = 0.2  # the second model shrinks one axis
    got = ripa_change(((Xp, Yp), (Xp @ M, Yp @ M)), (W, W @ M), rng=0, n_resamples=300)
    for vecs, (x, y), expected in ((W, (Xp, Yp), got.before), (W @ M, (Xp @ M, Yp @ M), got.after)):
        b = relation_vector(x, y)
        assert np.allclose(expected, ripa(vecs, b))
    assert np.all(got.low <= got.change + 1e-12) and np.all(got.change <= got.high + 1e-12)
    assert got.mean_abs.before == pytest.approx(np.mean(np.abs(got.before)))
