"""Intervals of the likelihood, StereoSet and RIPA scores: against scipy (binomtest, bootstrap with the same
resamples of targets), a by-hand Wilson interval, and a loop over the public metric functions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from embias_widgets.metrics.likelihood import pair_bias_score, stereoset_from_comparisons
from embias_widgets.metrics.likelihood.pair_intervals import TIE_RULE, pair_score_interval, pair_score_test
from embias_widgets.metrics.likelihood.stereoset import _stereoset_one, icat_score
from embias_widgets.metrics.likelihood.stereoset_intervals import expanded_level, stereoset_intervals
from embias_widgets.metrics.projection import relation_vector
from embias_widgets.metrics.relation_intervals import ripa_intervals
from embias_widgets.metrics.score_intervals import (
    check_level,
    percentile_interval,
    t_interval,
    t_interval_from_sums,
    wilson_interval,
)


def _wilson_by_hand(k: int, n: int, level: float) -> tuple[float, float]:
    z = stats.norm.ppf((1 + level) / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("k", "n", "level"), [(7, 20, 0.95), (29, 50, 0.9), (1, 3, 0.99)])
def test_wilson_by_hand_and_scipy(k: int, n: int, level: float) -> None:
    iv = wilson_interval(k, n, level=level)
    assert (iv.low, iv.high) == pytest.approx(_wilson_by_hand(k, n, level), abs=1e-12)
    ci = stats.binomtest(k, n).proportion_ci(level, method="wilson")
    assert (iv.low, iv.high) == (ci.low, ci.high)
    assert wilson_interval(0, 0) is None


def test_pair_score_interval_ties_in_n_not_k_and_zhou_shift() -> None:
    stereo = [3.0, 2.0, 1.0, 1.0, 5.0, 0.0, 2.0]
    anti = [1.0, 1.0, 1.0, 2.0, 4.0, 0.0, 3.0]  # 3 stereo, 2 anti, 2 ties
    bias = pair_bias_score(stereo, anti)
    assert (bias.n, bias.n_stereo_preferred, bias.n_ties) == (7, 3, 2)
    iv = pair_score_interval(3, 7)
    ci = stats.binomtest(3, 7).proportion_ci(0.95, method="wilson")
    assert (iv.low, iv.high) == pytest.approx((100 * ci.low, 100 * ci.high), abs=1e-12)
    assert TIE_RULE in iv.method and "k = 3" in iv.method and "n = 7" in iv.method
    zhou = pair_score_interval(3, 7, reference=0.0)
    assert (zhou.low, zhou.high) == pytest.approx((iv.low - 50, iv.high - 50), abs=1e-12)
    test = pair_score_test(3, 7, 2)
    assert test["p_value"] == stats.binomtest(3, 5, 0.5).pvalue  # the sign test of the 5 decided pairs
    assert test["score_interval"]["level"] == 0.95 and pair_score_test(0, 0, 0)["score_interval"] is None


def test_t_interval_from_sums_equals_scipy() -> None:
    x = np.random.default_rng(0).random(37)
    lo, hi = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    a = t_interval(x, level=0.9)
    b = t_interval_from_sums(float(x.sum()), float(np.sum(x * x)), len(x), level=0.9)
    assert (a.low, a.high) == pytest.approx((lo, hi), abs=1e-12)
    assert (b.low, b.high) == pytest.approx((lo, hi), abs=1e-10)
    assert t_interval(x[:1]) is None


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "0.95", True, None])
def test_level_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="`level` must be a number strictly between 0 and 1"):
        check_level(bad)


def _stereoset_case(n: int = 60, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    targets = np.array([f"t{i % 7}" for i in range(n)], dtype=object)
    sw = (rng.random(n) < 0.6).astype(float)
    rw = ((rng.random(n) < 0.9).astype(float) + (rng.random(n) < 0.8)) / 2
    return sw, rw, targets


def test_stereoset_bootstrap_equals_scipy_with_the_same_resamples() -> None:
    """scipy draws the targets (the clusters); each draw's items are scored by the official aggregation with the
    draw as its own target, so a target drawn twice counts twice in the average."""
    sw, rw, targets = _stereoset_case()
    ivs = stereoset_intervals(sw, rw, targets, n_resamples=300, seed=5)
    names = list(dict.fromkeys(targets.tolist()))
    members = [np.flatnonzero(targets == t) for t in names]

    def score(ix: np.ndarray, which: int) -> float:
        items = np.concatenate([members[int(i)] for i in ix])
        labels = np.concatenate([[f"{int(i)}#{draw}"] * len(members[int(i)]) for draw, i in enumerate(ix)])
        ss, lms = _stereoset_one(sw[items], rw[items], labels, "target")
        return (ss, lms, icat_score(ss, lms))[which]

    wide = expanded_level(0.95, 6)  # Hesterberg's expanded percentile for 7 targets
    z = np.sqrt(7 / 6) * stats.t.ppf(0.975, 6)
    assert wide == pytest.approx(2 * stats.norm.cdf(z) - 1) and wide > 0.99
    for which, name in enumerate(("ss", "lms")):
        res = stats.bootstrap((np.arange(len(names)),), lambda ix, w=which: score(ix, w), n_resamples=300,
                              confidence_level=wide, method="percentile", rng=np.random.default_rng(5),
                              vectorized=False)
        np.testing.assert_allclose(ivs.replicates[:, which], res.bootstrap_distribution, atol=1e-9)
        got = getattr(ivs, name)
        assert (got.low, got.high) == pytest.approx(tuple(res.confidence_interval), abs=1e-9)
        assert "7 targets with replacement" in got.method and got.level == 0.95
        assert "only 7 targets" in got.method  # too few clusters: the text warns
    icat = np.array([icat_score(s, m) for s, m in ivs.replicates[:, :2]])
    np.testing.assert_allclose(ivs.replicates[:, 2], icat, atol=1e-12)
    assert ivs.units == "targets" and ivs.n_units == 7


def test_icat_upper_end_is_lms_upper_end_when_ss_interval_holds_50() -> None:
    """At SS = 50 ICAT = LMS min(SS, 100 - SS)/50 is biased low; its interval then reaches LMS's upper end."""
    rng = np.random.default_rng(0)
    targets = np.repeat([f"t{i}" for i in range(40)], 4)
    sw = (rng.random(160) < 0.5).astype(float)
    rw = ((rng.random(160) < 0.85).astype(float) + (rng.random(160) < 0.85)) / 2
    ivs = stereoset_intervals(sw, rw, targets, n_resamples=500, seed=1)
    assert ivs.ss.low <= 50 <= ivs.ss.high
    tail = (1 - expanded_level(0.95, 39)) / 2
    q = np.quantile(ivs.replicates[:, 2], [tail, 1 - tail])
    assert ivs.icat.low == pytest.approx(q[0]) and ivs.icat.high == pytest.approx(max(q[1], ivs.lms.high))
    assert ivs.icat.high > q[1] and "holds 50" in ivs.icat.method
    far = stereoset_intervals(np.ones(160), rw, targets, n_resamples=500, seed=1)  # SS 100: no kink in reach
    q = np.quantile(far.replicates[:, 2], [tail, 1 - tail])
    assert (far.icat.low, far.icat.high) == pytest.approx(tuple(q)) and "excludes 50" in far.icat.method


def test_stereoset_item_average_and_seed_reproducible() -> None:
    sw, rw, _ = _stereoset_case(45, 3)
    a = stereoset_intervals(sw, rw, average="item", n_resamples=200, seed=9)
    b = stereoset_intervals(sw, rw, average="item", n_resamples=200, seed=9)
    idx = np.random.default_rng(9).integers(0, len(sw), (200, len(sw)))
    np.testing.assert_allclose(a.replicates[:, 0], 100 * sw[idx].mean(axis=1), atol=1e-12)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert stereoset_intervals(sw, rw, average="item", n_resamples=200, seed=10).ss != a.ss


def test_stereoset_score_carries_its_intervals() -> None:
    sw, _, targets = _stereoset_case()
    rng = np.random.default_rng(2)
    u1, u2 = rng.random(len(sw)) < 0.9, rng.random(len(sw)) < 0.8
    score = stereoset_from_comparisons(sw > 0, u1, u2, targets=targets, bias_types=["a", "b", "c"] * 20)
    got = score.intervals(n_resamples=250, seed=4)
    want = stereoset_intervals(sw, (u1.astype(float) + u2) / 2, targets, n_resamples=250, seed=4)
    assert got.ss == want.ss and got.icat == want.icat
    assert got.ss.low <= score.ss <= got.ss.high
    sub = score.by_bias_type["b"].intervals(n_resamples=50)
    assert sub is not None and sub.lms.level == 0.95


def test_ripa_bootstrap_equals_a_loop_over_relation_vector() -> None:
    rng = np.random.default_rng(0)
    p, dim = 8, 20
    X, Y, W = rng.normal(size=(p, dim)), rng.normal(size=(p, dim)) + 0.3, rng.normal(size=(12, dim))
    got = ripa_intervals(X, Y, W, n_resamples=400, seed=3, batch=64)
    idx = np.random.default_rng(3).integers(0, p, (400, p))
    want = np.array([W @ relation_vector(X[i], Y[i]).vector for i in idx])
    np.testing.assert_allclose(got.replicates, want, atol=1e-9)
    # bias-corrected: centre 2 r - mean(r*), half-width t(p - 1) sqrt(p / (p - 1)) sd(r*)
    estimate = W @ relation_vector(X, Y).vector
    centre = 2 * estimate - want.mean(axis=0)
    half = stats.t.ppf(0.975, p - 1) * np.sqrt(p / (p - 1)) * want.std(axis=0, ddof=1)
    np.testing.assert_allclose(got.estimate, estimate, atol=1e-12)
    np.testing.assert_allclose(got.bias, want.mean(axis=0) - estimate, atol=1e-9)
    np.testing.assert_allclose(got.low, centre - half, atol=1e-9)
    np.testing.assert_allclose(got.high, centre + half, atol=1e-9)
    assert "bias-corrected bootstrap" in got.method and "population relation vector" in got.method
    again = ripa_intervals(X, Y, W, n_resamples=400, seed=3)
    np.testing.assert_array_equal(again.low, got.low)


def test_ripa_bootstrap_undefined_replicates_and_sign_rule() -> None:
    X = np.array([[1.0, 0.0], [2.0, 2.0]])
    Y = np.array([[1.0, 0.0], [1.0, 1.0]])  # pair 0 has no difference: a replicate of only it is undefined
    W = np.array([[3.0, -1.0]])
    got = ripa_intervals(X, Y, W, n_resamples=200, seed=0)
    idx = np.random.default_rng(0).integers(0, 2, (200, 2))
    only_zero = np.all(idx == 0, axis=1)
    assert got.n_undefined == int(only_zero.sum()) > 0
    assert np.all(np.isnan(got.replicates[only_zero]))
    b = relation_vector(X[1:], Y[1:]).vector  # every defined replicate uses pair 1's direction, sign kept
    np.testing.assert_allclose(got.replicates[~only_zero, 0], W[0] @ b, atol=1e-12)


def test_percentile_interval_columns_with_no_finite_value() -> None:
    reps = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    low, high = percentile_interval(reps, level=0.5, axis=0)
    assert low[0] == pytest.approx(1.5) and high[0] == pytest.approx(2.5) and np.isnan(low[1])
    assert percentile_interval(np.array([np.nan])) is None


def test_metric_py_sub_score_interval_leaves_ties_out() -> None:
    from embias_widgets.metrics.likelihood.pair_intervals import decided_interval

    iv = decided_interval(3, 5)  # 3 of 7 pairs, 2 of them ties: metric.py's sub-score is 3 of 5
    ci = stats.binomtest(3, 5).proportion_ci(0.95, method="wilson")
    assert (iv.low, iv.high) == pytest.approx((100 * ci.low, 100 * ci.high)) and "non-tied" in iv.method
    assert decided_interval(0, 0) is None
