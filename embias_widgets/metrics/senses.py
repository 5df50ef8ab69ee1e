"""Sense-level WEAT (Zhou, Kaneko & Bollegala 2022, section 3, eqs. 1-3 and 7).

Each target and attribute item is either one sense vector, or a word given as
the group of its sense vectors (rows of a 2-D array):

- **sense WEAT**: every item is one sense vector and the association is the
  ``max`` variant of eq. 2, ``s(w, A, B) = max_a cos(w, a) - max_b cos(w, b)``;
  effect size (eq. 3) and p-value as in :func:`~embias_widgets.metrics.association.weat`.
- **average twin** (eq. 7): a word's sense-insensitive vector is the mean of its
  sense vectors, ``w = (1/|S(w)|) sum_{s in S(w)} s``; then the same test.
- **max-over-senses twin** (the paper's WAT protocol): ``cos(w, a)`` is the max
  over every pair (sense of w, sense of a), so
  ``s(w, A, B) = max_{s in S(w), a in A, t in S(a)} cos(s, t) - max_{s, b in B, t in S(b)} cos(s, t)``;
  :class:`SenseWinners` reports which pair won each comparison.

With one sense per word all three are plain WEAT with ``variant="max"``.

The paper's released script computes ``s`` without using the target word (every
effect size comes out +-2) and starts its running maximum at 0; here each
association is a function of the word's own vectors and a maximum starts from
the first cosine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .association import AssociationResult, unit_rows, weat_from_associations
from .samplers import DEFAULT_SAMPLER

__all__ = [
    "MaxSenseResult",
    "SenseWinners",
    "max_sense_association",
    "mean_sense_vectors",
    "sense_weat",
]


@dataclass(frozen=True)
class SenseWinners:
    """Which senses gave each target word's maxima (indices into the inputs' groups).

    For target word ``i`` (X then Y): ``target_sense[i]`` is the row of its group
    that won against A, ``attribute[i]`` the A item, ``attribute_sense[i]`` that
    item's row; the ``*_b`` arrays are the same against B.
    """

    target_sense_a: np.ndarray
    attribute_a: np.ndarray
    attribute_sense_a: np.ndarray
    cosine_a: np.ndarray
    target_sense_b: np.ndarray
    attribute_b: np.ndarray
    attribute_sense_b: np.ndarray
    cosine_b: np.ndarray


@dataclass(frozen=True)
class MaxSenseResult:
    """Max-over-senses WEAT: the association result and the winning senses."""

    result: AssociationResult
    winners: SenseWinners


def _groups(items: Sequence[np.ndarray], name: str) -> list[np.ndarray]:
    if len(items) == 0:
        raise ValueError(f"`{name}` is empty: give at least one item (a sense vector or a word's sense vectors)")
    out = []
    for i, group in enumerate(items):
        g = np.asarray(group, dtype=np.float64)
        if g.ndim == 1:
            g = g[None, :]
        if g.ndim != 2 or g.shape[0] == 0:
            raise ValueError(f"`{name}` item {i} must hold at least one sense vector, got shape {g.shape}")
        out.append(unit_rows(g, name=f"{name}[{i}]"))
    dims = {g.shape[1] for g in out}
    if len(dims) != 1:
        raise ValueError(f"`{name}` items have different dimensions {sorted(dims)}")
    return out


def mean_sense_vectors(groups: Sequence[np.ndarray]) -> np.ndarray:
    """Sense-insensitive word vectors: ``w = mean_{s in S(w)} s`` for each group (Zhou et al. eq. 7).

    The sense vectors are averaged as given (not normalised first), as the paper's eq. 7 writes.
    """
    if len(groups) == 0:
        raise ValueError("no words given: each word needs at least one sense vector")
    rows = []
    for i, group in enumerate(groups):
        g = np.asarray(group, dtype=np.float64)
        g = g[None, :] if g.ndim == 1 else g
        if g.ndim != 2 or g.shape[0] == 0:
            raise ValueError(f"word {i} has no sense vectors (shape {g.shape})")
        rows.append(g.mean(axis=0))
    return np.vstack(rows)


def _max_against(targets: list[np.ndarray], attributes: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    flat = np.vstack(attributes)
    owner = np.concatenate([np.full(len(g), i) for i, g in enumerate(attributes)])
    within = np.concatenate([np.arange(len(g)) for g in attributes])
    best = np.empty(len(targets))
    t_sense = np.empty(len(targets), dtype=int)
    a_item = np.empty(len(targets), dtype=int)
    a_sense = np.empty(len(targets), dtype=int)
    for i, group in enumerate(targets):
        cos = group @ flat.T  # senses of w x all senses of all attribute words
        r, c = np.unravel_index(int(np.argmax(cos)), cos.shape)
        best[i], t_sense[i], a_item[i], a_sense[i] = cos[r, c], r, owner[c], within[c]
    return best, t_sense, a_item, a_sense


def max_sense_association(
    W: Sequence[np.ndarray], A: Sequence[np.ndarray], B: Sequence[np.ndarray]
) -> tuple[np.ndarray, SenseWinners]:
    """``s(w, A, B)`` maximised over all sense pairs, and the winning senses.

    ``W``, ``A``, ``B`` are sequences of groups: each group is a ``(senses x dim)``
    array (or one vector) for one word.
    """
    W_, A_, B_ = _groups(W, "W"), _groups(A, "A"), _groups(B, "B")
    if len({W_[0].shape[1], A_[0].shape[1], B_[0].shape[1]}) != 1:
        raise ValueError("targets and attributes must have the same dimension")
    ca, ta, ia, sa = _max_against(W_, A_)
    cb, tb, ib, sb = _max_against(W_, B_)
    return ca - cb, SenseWinners(ta, ia, sa, ca, tb, ib, sb, cb)


def sense_weat(
    X: Sequence[np.ndarray],
    Y: Sequence[np.ndarray],
    A: Sequence[np.ndarray],
    B: Sequence[np.ndarray],
    *,
    ddof: int = 1,
    n_samples: int = 100_000,
    alternative: str = "greater",
    method: str = "auto",
    rng: np.random.Generator | int | None = None,
    sampler: str = DEFAULT_SAMPLER,
) -> MaxSenseResult:
    """WEAT whose items are groups of sense vectors, associations maximised over sense pairs.

    A group with one row is one sense (sense WEAT, Zhou et al. section 3); a group
    with all of a word's senses gives the max-over-senses word-level twin. The
    result's ``variant`` is ``"max"``: with one sense per item this is exactly
    :func:`~embias_widgets.metrics.association.weat` with ``variant="max"``.
    """
    X_, Y_ = _groups(X, "X"), _groups(Y, "Y")
    s, winners = max_sense_association([*X_, *Y_], A, B)
    result = weat_from_associations(
        s[: len(X_)],
        s[len(X_) :],
        variant="max",
        ddof=ddof,
        n_samples=n_samples,
        alternative=alternative,
        method=method,
        rng=rng,
        sampler=sampler,
    )
    return MaxSenseResult(result, winners)
