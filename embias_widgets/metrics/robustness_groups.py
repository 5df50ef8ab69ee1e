"""Word influence and subset stability when a word is several items: SEAT's sentences, or a word's senses.

In SEAT (May et al. 2019) every word of a set stands for several items, its sentences (one per template),
so leaving a *word* out removes a group of rows (a target word) or columns (an attribute word) of the
cosine matrices, and a subset keeps whole words. The formulas are those of
:mod:`embias_widgets.metrics.robustness`; configurations of the same sizes share one set of splits
(:func:`~embias_widgets.metrics.robustness.column_pvalues`). ``groups`` maps each set key to a list of index
arrays: rows of X (from 0), rows of Y (from 0), columns of A, columns of B.

:func:`max_pair_cosines` gives the item-level cosines of items that are groups of sense vectors (Zhou et al.
2022: the cosine of two words is the max over their sense pairs), so the bootstrap and the robustness
functions run on sense WEAT as on WEAT.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .robustness import (
    ROBUSTNESS_SAMPLES,
    LeaveOneOut,
    SubsetStability,
    _attribute_scores,
    _subset_rows,
    associations_from_cosines,
    column_pvalues,
    effect_sizes_by_row,
    influence_samples,
    kept_size,
)
from .validation import check_options

__all__ = ["group_subset_stability", "leave_groups_out", "max_pair_cosines"]

Groups = Mapping[str, Sequence[np.ndarray]]


def max_pair_cosines(targets: Sequence[np.ndarray], attributes: Sequence[np.ndarray]) -> np.ndarray:
    """(targets, attributes): ``max_{s in S(w), t in S(a)} cos(s, t)`` for groups of unit sense vectors."""
    flat = np.vstack(attributes)
    starts = np.cumsum([0, *(len(g) for g in attributes[:-1])])
    rows = [np.maximum.reduceat((g @ flat.T).max(axis=0), starts) for g in targets]
    return np.vstack(rows)


def _samples(n: int, k: int, n_samples: int, max_sampled: int) -> int:
    return n_samples if math.comb(n, k) <= n_samples else min(n_samples, max_sampled)


def _by_shape(rows: list[np.ndarray], n_xs: list[int], ddof: int, **options) -> tuple[np.ndarray, ...]:
    """d, p, splits counted and whether all exact, of configurations given as 1-D rows of s (X's ``n_xs[i]``
    first), vectorised per shape."""
    d, p, counts = np.full(len(rows), np.nan), np.full(len(rows), np.nan), np.zeros(len(rows))
    shapes: dict[tuple[int, int], list[int]] = {}
    for i, (row, k) in enumerate(zip(rows, n_xs, strict=True)):
        if np.isfinite(row).all() and 0 < k < len(row):
            shapes.setdefault((len(row), k), []).append(i)
    exact = True
    n_samples, max_sampled = options.pop("n_samples"), options.pop("max_sampled")
    for (n, k), where in shapes.items():
        block = np.vstack([rows[i] for i in where])
        d[where] = effect_sizes_by_row(block, k, ddof)
        p[where], exact_here, counts[where] = column_pvalues(
            block.T, k, n_samples=_samples(n, k, n_samples, max_sampled), **options)
        exact = exact and exact_here
    return d, p, counts, exact


def leave_groups_out(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, groups: Groups, *, variant: str = "mean", ddof: int = 1,
    n_samples: int = 100_000, alternative: str = "greater", method: str = "auto",
    rng: np.random.Generator | int | None = None, max_sampled: int | None = None,
) -> LeaveOneOut:
    """d and p with each group (a word's items) of each set left out; ``groups`` as in the module docstring.

    A target word removes its rows from s; an attribute word its columns from the mean (or max). p: each
    configuration's own permutation test, configurations of the same sizes sharing their splits (exact when
    ``C(n', k') <= n_samples``, else ``min(n_samples, max_sampled)`` sampled, seeded by ``rng``; ``max_sampled``
    by default :func:`~embias_widgets.metrics.robustness.influence_samples`).
    """
    check_options(variant=variant, ddof=ddof, n_samples=n_samples, alternative=alternative, method=method, seed=rng)
    cos_a, cos_b = np.asarray(cos_a, dtype=np.float64), np.asarray(cos_b, dtype=np.float64)
    s = associations_from_cosines(cos_a, cos_b, variant)
    max_sampled = influence_samples(len(s), n_samples) if max_sampled is None else max_sampled
    reduce = np.max if variant == "max" else np.mean
    rows: dict[str, list[np.ndarray]] = {}
    n_xs: dict[str, list[int]] = {}
    for key, offset in (("targ1", 0), ("targ2", n_x)):
        rows[key] = [np.delete(s, offset + np.asarray(g)) for g in groups[key]]
        n_xs[key] = [n_x - len(g) if key == "targ1" else n_x for g in groups[key]]
    for key, cos, other in (("attr1", cos_a, reduce(cos_b, axis=1)), ("attr2", cos_b, reduce(cos_a, axis=1))):
        rows[key] = []
        for g in groups[key]:
            left = np.delete(cos, np.asarray(g), axis=1)
            kept = reduce(left, axis=1) if left.shape[1] else np.full(len(s), np.nan)
            rows[key].append(kept - other if key == "attr1" else other - kept)
        n_xs[key] = [n_x] * len(groups[key])
    gen = np.random.default_rng(rng)
    out: dict[str, dict] = {"d": {}, "p": {}, "exact": {}, "count": {}}
    for key, child in zip(rows, gen.spawn(len(rows)), strict=True):
        d, p, counts, exact = _by_shape(rows[key], n_xs[key], ddof, n_samples=n_samples, max_sampled=max_sampled,
                                        alternative=alternative, method=method, rng=child)
        out["d"][key], out["p"][key], out["count"][key], out["exact"][key] = d, p, counts, exact
    return LeaveOneOut(out["d"], out["p"], out["exact"], out["count"])


def group_subset_stability(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, groups: Groups, *, k: int = 200, keep: float = 0.8,
    variant: str = "mean", ddof: int = 1, n_samples: int = 100_000, alternative: str = "greater",
    method: str = "auto", rng: np.random.Generator | int | None = None, max_sampled: int = ROBUSTNESS_SAMPLES,
) -> SubsetStability:
    """:func:`~embias_widgets.metrics.robustness.subset_stability` over words: each subset keeps
    ``max(2, round(keep n))`` of the n groups of every set, with all their items; subsets of the same sizes in
    items are computed together (one shape when every word has as many items)."""
    check_options(variant=variant, ddof=ddof, n_samples=n_samples, alternative=alternative, method=method, seed=rng)
    if not (isinstance(k, int) and k >= 1) or not 0 < keep <= 1:
        raise ValueError(f"`k` must be a positive integer and `keep` a share in (0, 1], got k={k!r}, keep={keep!r}")
    cos_a, cos_b = np.asarray(cos_a, dtype=np.float64), np.asarray(cos_b, dtype=np.float64)
    sizes = {key: kept_size(len(groups[key]), keep) for key in ("targ1", "targ2", "attr1", "attr2")}
    draw_gen, split_gen = np.random.default_rng(rng).spawn(2)
    picks = {key: _subset_rows(draw_gen, k, len(groups[key]), sizes[key]) for key in sizes}
    offsets = {"targ1": 0, "targ2": n_x, "attr1": 0, "attr2": 0}
    expanded = {key: [offsets[key] + np.concatenate([np.asarray(groups[key][i]) for i in row]) for row in picks[key]]
                for key in sizes}
    shapes: dict[tuple[int, ...], list[int]] = {}
    for j in range(k):
        shapes.setdefault(tuple(len(expanded[key][j]) for key in sizes), []).append(j)
    d, p = np.full(k, np.nan), np.full(k, np.nan)
    exact, count = True, 0
    for (kx, _, _, _), where in shapes.items():
        ia = np.vstack([expanded["attr1"][j] for j in where])
        ib = np.vstack([expanded["attr2"][j] for j in where])
        s = _attribute_scores(cos_a, ia, variant) - _attribute_scores(cos_b, ib, variant)
        targets = np.vstack([np.concatenate([expanded["targ1"][j], expanded["targ2"][j]]) for j in where])
        rows = np.take_along_axis(s, targets, axis=1)
        d[where] = effect_sizes_by_row(rows, kx, ddof)
        p[where], exact_here, count = column_pvalues(
            rows.T, kx, n_samples=_samples(rows.shape[1], kx, n_samples, max_sampled), alternative=alternative,
            method=method, rng=split_gen,
        )
        exact = exact and exact_here
    return SubsetStability(k=k, keep=keep, sizes=sizes, effect_sizes=d, pvalues=p, exact=exact,
                           n_permutations=count)
