"""Sense WEAT (Zhou et al. 2022 eqs. 1-3, 7) against hand-computed values and plain WEAT."""

from __future__ import annotations

import numpy as np
import pytest

from embias_widgets.metrics import mean_sense_vectors, sense_weat, weat
from embias_widgets.metrics.senses import max_sense_association


def _unit(deg: float) -> np.ndarray:
    r = np.deg2rad(deg)
    return np.array([np.cos(r), np.sin(r)])


def test_hand_computed_max_association_and_winners():
    # word w has two senses at 0 and 90 degrees; A has one word with senses at 80 and 180,
    # B one word with a sense at 30. Max over pairs: vs A cos(10 deg) (sense 1 with A sense 0),
    # vs B cos(30 deg) (sense 0 with B sense 0).
    w = np.vstack([_unit(0), _unit(90)])
    A = [np.vstack([_unit(80), _unit(180)])]
    B = [_unit(30)]
    s, win = max_sense_association([w], A, B)
    assert s[0] == pytest.approx(np.cos(np.deg2rad(10)) - np.cos(np.deg2rad(30)))
    assert (win.target_sense_a[0], win.attribute_a[0], win.attribute_sense_a[0]) == (1, 0, 0)
    assert (win.target_sense_b[0], win.attribute_b[0], win.attribute_sense_b[0]) == (0, 0, 0)
    assert win.cosine_a[0] == pytest.approx(np.cos(np.deg2rad(10)))


def test_negative_similarities_keep_the_true_maximum():
    # the reference script starts its running max at 0: with all cosines negative it keeps a stale key
    w = [_unit(0)]
    A = [np.vstack([_unit(170), _unit(120)])]  # cosines -0.985, -0.5
    B = [_unit(180)]  # cosine -1
    s, win = max_sense_association(w, A, B)
    assert s[0] == pytest.approx(-0.5 - (-1.0))
    assert win.attribute_sense_a[0] == 1


def test_hand_computed_effect_size_of_sense_weat():
    X = [_unit(0), _unit(10)]
    Y = [_unit(90), _unit(100)]
    A = [_unit(5)]
    B = [_unit(95)]
    res = sense_weat(X, Y, A, B).result
    c = lambda a, b: np.cos(np.deg2rad(a - b))  # noqa: E731
    s = np.array([c(0, 5) - c(0, 95), c(10, 5) - c(10, 95), c(90, 5) - c(90, 95), c(100, 5) - c(100, 95)])
    d = (s[:2].mean() - s[2:].mean()) / s.std(ddof=1)
    assert res.effect_size == pytest.approx(d)
    assert res.exact and res.n_permutations == 6
    assert res.pvalue == pytest.approx(1 / 6)  # the observed split is the largest of C(4, 2) = 6
    assert res.variant == "max"


def test_one_sense_per_word_equals_plain_weat_with_max_variant():
    rng = np.random.default_rng(0)
    X, Y, A, B = (rng.normal(size=(n, 8)) for n in (5, 5, 4, 4))
    plain = weat(X, Y, A, B, variant="max", rng=1)
    senses = sense_weat(list(X), list(Y), list(A), list(B), rng=1).result
    assert senses.effect_size == pytest.approx(plain.effect_size)
    assert senses.pvalue == pytest.approx(plain.pvalue)
    np.testing.assert_allclose(senses.association_x, plain.association_x)
    np.testing.assert_allclose(senses.association_y, plain.association_y)


def test_a_words_association_depends_on_the_word():
    """Catches the reference script's bug: its s(w, A, B) ignored w, so every d was +-2."""
    rng = np.random.default_rng(3)
    X = [rng.normal(size=(3, 16)) for _ in range(4)]
    Y = [rng.normal(size=(2, 16)) for _ in range(4)]
    A = [rng.normal(size=(2, 16)) for _ in range(4)]
    B = [rng.normal(size=(2, 16)) for _ in range(4)]
    res = sense_weat(X, Y, A, B).result
    assert len(set(np.round(np.concatenate([res.association_x, res.association_y]), 12))) == 8
    assert abs(abs(res.effect_size) - 2) > 0.05
    # moving one target word towards A raises its association, and only its own
    X2 = list(X)
    X2[0] = np.vstack([X[0], A[0][0] * 10])
    res2 = sense_weat(X2, Y, A, B).result
    assert res2.association_x[0] > res.association_x[0]
    np.testing.assert_allclose(res2.association_x[1:], res.association_x[1:])


def test_eq7_average_vector_is_the_mean_of_sense_vectors():
    groups = [np.array([[1.0, 0.0], [0.0, 3.0]]), np.array([2.0, 2.0])]
    np.testing.assert_allclose(mean_sense_vectors(groups), [[0.5, 1.5], [2.0, 2.0]])
    with pytest.raises(ValueError, match="word 0 has no sense vectors"):
        mean_sense_vectors([np.zeros((0, 2))])


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="`X` is empty"):
        sense_weat([], [np.ones(2)], [np.ones(2)], [np.ones(2)])
    with pytest.raises(ValueError, match=r"`A\[0\]` row 0 is the zero vector"):
        sense_weat([np.ones(2)], [np.ones(2)], [np.zeros(2)], [np.ones(2)])
    with pytest.raises(ValueError, match="same dimension"):
        sense_weat([np.ones(2)], [np.ones(2)], [np.ones(3)], [np.ones(3)])
