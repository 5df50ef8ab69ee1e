"""Pair scores with ties: the published score stays metric.py's (a tie in n, never in k), the test is the exact
sign test of the decided pairs (scipy ``binomtest(k, n - ties)``), the decided share carries its own Wilson
interval; hand-computed cases and the exact size of both tests."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from embias_widgets.metrics.likelihood import pair_bias_score
from embias_widgets.metrics.likelihood.pair_intervals import (
    P_VALUE_METHOD,
    TIE_RULE,
    decided_interval,
    pair_score_test,
    sign_test_p_value,
)

# 9 stereo-preferred, 1 anti-preferred, 5 ties over 15 pairs
STEREO = [2.0] * 9 + [0.0] + [1.0] * 5
ANTI = [1.0] * 9 + [1.0] + [1.0] * 5


def test_sign_test_by_hand() -> None:
    # 9 of 10 decided pairs: P(K >= 9) = (C(10,9) + C(10,10)) / 2^10 = 11/1024, two-sided 22/1024
    assert sign_test_p_value(9, 10) == pytest.approx(22 / 1024, abs=1e-15)
    assert sign_test_p_value(3, 5) == 1.0  # symmetric: no side
    assert sign_test_p_value(0, 0) is None  # every pair a tie: nothing to test


def test_pair_bias_score_returns_the_sign_test_as_p_value() -> None:
    bias = pair_bias_score(STEREO, ANTI, bias_types=["a"] * 7 + ["b"] * 8,
                           directions=["stereo", "antistereo"] * 7 + ["stereo"])
    assert (bias.n, bias.n_stereo_preferred, bias.n_ties, bias.n_decided) == (15, 9, 5, 10)
    assert bias.percent_stereo == 60.0  # metric.py's score: 9 of 15, the ties in n
    assert bias.percent_of_decided == 90.0
    assert bias.p_value == stats.binomtest(9, 10, 0.5).pvalue == pytest.approx(22 / 1024)
    for group in [*bias.by_bias_type.values(), *bias.by_direction.values()]:
        k, decided = group.n_stereo_preferred, group.n - group.n_ties
        assert group.p_value == (None if decided == 0 else stats.binomtest(k, decided, 0.5).pvalue)
    assert bias.by_bias_type["a"].n_decided == 7 and bias.by_bias_type["b"].n_ties == 5


def test_all_ties_have_no_test_and_no_decided_share() -> None:
    bias = pair_bias_score([1.0, 2.0], [1.0, 2.0])
    assert bias.p_value is None and bias.percent_of_decided is None and bias.score == 0.0
    test = pair_score_test(0, 2, 2)
    assert test["p_value"] is None and test["percent_of_decided_interval"] is None
    assert test["score_interval"] is not None and test["n_decided"] == 0


def test_pair_score_test_record() -> None:
    test = pair_score_test(9, 15, 5, level=0.9)
    ci = stats.binomtest(9, 15).proportion_ci(0.9, method="wilson")
    assert (test["score_interval"]["low"], test["score_interval"]["high"]) == pytest.approx((100 * ci.low,
                                                                                            100 * ci.high))
    assert TIE_RULE in test["score_interval"]["method"] and "expected published score" in \
        test["score_interval"]["method"]
    dec = stats.binomtest(9, 10).proportion_ci(0.9, method="wilson")
    assert (test["percent_of_decided_interval"]["low"], test["percent_of_decided_interval"]["high"]) == \
        pytest.approx((100 * dec.low, 100 * dec.high))
    assert test["percent_of_decided"] == 90.0 and test["n_decided"] == 10
    assert test["p_value"] == pytest.approx(22 / 1024) and test["p_value_method"] == P_VALUE_METHOD
    zhou = pair_score_test(9, 15, 5, reference=0.0, level=0.9)
    assert zhou["score_interval"]["low"] == pytest.approx(test["score_interval"]["low"] - 50, abs=1e-9)
    assert zhou["percent_of_decided"] == 90.0  # a plain share of the decided pairs in either convention
    iv = decided_interval(9, 10)
    assert "decided pairs" in iv.method and "no preference" in iv.method


@pytest.mark.parametrize(("k", "n", "ties"), [(3, 2, 0), (1, 3, 3), (1, 3, -1), (1, 3, 1.5), (1, 3, True)])
def test_pair_score_test_refuses_impossible_counts(k: int, n: int, ties: object) -> None:
    with pytest.raises(ValueError, match="need whole counts"):
        pair_score_test(k, n, ties)


def _rejects(p_of_k, n: int, alpha: float = 0.05) -> np.ndarray:
    return np.array([p_of_k(k) < alpha for k in range(n + 1)])


def test_exact_size_with_ties_old_test_on_n_against_the_sign_test() -> None:
    """No preference among decided pairs, 10% ties, CrowS-Pairs' 1,508 pairs: the binomial test of k of n says
    "anti-stereotypical" almost always (exactly computed), the sign test holds alpha for every number of ties."""
    n, p_tie = 1_508, 0.10
    k_dist = stats.binom.pmf(np.arange(n + 1), n, (1 - p_tie) / 2)  # k counts stereo wins among all n pairs
    old = _rejects(lambda k: stats.binomtest(k, n, 0.5).pvalue, n)
    assert float(k_dist @ old) > 0.95
    for n_decided in (1_300, 1_357, 1_400):  # the sign test's size given any number of decided pairs
        dist = stats.binom.pmf(np.arange(n_decided + 1), n_decided, 0.5)
        new = _rejects(lambda k, m=n_decided: sign_test_p_value(k, m), n_decided)
        assert float(dist @ new) <= 0.05
