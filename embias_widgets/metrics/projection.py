"""Relation vectors, RIPA, bias subspaces and projection debiasing.

Rows of every matrix are word vectors; nothing here looks words up.

- Relation vector ``b`` (Ethayarajh, Duvenaud & Hirst 2019, Definition 2): the
  first principal component of the difference vectors ``{w_x - w_y}`` of
  ordered pairs ``(x, y)``, a unit vector whose sign makes the pairs' mean
  projection positive, so the pair order gives the direction.
- RIPA (same paper, Definition 2): ``RIPA(w) = <w, b>`` on the raw vector.
- Bias subspace: the span of the difference vectors (the Debiasing Theorem of
  Ethayarajh et al. 2019 needs the span), or the top-k principal components of
  a word set (Dev et al. 2020, §3.1, with singular-value ratios as in their
  Table 7).
- Projection debiasing (Bolukbasi et al. 2016; Ethayarajh et al. 2019, §3):
  ``w' = w - sum_j <w, b_j> b_j`` for an orthonormal basis ``b_j``, on
  vectors that were *not* normalised first. Dev et al. (2020, Table 8) compare
  against projecting out random directions of the same dimension.
- Which words to debias, unsupervised (Ethayarajh et al. 2019, §6.3): ``w``
  iff ``|<w, g>| < |<w, b>|`` for a gender-defining relation vector ``g`` and a
  bias-defining one ``b``.
- Gender direction of Zhou et al. (eq. 8): ``g = mean_{(m, f)} (m - f)``, and
  a word's bias ``cos(w, g)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .association import unit_rows

#: How far from 1 (or 0) a norm (or inner product) may be to count as orthonormal.
ORTHONORMAL_ATOL = 1e-6


@dataclass(frozen=True)
class RelationVector:
    """A unit relation vector and how well one direction describes the pairs.

    Attributes
    ----------
    vector
        ``b``, shape ``(dim,)``, unit norm, ``mean_i <d_i, b> >= 0``.
    singular_values
        Singular values of the difference matrix ``D`` (rows ``d_i = x_i - y_i``),
        descending.
    explained_ratio
        ``sigma_1^2 / sum_j sigma_j^2``: the share of ``sum_i |d_i|^2`` that
        lies along ``b`` (1 when every difference is parallel).
    mean_projection
        ``mean_i <d_i, b>``, the pairs' mean projection (``>= 0`` by construction).
    """

    vector: np.ndarray
    singular_values: np.ndarray
    explained_ratio: float
    mean_projection: float

    @property
    def dim(self) -> int:
        return int(self.vector.shape[0])


@dataclass(frozen=True)
class Subspace:
    """An orthonormal basis of a bias subspace.

    Attributes
    ----------
    basis
        ``(k, dim)``, orthonormal rows ``b_j``.
    singular_values
        Singular values of the matrix the subspace came from, descending
        (all of them, not only the ``k`` kept); ones for a random subspace.
    method
        ``"span"``, ``"pca"``, ``"relation"`` or ``"random"``.
    """

    basis: np.ndarray
    singular_values: np.ndarray
    method: str

    @property
    def rank(self) -> int:
        return int(self.basis.shape[0])

    @property
    def dim(self) -> int:
        return int(self.basis.shape[1])

    @property
    def singular_value_ratios(self) -> np.ndarray:
        """``sigma_i / sigma_1`` for ``i = 2, 3, ...`` (Dev et al. 2020, Table 7)."""
        s = self.singular_values
        if s.size == 0 or s[0] == 0:
            return np.zeros(0)
        return s[1:] / s[0]


def _matrix(M: np.ndarray, name: str) -> np.ndarray:
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] == 0:
        raise ValueError(
            f"`{name}` must be a non-empty 2-D array (items x dimensions), got shape {M.shape}"
        )
    return M


def difference_vectors(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``D = X - Y``: row ``i`` is ``w_{x_i} - w_{y_i}`` for the ordered pair ``(x_i, y_i)``."""
    X, Y = _matrix(X, "X"), _matrix(Y, "Y")
    if X.shape != Y.shape:
        raise ValueError(
            f"pairs need as many first items as second items of the same dimension: "
            f"X has shape {X.shape}, Y has shape {Y.shape}"
        )
    return X - Y


def _svd(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Singular values (descending) and right singular vectors (rows) of ``M``."""
    _, s, vt = np.linalg.svd(M, full_matrices=False)
    return s, vt


def relation_vector(X: np.ndarray, Y: np.ndarray) -> RelationVector:
    """The relation vector of ordered pairs ``(x_i, y_i)`` (Ethayarajh et al. 2019, Def. 2).

    ``b`` is the first principal component of ``{d_i = x_i - y_i}``: the top
    right singular vector of ``D`` without centring. Centring would remove the
    shared direction the pairs define; taking the component of the symmetric
    set ``{±d_i}`` (Bolukbasi et al. 2016 centre each pair on its own mean)
    gives the same vector. The sign is chosen so that ``mean_i <d_i, b> > 0``;
    swapping every pair flips ``b``. If the pairs cancel exactly
    (``mean_i <d_i, b> = 0``) the largest-magnitude component of ``b`` is made
    positive.
    """
    D = difference_vectors(X, Y)
    s, vt = _svd(D)
    if s[0] == 0:
        raise ValueError(
            "every pair has identical vectors (all differences are zero): no relation to find"
        )
    b = vt[0]
    mean_projection = float((D @ b).mean())
    if mean_projection < 0 or (mean_projection == 0 and b[np.argmax(np.abs(b))] < 0):
        b, mean_projection = -b, -mean_projection
    explained = float(s[0] ** 2 / np.sum(s**2))
    return RelationVector(b, s, explained, mean_projection)


def _direction(b: np.ndarray | RelationVector, name: str = "b") -> np.ndarray:
    if isinstance(b, RelationVector):
        return b.vector
    b = np.asarray(b, dtype=np.float64)
    if b.ndim != 1:
        raise ValueError(f"`{name}` must be one vector of shape (dim,), got shape {b.shape}")
    if abs(np.linalg.norm(b) - 1) > ORTHONORMAL_ATOL:
        raise ValueError(
            f"`{name}` must be a unit vector (norm {np.linalg.norm(b):.6g}): "
            f"pass relation_vector(...).vector or {name} / np.linalg.norm({name})"
        )
    return b


def ripa(W: np.ndarray, b: np.ndarray | RelationVector) -> np.ndarray:
    """Relational inner product association ``RIPA(w) = <w, b>`` (Ethayarajh et al. 2019, Def. 2).

    ``W`` holds raw word vectors (rows; not normalised); ``b`` is a unit
    relation vector. Returns one score per row.
    """
    W = _matrix(W, "W")
    b = _direction(b)
    if W.shape[1] != b.shape[0]:
        raise ValueError(f"`W` has dimension {W.shape[1]} but `b` has dimension {b.shape[0]}")
    return W @ b


def span_subspace(D: np.ndarray, *, rtol: float | None = None) -> Subspace:
    """Orthonormal basis of ``span{d_i}`` (Ethayarajh et al. 2019, Debiasing Theorem).

    The basis is the right singular vectors of ``D`` whose singular values
    exceed ``rtol * sigma_1``; ``rtol`` defaults to ``max(D.shape) * eps``
    (``numpy.linalg.matrix_rank``'s tolerance), so ``rank`` is the numerical
    rank of ``D``. A larger ``rtol`` drops nearly dependent differences.
    """
    D = _matrix(D, "D")
    s, vt = _svd(D)
    if rtol is None:
        rtol = max(D.shape) * np.finfo(np.float64).eps
    if not 0 <= rtol < 1:
        raise ValueError(f"`rtol` must be in [0, 1), got {rtol}")
    rank = int(np.sum(s > rtol * s[0])) if s[0] > 0 else 0
    if rank == 0:
        raise ValueError("every difference vector is zero: the span is empty")
    return Subspace(vt[:rank], s, "span")


def principal_subspace(V: np.ndarray, k: int, *, center: bool = True) -> Subspace:
    """Top-``k`` principal components of a word set (Dev et al. 2020, §3.1).

    With ``center`` (PCA) the rows are centred on their mean first. The
    subspace's ``singular_value_ratios`` are ``sigma_i / sigma_1``, the
    quantities of Dev et al.'s Table 7 (a sharp drop means one direction
    dominates).
    """
    V = _matrix(V, "V")
    if V.shape[0] < 2 and center:
        raise ValueError("principal components of a centred word set need at least two words")
    if not 1 <= k <= min(V.shape):
        raise ValueError(
            f"`k` must be between 1 and {min(V.shape)} for {V.shape[0]} words "
            f"of dimension {V.shape[1]}, got {k}"
        )
    M = V - V.mean(axis=0) if center else V
    s, vt = _svd(M)
    if s[k - 1] <= max(M.shape) * np.finfo(np.float64).eps * s[0]:
        raise ValueError(f"the word set spans fewer than k={k} directions: choose a smaller `k`")
    return Subspace(vt[:k], s, "pca")


def relation_subspace(relation: RelationVector) -> Subspace:
    """The one-dimensional subspace spanned by a relation vector."""
    return Subspace(relation.vector[None, :], relation.singular_values, "relation")


def random_subspace(
    dim: int, k: int = 1, *, rng: np.random.Generator | int | None = None
) -> Subspace:
    """``k`` orthonormal directions drawn uniformly at random in ``R^dim``.

    Dev et al. (2020, Tables 8, 12, 14) project out random directions as a
    control for the effect of removing *any* subspace of that dimension. The
    basis is the Q factor of a standard normal ``(dim, k)`` matrix (with the
    signs fixed by R's diagonal, which makes the distribution uniform).
    """
    if not 1 <= k <= dim:
        raise ValueError(f"`k` must be between 1 and dim={dim}, got {k}")
    generator = np.random.default_rng(rng)
    q, r = np.linalg.qr(generator.standard_normal((dim, k)))
    q = q * np.sign(np.diag(r))
    return Subspace(q.T.copy(), np.ones(k), "random")


def _basis(basis: np.ndarray | Subspace | RelationVector) -> np.ndarray:
    if isinstance(basis, Subspace):
        return basis.basis
    if isinstance(basis, RelationVector):
        return basis.vector[None, :]
    B = np.asarray(basis, dtype=np.float64)
    if B.ndim == 1:
        B = B[None, :]
    if B.ndim != 2 or B.shape[0] == 0:
        raise ValueError(f"`basis` must be (k, dim) orthonormal rows, got shape {B.shape}")
    gram = B @ B.T
    if not np.allclose(gram, np.eye(B.shape[0]), atol=ORTHONORMAL_ATOL):
        raise ValueError(
            "`basis` rows are not orthonormal: build it with span_subspace(D) "
            "(or normalise a single direction to unit length)"
        )
    return B


def project_out(W: np.ndarray, basis: np.ndarray | Subspace | RelationVector) -> np.ndarray:
    """``w' = w - sum_j <w, b_j> b_j`` for every row (Bolukbasi et al. 2016; Ethayarajh 2019, §3).

    ``basis`` is a :class:`Subspace`, a :class:`RelationVector`, or ``(k, dim)``
    orthonormal rows. The vectors are not normalised, before or after
    (Ethayarajh et al. 2019: normalising first breaks the guarantee). Returns
    a new float64 array; ``W`` is not modified.
    """
    W = _matrix(W, "W")
    B = _basis(basis)
    if W.shape[1] != B.shape[1]:
        raise ValueError(f"`W` has dimension {W.shape[1]} but the basis has dimension {B.shape[1]}")
    return W - (W @ B.T) @ B


def unsupervised_debias_mask(
    W: np.ndarray, gender: np.ndarray | RelationVector, bias: np.ndarray | RelationVector
) -> np.ndarray:
    """Which words to debias: ``|<w, g>| < |<w, b>|`` (Ethayarajh et al. 2019, §6.3).

    ``gender`` is a relation vector from gender-defining pairs (e.g.
    ``(woman, man)``), ``bias`` one from the pairs of biased analogies (e.g.
    ``(nurse, doctor)``). ``True`` marks a row to debias; rows more aligned
    with the defining relation (gender-appropriate words such as ``queen``) are
    kept as they are.
    """
    W = _matrix(W, "W")
    g, b = _direction(gender, "gender"), _direction(bias, "bias")
    return np.abs(W @ g) < np.abs(W @ b)


def mean_difference_direction(M: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Gender direction ``g = (1/|C|) sum_{(m, f) in C} (m - f)`` (Zhou et al., eq. 8).

    Not normalised (the cosine bias does not need it).
    """
    return difference_vectors(M, F).mean(axis=0)


def cosine_bias(W: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``cos(w, g)`` for every row (Bolukbasi et al. 2016; Zhou et al., §7).

    With ``g`` from :func:`mean_difference_direction`, positive means towards
    the first (``m``) words of the pairs.
    """
    W = _matrix(W, "W")
    g = np.asarray(g, dtype=np.float64)
    if g.ndim != 1 or g.shape[0] != W.shape[1]:
        raise ValueError(f"`g` must have shape ({W.shape[1]},), got {g.shape}")
    return (unit_rows(W, name="W") @ unit_rows(g[None, :], name="g").T)[:, 0]
