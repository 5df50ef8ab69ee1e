"""Likelihood aggregates (metric core) against values computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from embias_widgets.metrics import (
    attention_received,
    aul_score,
    aula_score,
    icat_score,
    pair_bias_score,
    pair_preferences,
    pll_score,
    stereoset_from_comparisons,
    stereoset_scores,
)


# -- sentence scores ---------------------------------------------------------------
def test_pll_is_the_sum_and_aul_the_mean() -> None:
    lp = [-1.0, -2.5, -0.5]
    assert pll_score(lp) == pytest.approx(-4.0)
    assert aul_score(lp) == pytest.approx(-4.0 / 3)


def test_aula_weights_each_token_without_renormalising() -> None:
    lp = np.array([-2.0, -4.0])
    a = np.array([0.25, 0.5])  # need not sum to 1
    assert aula_score(lp, a) == pytest.approx((0.25 * -2.0 + 0.5 * -4.0) / 2)


def test_attention_received_is_the_mean_over_layers_heads_queries() -> None:
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(3, 2, 5, 5))
    att = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)  # rows sum to 1
    received = attention_received(att)
    expected = [att[:, :, :, k].mean() for k in range(5)]
    np.testing.assert_allclose(received, expected)
    assert received.sum() == pytest.approx(1.0)  # mean of rows that each sum to 1


@pytest.mark.parametrize("bad", [[], [np.nan], [[1.0]]])
def test_sentence_scores_reject_empty_or_nonfinite(bad: list) -> None:
    with pytest.raises(ValueError, match="token"):
        pll_score(bad)


def test_aula_needs_one_weight_per_token() -> None:
    with pytest.raises(ValueError, match="one per token"):
        aula_score([-1.0, -2.0], [0.5])


def test_attention_received_needs_four_axes() -> None:
    with pytest.raises(ValueError, match="layers, heads, queries, keys"):
        attention_received(np.ones((2, 2, 2)))


# -- pair bias score -----------------------------------------------------------------
def test_pair_bias_score_in_both_conventions() -> None:
    stereo = [-10.0, -12.0, -8.0, -9.0]
    anti = [-11.0, -11.0, -9.0, -9.0]  # stereo wins 1 and 3; anti wins 2; pair 4 ties
    crows = pair_bias_score(stereo, anti)
    assert crows.score == pytest.approx(50.0)  # 2 of 4
    assert crows.reference == 50.0
    assert crows.convention == "crows"
    assert (crows.n, crows.n_stereo_preferred, crows.n_anti_preferred, crows.n_ties) == (4, 2, 1, 1)
    np.testing.assert_array_equal(crows.preferred, [1, -1, 1, 0])
    zhou = pair_bias_score(stereo, anti, convention="zhou")
    assert zhou.score == pytest.approx(0.0)
    assert zhou.reference == 0.0
    assert zhou.percent_stereo == crows.percent_stereo == pytest.approx(50.0)
    assert crows.centred == pytest.approx(0.0)
    assert "CrowS" in crows.label
    assert "Zhou" in zhou.label


def test_pair_bias_score_by_bias_type() -> None:
    stereo = [1.0, 1.0, 0.0, 0.0, 1.0]
    anti = [0.0, 0.0, 1.0, 1.0, 0.0]
    types = ["gender", "race", "gender", "race", "race"]
    result = pair_bias_score(stereo, anti, bias_types=types, convention="zhou")
    assert list(result.by_bias_type) == ["gender", "race"]
    gender, race = result.by_bias_type["gender"], result.by_bias_type["race"]
    assert (gender.n, gender.percent_stereo, gender.score) == (2, 50.0, 0.0)
    assert race.n == 3
    assert race.percent_stereo == pytest.approx(200 / 3)
    assert race.score == pytest.approx(200 / 3 - 50)
    assert result.score == pytest.approx(60.0 - 50.0)


def test_rounding_turns_near_ties_into_ties_as_crows_pairs_does() -> None:
    np.testing.assert_array_equal(pair_preferences([-1.0001], [-1.0004]), [1])
    np.testing.assert_array_equal(pair_preferences([-1.0001], [-1.0004], decimals=3), [0])


@pytest.mark.parametrize(
    ("stereo", "anti", "kwargs", "match"),
    [
        ([], [], {}, "no pairs"),
        ([1.0], [1.0, 2.0], {}, "equal length"),
        ([np.nan], [1.0], {}, "pair 0"),
        ([1.0], [0.0], {"convention": "percent"}, "convention"),
        ([1.0], [0.0], {"bias_types": ["a", "b"]}, "one per pair"),
    ],
)
def test_pair_bias_score_errors(stereo: list, anti: list, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pair_bias_score(stereo, anti, **kwargs)


# -- StereoSet -------------------------------------------------------------------------
def test_icat() -> None:
    assert icat_score(50.0, 90.0) == pytest.approx(90.0)
    assert icat_score(60.0, 80.0) == pytest.approx(80.0 * 40.0 / 50.0)
    assert icat_score(100.0, 80.0) == 0.0
    # the bias-bench leaderboard's bert-base-uncased row: SS 57.82, LMS 84.36 -> ICAT 71.16
    assert icat_score(57.82, 84.36) == pytest.approx(71.17, abs=0.02)


def test_stereoset_scores_per_item_by_hand() -> None:
    stereo = [-1.0, -5.0, -2.0, -3.0]
    anti = [-2.0, -4.0, -1.0, -4.0]  # stereo wins items 0 and 3 -> SS 50
    unrelated = [-3.0, -4.5, -1.5, -3.5]
    # related wins: item 0 both; item 1 only anti (-5 < -4.5 < -4); item 2 only anti;
    # item 3 only stereo
    res = stereoset_scores(stereo, anti, unrelated, average="item")
    assert res.ss == pytest.approx(50.0)
    assert res.lms == pytest.approx(100 * (1 + 0.5 + 0.5 + 0.5) / 4)
    assert res.icat == pytest.approx(res.lms)
    assert res.n == 4
    assert res.average == "item"


def test_stereoset_official_averages_over_targets() -> None:
    stereo = [0.0, 0.0, 0.0, -1.0]
    anti = [-1.0, -1.0, -1.0, 0.0]
    unrelated = [-9.0, -9.0, -9.0, -9.0]
    targets = ["nurse", "nurse", "nurse", "chess player"]
    types = ["profession"] * 4
    res = stereoset_scores(stereo, anti, unrelated, targets=targets, bias_types=types)
    assert res.ss == pytest.approx((100.0 + 0.0) / 2)  # per target, then the mean
    assert stereoset_scores(stereo, anti, unrelated, average="item").ss == pytest.approx(75.0)
    assert res.lms == pytest.approx(100.0)
    assert res.by_bias_type["profession"].ss == pytest.approx(50.0)


def test_stereoset_errors() -> None:
    with pytest.raises(ValueError, match="needs `targets`"):
        stereoset_scores([1.0], [0.0], [0.0])
    with pytest.raises(ValueError, match="unrelated_scores"):
        stereoset_scores([1.0], [0.0], [0.0, 1.0], average="item")
    with pytest.raises(ValueError, match="average"):
        stereoset_scores([1.0], [0.0], [0.0], average="macro")


def test_stereoset_from_separate_comparisons_equals_the_score_version() -> None:
    stereo = np.array([-1.0, -5.0, -2.0, -3.0])
    anti = np.array([-2.0, -4.0, -1.0, -4.0])
    unrelated = np.array([-3.0, -4.5, -1.5, -3.5])
    direct = stereoset_scores(stereo, anti, unrelated, average="item")
    compared = stereoset_from_comparisons(stereo > anti, stereo > unrelated, anti > unrelated, average="item")
    assert (compared.ss, compared.lms, compared.icat) == (direct.ss, direct.lms, direct.icat)
    with pytest.raises(ValueError, match="equal length"):
        stereoset_from_comparisons([True], [True, False], [True], average="item")


def test_percentages_carry_no_float_noise():
    """29 of 50 pairs is 58.0 exactly (``100 * 29 / 50``), not ``100 * 0.58`` = 57.99999999999999 (issue 21)."""
    import json

    from embias_widgets.metrics import pair_bias_score, stereoset_scores

    more = np.r_[np.ones(29), np.zeros(21)]
    result = pair_bias_score(more, np.zeros(50) + 0.5, bias_types=["a"] * 50)
    assert result.percent_stereo == 58.0 and result.by_bias_type["a"].percent_stereo == 58.0
    assert "57.99" not in json.dumps(result.percent_stereo)
    assert 100 * (29 / 50) != 58.0  # the noise the count-based formula avoids
    ss = stereoset_scores(more, np.zeros(50) + 0.5, np.zeros(50) - 1.0, average="item")
    assert ss.ss == 58.0
    assert stereoset_scores(more, np.zeros(50) + 0.5, np.zeros(50) - 1.0, targets=["t"] * 50).ss == 58.0
