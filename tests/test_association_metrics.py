"""WEAT effect size and association against hand computation and the papers."""

import math

import numpy as np
import pytest

from embias_widgets.metrics import effect_size, per_word_association, weat


def _cos(u, v):
    return float(np.dot(u, v) / np.linalg.norm(u) / np.linalg.norm(v))


def test_per_word_association_by_hand():
    w = np.array([[1.0, 0.0]])
    A = np.array([[1.0, 0.0], [1.0, 1.0]])  # cos 1, 1/sqrt2
    B = np.array([[0.0, 1.0], [-1.0, 0.0]])  # cos 0, -1
    mean = per_word_association(w, A, B)
    assert mean[0] == pytest.approx((1 + 1 / math.sqrt(2)) / 2 - (0 - 1) / 2)
    mx = per_word_association(w, A, B, variant="max")
    assert mx[0] == pytest.approx(1 - 0)


def test_weat_matches_definition_on_random_vectors():
    rng = np.random.default_rng(0)
    X, Y, A, B = (rng.normal(size=(n, 5)) for n in (4, 3, 5, 6))
    res = weat(X, Y, A, B)
    s = [np.mean([_cos(w, a) for a in A]) - np.mean([_cos(w, b) for b in B]) for w in np.vstack([X, Y])]
    sx, sy = s[:4], s[4:]
    assert res.statistic == pytest.approx(sum(sx) - sum(sy), rel=1e-12)
    d = (np.mean(sx) - np.mean(sy)) / np.std(s, ddof=1)
    assert res.effect_size == pytest.approx(d, rel=1e-12)
    assert weat(X, Y, A, B, ddof=0).effect_size == pytest.approx(
        (np.mean(sx) - np.mean(sy)) / np.std(s, ddof=0), rel=1e-12
    )
    np.testing.assert_allclose(res.association_x, sx, rtol=1e-12)
    assert res.exact and res.n_permutations == math.comb(7, 4)


@pytest.mark.parametrize("seed", range(5))
def test_proposition_2_single_word_sets(seed):
    # Ethayarajh et al. (2019), Proposition 2: |d| = 2 (ddof=0), sqrt(2) (ddof=1), whatever the words.
    x, y, a, b = np.random.default_rng(seed).normal(size=(4, 1, 20))
    assert abs(weat(x, y, a, b, ddof=0).effect_size) == pytest.approx(2.0)
    assert abs(weat(x, y, a, b, ddof=1).effect_size) == pytest.approx(math.sqrt(2))


def test_zero_variance_is_a_clear_undefined_result():
    x = np.array([[1.0, 0.0]])
    res = weat(x, x.copy(), np.array([[1.0, 1.0]]), np.array([[0.0, 1.0]]))
    assert res.effect_size is None
    assert "standard deviation is zero" in res.effect_size_note
    assert effect_size(np.array([0.5]), np.array([0.5])).defined is False


def test_dimension_mismatch_and_zero_vector_errors():
    with pytest.raises(ValueError, match="same dimension"):
        weat(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="zero vector"):
        weat(np.zeros((2, 3)), np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="`variant` must be one of"):
        per_word_association(np.ones((1, 2)), np.ones((1, 2)), np.ones((1, 2)), variant="median")


def test_weat_swapping_targets_flips_sign_and_tails():
    rng = np.random.default_rng(4)
    X, Y, A, B = (rng.normal(size=(5, 8)) for _ in range(4))
    r1, r2 = weat(X, Y, A, B), weat(Y, X, A, B, alternative="less")
    assert r1.effect_size == pytest.approx(-r2.effect_size)
    assert r1.pvalue == pytest.approx(r2.pvalue)
