"""Debiased copies of static word vectors.

:func:`project_out_subspace` returns a NEW :class:`StaticVectors` whose rows
are ``w' = w - sum_j <w, b_j> b_j`` (Bolukbasi et al. 2016; Ethayarajh et al.
2019, §3), computed by :func:`embias_widgets.metrics.projection.project_out`;
the model it was given is left as it was. :func:`project_out_random` does the
same for random directions of the same dimension (Dev et al. 2020's control).
Either result plugs into ``AssociationTest(..., model=debiased)``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ...metrics.projection import RelationVector, Subspace, project_out, random_subspace
from .vectors import StaticVectors


def _check_static(model: object) -> StaticVectors:
    if not isinstance(model, StaticVectors):
        raise TypeError(
            f"projection debiasing works on static word vectors (StaticVectors), "
            f"got {type(model).__name__}: load one with load_model('glove-6b-50d') or a vector file"
        )
    return model


def _rows_to_debias(
    model: StaticVectors, mask: np.ndarray | None, keep: Iterable[str]
) -> np.ndarray | None:
    """Boolean row mask (``None``: every row), with ``keep`` words switched off."""
    keep = list(keep)
    if mask is None and not keep:
        return None
    if mask is None:
        rows = np.ones(len(model), dtype=bool)
    else:
        rows = np.asarray(mask, dtype=bool).copy()
        if rows.shape != (len(model),):
            raise ValueError(
                f"`mask` must have one entry per vocabulary word ({len(model)}), "
                f"got shape {rows.shape}"
            )
    for word in keep:
        key = word.strip().lower() if model.lowercase else word.strip()
        if key in model.index:
            rows[model.index[key]] = False
    return rows


def project_out_subspace(
    model: StaticVectors,
    basis: Subspace | RelationVector | np.ndarray,
    *,
    mask: np.ndarray | None = None,
    keep: Iterable[str] = (),
    name: str | None = None,
) -> StaticVectors:
    """A new model with ``basis`` projected out of its word vectors.

    Parameters
    ----------
    model
        Static word vectors; not modified.
    basis
        A :class:`Subspace` (``span_subspace``, ``principal_subspace``,
        ``random_subspace``), a :class:`RelationVector`, or orthonormal rows.
    mask
        Optional boolean per vocabulary row: ``True`` rows are debiased, the
        others copied unchanged (e.g. from
        :func:`~embias_widgets.metrics.projection.unsupervised_debias_mask`).
    keep
        Words left unchanged (e.g. gender-specific words, Bolukbasi et al.
        2016); words not in the vocabulary are ignored.
    name
        Name of the new model (default: ``"<name> - <method> subspace (k=..)"``).

    Vectors are not normalised (Ethayarajh et al. 2019). The result keeps the
    original dtype and lookup options (case handling, multi-word averaging;
    averaging commutes with the projection, which is linear).
    """
    model = _check_static(model)
    rows = _rows_to_debias(model, mask, keep)
    vectors = np.array(model.vectors, copy=True)
    if rows is None:
        vectors[:] = project_out(model.vectors, basis)
    elif rows.any():
        vectors[rows] = project_out(model.vectors[rows], basis)
    if name is None:
        sub = basis if isinstance(basis, Subspace) else None
        method = sub.method if sub else "relation" if isinstance(basis, RelationVector) else "given"
        k = sub.rank if sub else np.atleast_2d(np.asarray(getattr(basis, "vector", basis))).shape[0]
        name = f"{model.name} - {method} subspace (k={k})"
    return StaticVectors(
        model.words, vectors, name=name, lowercase=model.lowercase, multiword=model.multiword
    )


def project_out_random(
    model: StaticVectors,
    k: int = 1,
    *,
    seed: int | np.random.Generator | None = 0,
    mask: np.ndarray | None = None,
    keep: Iterable[str] = (),
    name: str | None = None,
) -> StaticVectors:
    """A new model with ``k`` seeded random orthonormal directions projected out.

    Dev et al. (2020, Table 8) use this as the control for projection
    debiasing: give ``k`` the rank of the bias subspace you compare with.
    The same ``seed`` gives the same directions.
    """
    model = _check_static(model)
    sub = random_subspace(model.dim, k, rng=seed)
    label = f"seed={seed}" if isinstance(seed, int) else "random"
    return project_out_subspace(
        model,
        sub,
        mask=mask,
        keep=keep,
        name=name or f"{model.name} - random subspace (k={k}, {label})",
    )
