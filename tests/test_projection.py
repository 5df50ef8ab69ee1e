"""The projection core against hand computation and the papers' definitions.

Every expected value below is worked out by hand in the comment beside it.
"""

from __future__ import annotations

import numpy as np
import pytest

from embias_widgets.metrics.projection import (
    RelationVector,
    cosine_bias,
    difference_vectors,
    mean_difference_direction,
    principal_subspace,
    project_out,
    random_subspace,
    relation_subspace,
    relation_vector,
    ripa,
    span_subspace,
    unsupervised_debias_mask,
)

SQRT2 = np.sqrt(2.0)


# -- relation vector and RIPA -----------------------------------------------
def test_relation_vector_axis_case_by_hand():
    # d1 = (2, 1), d2 = (2, -1): D^T D = [[8, 0], [0, 2]] -> top eigenvector e1,
    # singular values sqrt(8), sqrt(2); share along b = 8 / 10; mean <d, b> = 2.
    X = np.array([[2.0, 1.0], [3.0, 0.0]])
    Y = np.array([[0.0, 0.0], [1.0, 1.0]])
    rel = relation_vector(X, Y)
    np.testing.assert_allclose(rel.vector, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(rel.singular_values, [np.sqrt(8), np.sqrt(2)])
    assert rel.explained_ratio == pytest.approx(0.8)
    assert rel.mean_projection == pytest.approx(2.0)
    # RIPA(w) = <w, b> on the raw vector: w = (3, 4) -> 3 (its norm 5 is not divided out).
    np.testing.assert_allclose(ripa(np.array([[3.0, 4.0], [-1.0, 7.0]]), rel), [3.0, -1.0])


def test_relation_vector_diagonal_case_by_hand():
    # d1 = (3, 1), d2 = (1, 3): D^T D = [[10, 6], [6, 10]], eigenvalues 16 and 4,
    # top eigenvector (1, 1)/sqrt 2; singular values 4 and 2; mean <d, b> = 4/sqrt 2.
    D = np.array([[3.0, 1.0], [1.0, 3.0]])
    rel = relation_vector(D, np.zeros_like(D))
    np.testing.assert_allclose(rel.vector, [1 / SQRT2, 1 / SQRT2])
    np.testing.assert_allclose(rel.singular_values, [4.0, 2.0])
    assert rel.explained_ratio == pytest.approx(16 / 20)
    assert rel.mean_projection == pytest.approx(4 / SQRT2)
    # RIPA of w = (1, 0) is 1/sqrt 2; of (2, -2) is 0.
    W = np.array([[1.0, 0.0], [2.0, -2.0]])
    np.testing.assert_allclose(ripa(W, rel.vector), [1 / SQRT2, 0.0], atol=1e-12)


def test_single_pair_relation_is_normalised_difference():
    # Ethayarajh et al. 2019, §5.1: one pair gives b = (x - y) / ||x - y||.
    # x - y = (1, 2, 2), norm 3; RIPA of (3, 0, 3) = (3 + 6) / 3 = 3.
    x, y = np.array([[2.0, 2.0, 3.0]]), np.array([[1.0, 0.0, 1.0]])
    rel = relation_vector(x, y)
    np.testing.assert_allclose(rel.vector, [1 / 3, 2 / 3, 2 / 3])
    assert rel.explained_ratio == pytest.approx(1.0)
    assert ripa(np.array([[3.0, 0.0, 3.0]]), rel)[0] == pytest.approx(3.0)


def test_sign_flips_with_pair_order():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(6, 5)), rng.normal(size=(6, 5))
    forward, backward = relation_vector(X, Y), relation_vector(Y, X)
    np.testing.assert_allclose(backward.vector, -forward.vector)
    W = rng.normal(size=(4, 5))
    np.testing.assert_allclose(ripa(W, backward), -ripa(W, forward))
    # the sign rule: the pairs' mean projection is positive
    assert np.mean((X - Y) @ forward.vector) > 0
    assert forward.mean_projection == pytest.approx(np.mean((X - Y) @ forward.vector))


def test_relation_vector_is_unit_and_matches_eigenvector():
    rng = np.random.default_rng(1)
    D = rng.normal(size=(10, 8)) + 3 * rng.normal(size=8)  # a shared direction plus noise
    rel = relation_vector(D, np.zeros_like(D))
    assert np.linalg.norm(rel.vector) == pytest.approx(1.0)
    vals, vecs = np.linalg.eigh(D.T @ D)  # the first principal component, uncentred
    top = vecs[:, -1] * np.sign(np.mean(D @ vecs[:, -1]))
    np.testing.assert_allclose(rel.vector, top, atol=1e-10)
    assert rel.explained_ratio == pytest.approx(vals[-1] / vals.sum())


def test_unequal_pairs_and_bad_directions_are_clear_errors():
    with pytest.raises(ValueError, match="as many first items as second items"):
        difference_vectors(np.ones((3, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="identical vectors"):
        relation_vector(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="unit vector"):
        ripa(np.ones((1, 2)), np.array([1.0, 1.0]))
    with pytest.raises(ValueError, match="dimension"):
        ripa(np.ones((1, 3)), np.array([1.0, 0.0]))


# -- subspaces and projection ------------------------------------------------
def test_span_subspace_projection_zeroes_defining_differences():
    # d1 = e1, d2 = e1 + e2, d3 = d1 + d2: the span is the xy-plane (rank 2).
    D = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [2.0, 1.0, 0.0]])
    sub = span_subspace(D)
    assert sub.rank == 2
    assert sub.method == "span"
    np.testing.assert_allclose(sub.basis @ sub.basis.T, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(project_out(D, sub), 0.0, atol=1e-12)
    # every defining difference has zero projection on the debiased vectors
    W = np.array([[1.0, 2.0, 3.0], [-4.0, 0.5, 0.0]])
    debiased = project_out(W, sub)
    np.testing.assert_allclose(debiased, [[0.0, 0.0, 3.0], [0.0, 0.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(debiased @ D.T, 0.0, atol=1e-12)
    # vectors orthogonal to the subspace are unchanged, to the last bit we can ask
    ortho = np.array([[0.0, 0.0, 5.0]])
    np.testing.assert_allclose(project_out(ortho, sub), ortho, atol=1e-15)


def test_span_subspace_on_random_pairs():
    rng = np.random.default_rng(2)
    D = rng.normal(size=(4, 12))
    sub = span_subspace(D)
    assert sub.rank == 4
    W = rng.normal(size=(20, 12))
    np.testing.assert_allclose(project_out(W, sub) @ D.T, 0.0, atol=1e-12)
    # a vector orthogonal to every d_i (the null-space of D) is unchanged
    _, _, vt = np.linalg.svd(D)
    ortho = 2.5 * vt[-1]
    np.testing.assert_allclose(project_out(ortho[None, :], sub)[0], ortho, atol=1e-12)


def test_span_rank_tolerance():
    # d3 differs from d1 by 1e-12 in z: numerically rank 3 by default, rank 2 with rtol=1e-8.
    D = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1e-12]])
    assert span_subspace(D).rank == 3
    assert span_subspace(D, rtol=1e-8).rank == 2
    with pytest.raises(ValueError, match="rtol"):
        span_subspace(D, rtol=1.5)


def test_projection_does_not_rescale_norms():
    # w = (3, 4, 0) minus its e1 component is (0, 4, 0): norm 4, not 1 and not 5.
    out = project_out(np.array([[3.0, 4.0, 0.0]]), np.array([1.0, 0.0, 0.0]))
    np.testing.assert_allclose(out, [[0.0, 4.0, 0.0]])
    # in general |w'|^2 = |w|^2 - <w, b>^2 (Pythagoras), with no normalisation
    rng = np.random.default_rng(3)
    W = rng.normal(size=(5, 6)) * rng.uniform(0.1, 10, size=(5, 1))
    rel = relation_vector(rng.normal(size=(3, 6)), rng.normal(size=(3, 6)))
    out = project_out(W, rel)
    np.testing.assert_allclose(
        np.linalg.norm(out, axis=1) ** 2, np.linalg.norm(W, axis=1) ** 2 - (W @ rel.vector) ** 2
    )
    np.testing.assert_allclose(out @ rel.vector, 0.0, atol=1e-12)


def test_project_out_leaves_input_alone_and_checks_basis():
    W = np.array([[1.0, 2.0]])
    before = W.copy()
    project_out(W, np.array([1.0, 0.0]))
    np.testing.assert_array_equal(W, before)
    with pytest.raises(ValueError, match="not orthonormal"):
        project_out(W, np.array([[1.0, 0.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="not orthonormal"):
        project_out(W, np.array([2.0, 0.0]))
    with pytest.raises(ValueError, match="dimension"):
        project_out(W, np.array([1.0, 0.0, 0.0]))


def test_relation_subspace_wraps_one_direction():
    rel = RelationVector(np.array([0.0, 1.0]), np.array([2.0, 1.0]), 0.8, 1.0)
    sub = relation_subspace(rel)
    assert sub.rank == 1
    assert sub.dim == 2
    np.testing.assert_allclose(project_out(np.array([[5.0, 7.0]]), sub), [[5.0, 0.0]])


def test_principal_subspace_ratios_by_hand():
    # Centred rows ±(1, 0), ±(0, 0.5): singular values sqrt 2 and sqrt 0.5,
    # top component ±e1, ratio sigma_2 / sigma_1 = 0.5 (Dev et al. 2019, Table 7).
    V = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5], [0.0, -0.5]]) + np.array([10.0, -3.0])
    sub = principal_subspace(V, 1)
    np.testing.assert_allclose(np.abs(sub.basis), [[1.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(sub.singular_values, [SQRT2, np.sqrt(0.5)])
    np.testing.assert_allclose(sub.singular_value_ratios, [0.5])
    assert sub.method == "pca"
    # uncentred, the offset (10, -3) dominates the first component
    raw = principal_subspace(V, 1, center=False)
    offset = np.array([10.0, 3.0]) / np.hypot(10, 3)
    np.testing.assert_allclose(np.abs(raw.basis[0]), offset, atol=1e-3)
    with pytest.raises(ValueError, match="`k` must be between 1 and 2"):
        principal_subspace(V, 3)
    with pytest.raises(ValueError, match="smaller `k`"):
        principal_subspace(np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]]), 2)


# -- random control ------------------------------------------------------------
def test_random_subspace_seeded_orthonormal_and_right_dimension():
    a, b = random_subspace(50, 3, rng=7), random_subspace(50, 3, rng=7)
    np.testing.assert_array_equal(a.basis, b.basis)
    assert a.basis.shape == (3, 50)
    assert a.rank == 3
    assert a.method == "random"
    np.testing.assert_allclose(a.basis @ a.basis.T, np.eye(3), atol=1e-12)
    assert not np.allclose(random_subspace(50, 3, rng=8).basis, a.basis)
    gen = np.random.default_rng(7)
    np.testing.assert_array_equal(random_subspace(50, 3, rng=gen).basis, a.basis)
    with pytest.raises(ValueError, match="`k` must be between 1 and dim=4"):
        random_subspace(4, 5)


# -- unsupervised rule and Zhou et al.'s direction -----------------------------
def test_unsupervised_debias_mask_by_hand():
    # g = e1, b = e2: (2, 1) has |2| > |1| -> keep; (1, 3) has |1| < |3| -> debias;
    # (-1, 1) is a tie -> keep (the rule is strict).
    W = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, 1.0], [0.5, -2.0]])
    mask = unsupervised_debias_mask(W, np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    np.testing.assert_array_equal(mask, [False, True, False, True])


def test_mean_difference_direction_and_cosine_bias_by_hand():
    # m - f = (1, 0) and (2, 2): g = (1.5, 1) (Zhou et al., eq. 8).
    M = np.array([[1.0, 0.0], [3.0, 2.0]])
    F = np.array([[0.0, 0.0], [1.0, 0.0]])
    g = mean_difference_direction(M, F)
    np.testing.assert_allclose(g, [1.5, 1.0])
    # cos((3, 2), g) = 1; cos((-2, 3), g) = 0; cos((-3, -2), g) = -1
    W = np.array([[3.0, 2.0], [-2.0, 3.0], [-3.0, -2.0]])
    np.testing.assert_allclose(cosine_bias(W, g), [1, 0, -1], atol=1e-12)
