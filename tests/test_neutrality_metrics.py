"""Neutrality scores (Dev et al. 2020, section 2.3): hand-computed values, streaming equals one pass."""

import itertools

import numpy as np
import pytest

from embias_widgets.metrics.neutrality import NeutralityStats, TopPairs, scores_from_probs

# 4 pairs, 2 word pairs: (nurse, man) x 2 templates, (nurse, woman) x 1, (cook, man) x 1
P = np.array([
    [0.1, 0.8, 0.1],   # neutral, n > .5, n > .7
    [0.6, 0.3, 0.1],   # entailment
    [0.2, 0.6, 0.2],   # neutral, n > .5
    [0.1, 0.2, 0.7],   # contradiction
])
PW = ["nurse", "nurse", "nurse", "cook"]
HW = ["man", "man", "woman", "man"]


def test_pair_level_by_hand():
    s = NeutralityStats.from_probs(P, PW, HW).pair_level()
    assert s["net_neutral"] == pytest.approx((0.8 + 0.3 + 0.6 + 0.2) / 4)
    assert s["fraction_neutral"] == pytest.approx(2 / 4)
    assert s["threshold_0.5"] == pytest.approx(2 / 4)
    assert s["threshold_0.7"] == pytest.approx(1 / 4)
    assert s == pytest.approx(scores_from_probs(P))


def test_word_level_by_hand():
    stats = NeutralityStats.from_probs(P, PW, HW)
    # word-pair means: (nurse, man) = (.35, .55, .1); (nurse, woman) = (.2, .6, .2); (cook, man) = (.1, .2, .7)
    np.testing.assert_allclose(stats.word_pair_means(), [[0.35, 0.55, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    w = stats.word_level()
    assert w["net_neutral"] == pytest.approx((0.55 + 0.6 + 0.2) / 3)
    assert w["fraction_neutral"] == pytest.approx(2 / 3)
    assert w["threshold_0.5"] == pytest.approx(2 / 3)
    assert w["threshold_0.7"] == pytest.approx(0.0)
    assert stats.n_pairs == 4 and stats.n_word_pairs == 3


def test_threshold_is_strictly_above():
    s = NeutralityStats.from_probs(np.array([[0.25, 0.5, 0.25]]), ["a"], ["b"], taus=(0.5, 0.49)).pair_level()
    assert s["threshold_0.5"] == 0.0 and s["threshold_0.49"] == 1.0


def test_streaming_in_any_chunks_equals_one_pass():
    rng = np.random.default_rng(0)
    n = 2000
    P = rng.dirichlet([1, 2, 1], size=n)
    pw = [f"p{i}" for i in rng.integers(0, 7, n)]
    hw = [f"h{i}" for i in rng.integers(0, 3, n)]
    taus = (0.3, 0.5, 0.7, 0.9)
    whole = NeutralityStats.from_probs(P, pw, hw, taus)
    cuts = [0, 1, 17, 500, 501, 1400, n]
    parts = [NeutralityStats.from_probs(P[a:b], pw[a:b], hw[a:b], taus) for a, b in itertools.pairwise(cuts)]
    merged = NeutralityStats.combine(parts, taus)
    assert merged.pair_level() == pytest.approx(whole.pair_level(), rel=1e-12)
    assert merged.word_level() == pytest.approx(whole.word_level(), rel=1e-12)
    # direct non-streaming computation of both levels
    assert whole.pair_level() == pytest.approx(scores_from_probs(P, taus), rel=1e-12)
    keys = sorted(set(zip(pw, hw, strict=True)))
    means = np.array([P[[i for i in range(n) if (pw[i], hw[i]) == k]].mean(axis=0) for k in keys])
    assert whole.word_level()["net_neutral"] == pytest.approx(means[:, 1].mean(), rel=1e-12)
    assert whole.word_level()["threshold_0.3"] == pytest.approx((means[:, 1] > 0.3).mean())
    assert whole.word_level()["fraction_neutral"] == pytest.approx((means.argmax(axis=1) == 1).mean())


def test_slices_restrict_to_slot_values():
    stats = NeutralityStats.from_probs(P, PW, HW)
    man = stats.slice(hypothesis_word="man").pair_level()
    assert man == pytest.approx(scores_from_probs(P[[0, 1, 3]]))
    one = stats.slice("nurse", "woman").pair_level()
    assert one["net_neutral"] == pytest.approx(0.6)
    assert stats.slice(["nurse", "cook"]).n_pairs == 4
    with pytest.raises(ValueError, match="no scored pairs with premise word 'pilot'"):
        stats.slice("pilot")


def test_top_word_pairs_by_mean():
    stats = NeutralityStats.from_probs(P, PW, HW)
    top = stats.top_word_pairs(2, by="entailment")
    assert [(r["premise_word"], r["hypothesis_word"]) for r in top] == [("nurse", "man"), ("nurse", "woman")]
    assert top[0]["entailment"] == pytest.approx(0.35) and top[0]["n_pairs"] == 2
    assert stats.top_word_pairs(1, by="contradiction")[0]["premise_word"] == "cook"
    with pytest.raises(ValueError, match="`by` must be one of"):
        stats.top_word_pairs(1, by="bias")


def test_top_pairs_across_chunks_equals_one_pass_with_ties_to_the_smaller_index():
    v = np.array([0.5, 0.9, 0.5, 0.1, 0.9, 0.7])
    whole = TopPairs(3).update(v, np.arange(6))
    assert whole.indices.tolist() == [1, 4, 5]
    parts = TopPairs(3).update(v[3:], np.arange(3, 6)).merge(TopPairs(3).update(v[:3], np.arange(3)))
    assert parts.indices.tolist() == [1, 4, 5]
    np.testing.assert_array_equal(parts.values, [0.9, 0.9, 0.7])
    assert TopPairs(4).update(v, np.arange(6)).indices.tolist() == [1, 4, 5, 0]


def test_bad_input():
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        NeutralityStats.from_probs(np.ones((2, 2)), ["a", "b"], ["c", "d"])
    with pytest.raises(ValueError, match="2 probability rows but 1 premise words"):
        NeutralityStats.from_probs(P[:2], ["a"], ["c", "d"])
    with pytest.raises(ValueError, match="undefined"):
        NeutralityStats().pair_level()
    with pytest.raises(ValueError, match="thresholds"):
        NeutralityStats(taus=(1.5,))
    with pytest.raises(ValueError, match="cannot merge"):
        NeutralityStats(taus=(0.5,)).merge(NeutralityStats(taus=(0.7,)))
