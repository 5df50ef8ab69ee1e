"""The intervals of WEAT's d and of the association difference (mean_X s - mean_Y s): the default BCa interval
against scipy.stats.bootstrap(method="BCa") on the same resamples and on a case computed by hand, the
percentile option, the conditional (targets only) option, and what a study, its JSON and the CLI say of them."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from _word_sets import KEYS
from _word_sets import cosines as _cosines
from _word_sets import random_sets as _sets
from scipy import stats
from scipy.special import ndtr, ndtri

from embias_widgets.analysis import AssociationTest, run_suite
from embias_widgets.cli import main
from embias_widgets.metrics import association_intervals, bca_interval, effect_size_interval, weat
from embias_widgets.metrics.bootstrap import (
    _replicate_statistics,
    jackknife_statistics,
    percentile_interval,
    resample_counts,
)


def _direct(sets, ix, iy, ia, ib, variant, ddof, statistic):
    """The statistic recomputed from the resampled vectors by weat() (d) or from its associations (the
    difference), for scipy's resamples and jackknife samples (any leading shape)."""
    shape = np.broadcast_shapes(ix.shape[:-1], iy.shape[:-1], ia.shape[:-1], ib.shape[:-1])
    ix, iy, ia, ib = (np.broadcast_to(v, shape + v.shape[-1:]) for v in (ix, iy, ia, ib))
    out = np.empty(shape)
    for at in np.ndindex(shape):
        res = weat(sets["targ1"][ix[at]], sets["targ2"][iy[at]], sets["attr1"][ia[at]], sets["attr2"][ib[at]],
                   variant=variant, ddof=ddof, n_samples=2, method="sampled")
        if statistic == "difference":
            out[at] = res.association_x.mean() - res.association_y.mean()
        else:
            out[at] = np.nan if res.effect_size is None else res.effect_size
    return out


@pytest.mark.parametrize(("variant", "ddof", "statistic", "resample"), [
    ("mean", 1, "d", "all"), ("max", 1, "d", "all"), ("mean", 0, "d", "all"), ("mean", 1, "difference", "all"),
    ("mean", 1, "d", "targets"), ("max", 1, "difference", "targets"),
])
def test_bca_equals_scipy_bootstrap_on_the_same_resamples(variant, ddof, statistic, resample):
    """scipy draws the index resamples and runs its BCa (its jackknife leaves one index out of each sample in
    turn, the statistic recomputed by weat() on the vectors); our vectorised replicates from the same indices,
    our jackknife and our BCa must give its distribution and interval to 1e-10."""
    rng = np.random.default_rng(3)
    sets = _sets(rng)
    cos_a, cos_b, n_x = _cosines(sets)
    full = {k: np.arange(len(sets[k])) for k in KEYS}
    drawn: list[tuple[np.ndarray, ...]] = []

    def stat(*idx, axis=-1):
        idx = dict(zip(KEYS if resample == "all" else KEYS[:2], idx, strict=True))
        ix, iy = idx["targ1"], idx["targ2"]
        ia, ib = idx.get("attr1", full["attr1"]), idx.get("attr2", full["attr2"])
        if ix.ndim == 2 and iy.ndim == 2 and ix.shape[1] == n_x and iy.shape[1] == len(sets["targ2"]):
            drawn.append((ix, iy, ia, ib))
        return _direct(sets, ix, iy, ia, ib, variant, ddof, statistic)

    data = tuple(full[k] for k in (KEYS if resample == "all" else KEYS[:2]))
    res = stats.bootstrap(data, stat, n_resamples=300, batch=100, vectorized=True, paired=False, method="BCa",
                          confidence_level=0.9, rng=np.random.default_rng(8))
    resamples = [b for b in drawn if b[0].shape[0] == 100]
    assert len(resamples) == 3  # the three batches of resamples (the jackknife calls are (n-1)-long)
    ix, iy = (np.vstack([b[i] for b in resamples]) for i in range(2))
    if resample == "all":
        ia, ib = (np.vstack([b[i] for b in resamples]) for i in (2, 3))
        counts = (resample_counts(ia, cos_a.shape[1]), resample_counts(ib, cos_b.shape[1]))
    else:
        counts = (None, None)
    d, difference = _replicate_statistics(cos_a, cos_b, n_x, *counts, ix, iy, variant, ddof)
    ours = d if statistic == "d" else difference
    np.testing.assert_allclose(ours, res.bootstrap_distribution, rtol=1e-10, atol=1e-14)
    estimate = float(_direct(sets, *(full[k] for k in KEYS), variant, ddof, statistic))
    jack = jackknife_statistics(cos_a, cos_b, n_x, variant=variant, ddof=ddof, resample=resample)
    low, high, _, _ = bca_interval(ours, estimate, [v[0 if statistic == "d" else 1] for v in jack.values()], 0.9)
    assert (low, high) == pytest.approx((res.confidence_interval.low, res.confidence_interval.high), rel=1e-10)


def test_jackknife_values_are_the_statistic_with_one_item_left_out():
    sets = _sets(np.random.default_rng(5))
    cos_a, cos_b, n_x = _cosines(sets)
    jack = jackknife_statistics(cos_a, cos_b, n_x, variant="max")
    for key in KEYS:
        for i in range(len(sets[key])):
            fewer = {**sets, key: np.delete(sets[key], i, axis=0)}
            res = weat(*(fewer[k] for k in KEYS), variant="max", n_samples=2, method="sampled")
            assert jack[key][0][i] == pytest.approx(res.effect_size, abs=1e-12)
            assert jack[key][1][i] == pytest.approx(res.association_x.mean() - res.association_y.mean(), abs=1e-12)
    assert set(jackknife_statistics(cos_a, cos_b, n_x, resample="targets")) == {"targ1", "targ2"}


def test_bca_by_hand_when_only_the_targets_vary():
    """One word per attribute set, two target words per set: s(x1) = 1, s(x2) = 0.2, s(y1) = -1, s(y2) = -0.2
    (cosines with a = (1, 0) and b = (0, 1)). The attribute sets of one word add nothing to the acceleration; the
    jackknife leaves x1, x2, y1, y2 out in turn, and a, z0 and the two quantile levels follow Efron's formulas,
    written out here."""
    X = np.array([[1.0, 0.0], [0.8, 0.6]])
    Y = np.array([[0.0, 1.0], [0.6, 0.8]])
    A, B = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    ci = effect_size_interval(X, Y, A, B, n_resamples=4_000, rng=1, confidence_level=0.9)
    d_hat = (0.6 - (-0.6)) / np.std([1, 0.2, -1, -0.2], ddof=1)

    def d_of(sx, sy):
        return (np.mean(sx) - np.mean(sy)) / np.std([*sx, *sy], ddof=1)

    jack_x = np.array([d_of([0.2], [-1, -0.2]), d_of([1], [-1, -0.2])])
    jack_y = np.array([d_of([1, 0.2], [-0.2]), d_of([1, 0.2], [-1])])
    u = [(2 - 1) * (j.mean() - j) for j in (jack_x, jack_y)]
    a = sum(np.sum(v**3) / 8 for v in u) / (6 * sum(np.sum(v**2) / 4 for v in u) ** 1.5)
    assert a == pytest.approx(0, abs=1e-15)  # two values a set lie symmetrically about their mean: no skew
    r = ci.replicates[np.isfinite(ci.replicates)]
    tie = 1e-12  # replicates equal to d_hat but for rounding are ties (half below, half above)
    z0 = ndtri((np.sum(r < d_hat - tie) + np.sum(r <= d_hat + tie)) / (2 * r.size))
    assert np.sum(np.abs(r - d_hat) < tie) > 100  # the case has many exact ties: the point of it
    levels = [ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (ndtri(0.05), ndtri(0.95))]
    assert ci.method == "BCa" and ci.acceleration == pytest.approx(a, abs=1e-15)
    assert ci.bias_correction == pytest.approx(z0, abs=1e-12)
    assert (ci.low, ci.high) == pytest.approx(tuple(np.quantile(r, levels)), rel=1e-12)
    # the percentile option: the plain quantiles of the same replicates
    pct = effect_size_interval(X, Y, A, B, n_resamples=4_000, rng=1, confidence_level=0.9, method="percentile")
    np.testing.assert_array_equal(pct.replicates, ci.replicates)
    assert (pct.low, pct.high) == (np.quantile(r, 0.05), np.quantile(r, 0.95)) and pct.method == "percentile"


def test_an_asymmetric_case_gives_the_acceleration_of_efrons_formula():
    sets = _sets(np.random.default_rng(9), sizes=(5, 6, 4, 3), shift=0.4)
    cos_a, cos_b, n_x = _cosines(sets)
    jack = jackknife_statistics(cos_a, cos_b, n_x)
    num = sum(np.sum(((len(j) - 1) * (j.mean() - j)) ** 3) / len(j) ** 3 for j, _ in jack.values())
    den = sum(np.sum(((len(j) - 1) * (j.mean() - j)) ** 2) / len(j) ** 2 for j, _ in jack.values())
    ci = effect_size_interval(*(sets[k] for k in KEYS), n_resamples=500, rng=2)
    assert ci.acceleration == pytest.approx(num / (6 * den**1.5), rel=1e-12) and ci.acceleration != 0


def test_bca_falls_back_to_the_percentile_interval_and_says_why():
    """x2 and y1 have the same s: without x1 the pooled s has no spread, so a jackknife d is undefined."""
    X = np.array([[1.0, 0.0], [1.0, 1.0]])
    Y = np.array([[1.0, 1.0]])
    A, B = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    ci = effect_size_interval(X, Y, A, B, n_resamples=300, rng=0)
    assert ci.method == "percentile" and "acceleration is undefined" in ci.fallback
    assert (ci.low, ci.high) == percentile_interval(ci.replicates, 0.95) and ci.n_undefined > 0
    with pytest.raises(ValueError, match="one side of the estimate"):
        bca_interval(np.array([1.0, 2.0, 3.0]), 5.0, [], 0.95)


def test_options_are_checked():
    sets = _sets(np.random.default_rng(1))
    with pytest.raises(ValueError, match="'BCa' or 'percentile', got 'bca'"):
        association_intervals(*(sets[k] for k in KEYS), method="bca")
    with pytest.raises(ValueError, match="`resample` must be 'all'"):
        association_intervals(*(sets[k] for k in KEYS), resample="words")


def test_run_records_both_intervals_their_method_and_estimand(glove):
    study = AssociationTest("weat6", model=glove)
    res = study.run(n_resamples=500)
    record = res.to_dict()
    iv, diff = record["effect_size_interval"], record["association_difference_interval"]
    assert set(iv) == set(diff) == {"low", "high", "level", "method"}
    assert iv["method"].startswith("BCa bootstrap") and "over the populations of words" in iv["method"]
    assert "mean_X s - mean_Y s" in diff["method"] and diff["low"] < record["association_difference"] < diff["high"]
    frame = res.frame()
    by_set = frame.groupby("set")["association"].mean()
    assert record["association_difference"] == pytest.approx(by_set["targ1"] - by_set["targ2"], abs=1e-12)
    vectors = [glove.encode(list(res.items[k])).vectors for k in KEYS]
    again = association_intervals(*vectors, n_resamples=500, rng=0)
    assert (iv["low"], iv["high"]) == pytest.approx((again.effect_size.low, again.effect_size.high), rel=1e-12)
    assert (diff["low"], diff["high"]) == pytest.approx((again.association_difference.low,
                                                          again.association_difference.high), rel=1e-12)
    pct = study.run(n_resamples=500, interval_method="percentile").to_dict()["effect_size_interval"]
    assert pct["method"].startswith("percentile bootstrap")
    assert (pct["low"], pct["high"]) == pytest.approx(percentile_interval(again.effect_size.replicates, 0.95))
    cond = study.run(n_resamples=500, resample="targets").to_dict()["effect_size_interval"]
    expected = association_intervals(*vectors, n_resamples=500, rng=0, resample="targets").effect_size
    assert (cond["low"], cond["high"]) == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert "A and B kept as they are" in cond["method"] and "with these attribute words" in cond["method"]
    assert "BCa" in res.summary() and "mean_X s - mean_Y s" in res.summary()
    with pytest.raises(ValueError, match="'BCa' or 'percentile'"):
        study.run(interval_method="BCA")


def test_suite_frame_and_cli_carry_the_difference_and_the_options(glove, capsys):
    suite = run_suite(["weat6"], [glove], n_resamples=300, progress=False, resample="targets")
    frame = suite.frame()
    assert {"association_difference", "association_difference_low", "association_difference_high"} <= set(frame)
    record = suite.records()[0]
    assert frame.loc[0, "association_difference_low"] == record["association_difference_interval"]["low"]
    assert "A and B kept" in record["effect_size_interval"]["method"]
    out = io.StringIO()
    assert main(["weat", "weat6", "--resamples", "300", "--interval", "percentile", "--resample", "targets",
                 "--format", "json"], out=out) == 0
    record = json.loads(out.getvalue())
    assert record["effect_size_interval"]["method"].startswith("percentile") and record["story"] is None
    assert "A and B kept" in record["association_difference_interval"]["method"]
    out = io.StringIO()
    assert main(["weat", "weat6", "--resamples", "300"], out=out) == 0
    text = out.getvalue()
    assert "assoc_diff_interval" in text and "intervals: BCa bootstrap" in text
    with pytest.raises(SystemExit) as stop:
        main(["weat", "weat6", "--interval", "studentized"])
    assert stop.value.code == 2 and "--interval" in capsys.readouterr().err


def test_runs_in_a_setting_where_calibration_fell_short_say_so(glove):
    """The calibration suite found BCa at about 91% with 8 widely spread words a set and d = 1.5, and the
    conditional interval at 71-90% with 3 target words: runs in those settings carry a note; others none."""
    weat6 = AssociationTest("weat6", model=glove).run(n_resamples=200)
    assert any("about 91% of calibration runs" in n for n in weat6.notes)
    assert not any("calibration" in n for n in AssociationTest("weat1", model=glove).run(n_resamples=200).notes)
    assert not any("calibration" in n for n in AssociationTest("weat6", model=glove).run(
        confidence_interval=False).notes)
    small = AssociationTest(targ1=["rose", "tulip", "lily"], targ2=["ant", "wasp", "flea"],
                            attr1=["love", "peace", "joy"], attr2=["hatred", "war", "pain"], model=glove)
    assert any("only 71-90%" in n for n in small.run(n_resamples=200, resample="targets").notes)
    assert not any("calibration" in n for n in small.run(n_resamples=200).notes)  # BCa held at 3 words a set
