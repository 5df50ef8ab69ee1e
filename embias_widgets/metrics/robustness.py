"""How much a WEAT/SEAT result depends on the words chosen: leave-one-out influence and subset stability.

Both start from the cosine matrices a run already holds, ``cos_a[w, j] = cos(w, a_j)`` and
``cos_b[w, j] = cos(w, b_j)`` for the target items w (X then Y), so nothing is encoded again:

- ``s(w, A, B) = mean_j cos_a[w, j] - mean_j cos_b[w, j]`` (``max`` variant: the maxima; Caliskan et al.
  2017, Zhou et al. 2022 eq. 2) and ``d = (mean_X s - mean_Y s) / std_{X u Y} s`` (ddof as the run's).
- **Word influence** (:func:`leave_one_out`): d and p with one item of one set left out. A target item
  drops one entry of s; an attribute item a_j changes every s by an O(1) update of the mean,
  ``s_{-j}(w) = (|A| mean_A(w) - cos_a[w, j]) / (|A| - 1) - mean_B(w)`` (``max``: the second largest
  cosine where a_j was the largest). Ethayarajh, Duvenaud & Hirst (2019) show how much d rests on a few words.
- **Subset stability** (:func:`subset_stability`): K seeded draws each keeping ``max(2, round(keep n))``
  items of every set (Antoniak & Mimno 2021, "Bad Seeds", on how seed words drive results).

Their p-values come from one permutation test per configuration that share their splits (common random
numbers): every configuration with the same sizes is a column of one matrix product of split indicators
(exact enumeration or the uniform samplers of :mod:`embias_widgets.metrics.samplers`) with the
configurations' s, exactly as :func:`~embias_widgets.metrics.permutation.permutation_test` computes one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .permutation import MAX_EXACT_SPLITS, _exact_indicator_batches
from .samplers import _random_subset_indicators, sampling_block_rows
from .validation import check_options

__all__ = [
    "INFLUENCE_CELLS",
    "ROBUSTNESS_SAMPLES",
    "LeaveOneOut",
    "SubsetStability",
    "associations_from_cosines",
    "column_pvalues",
    "effect_sizes_by_row",
    "influence_samples",
    "leave_one_out",
    "subset_stability",
]

#: Fewest sampled splits the influence and stability p-values are allowed to cap the run's ``n_samples`` to
#: (exact enumeration, when the run was exact, is kept): 10,000 resolve p to 1e-4.
ROBUSTNESS_SAMPLES = 10_000
#: Split-indicator cells (splits x pooled items) word influence may draw: up to this budget it uses the run's own
#: ``n_samples`` (100,000 by default: every test up to 83 target items), so p without a word has the Monte
#: Carlo precision of the run's p; larger tests draw ``max(ROBUSTNESS_SAMPLES, budget / n)`` splits.
INFLUENCE_CELLS = 1 << 23


def influence_samples(n: int, n_samples: int) -> int:
    """Sampled splits of word influence for n pooled target items: ``min(n_samples, max(10,000, 2**23 / n))``."""
    return min(n_samples, max(ROBUSTNESS_SAMPLES, INFLUENCE_CELLS // n))


def associations_from_cosines(cos_a: np.ndarray, cos_b: np.ndarray, variant: str = "mean") -> np.ndarray:
    """``s(w, A, B)`` per row from the target x attribute cosine matrices (mean or max over the columns)."""
    reduce = np.max if variant == "max" else np.mean
    return reduce(cos_a, axis=1) - reduce(cos_b, axis=1)


def effect_sizes_by_row(s: np.ndarray, n_x: int, ddof: int) -> np.ndarray:
    """d for every row of ``s`` (configurations x pooled items, the first ``n_x`` of X); NaN where undefined.

    ``d = (mean(row[:n_x]) - mean(row[n_x:])) / std(row, ddof)`` (Caliskan et al. 2017), the same numpy
    operations as :func:`~embias_widgets.metrics.association.effect_size`, along axis 1.
    """
    s = np.atleast_2d(np.asarray(s, dtype=np.float64))
    if s.shape[1] - ddof <= 0 or n_x in (0, s.shape[1]):
        return np.full(s.shape[0], np.nan)
    std = s.std(axis=1, ddof=ddof)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (s[:, :n_x].mean(axis=1) - s[:, n_x:].mean(axis=1)) / std
    d[~((std > 0) & np.isfinite(std))] = np.nan
    return d


def _indicator_blocks(n: int, k: int, n_samples: int, rng: np.random.Generator) -> tuple[Iterator[np.ndarray], bool]:
    """Split indicators over n items with k in X: every split when ``C(n, k) <= n_samples`` (and the exact cap),
    else ``n_samples - 1`` uniform random ones in seeded blocks (the ``keys`` sampler's draw)."""
    if math.comb(n, k) <= min(n_samples, MAX_EXACT_SPLITS):
        return _exact_indicator_batches(n, k, max(64, (1 << 20) // n)), True
    rows = sampling_block_rows(n)
    sizes = [min(rows, n_samples - 1 - lo) for lo in range(0, n_samples - 1, rows)]
    children = rng.spawn(len(sizes))
    return (_random_subset_indicators(c, r, n, k) for c, r in zip(children, sizes, strict=True)), False


class _Tails:
    """Tail counts (or normal-fit moments) of the null statistics of several configurations, block by block.

    ``observed``: each configuration's S. A block's ``null`` is (splits x configurations); ``mask`` marks the
    splits that belong to each configuration (all when ``None``). Ties within ``100 eps |S|`` count as equal,
    as in :func:`~embias_widgets.metrics.permutation.permutation_test` (scipy's tolerance).
    """

    def __init__(self, observed: np.ndarray, alternative: str, parametric: bool) -> None:
        self.observed, self.alternative, self.parametric = observed, alternative, parametric
        self.gamma = np.abs(observed) * np.finfo(np.float64).eps * 100
        self.greater, self.less = np.zeros(len(observed)), np.zeros(len(observed))
        self.count, self.moments = np.zeros(len(observed)), np.zeros((2, len(observed)))

    def add(self, null: np.ndarray, mask: np.ndarray | None = None) -> None:
        self.count += len(null) if mask is None else np.count_nonzero(mask, axis=0)
        if self.parametric:
            kept = null if mask is None else np.where(mask, null, 0.0)
            self.moments += (kept.sum(axis=0), (kept * kept).sum(axis=0))
            return
        if self.alternative != "less":
            hit = null >= self.observed - self.gamma
            self.greater += np.count_nonzero(hit if mask is None else hit & mask, axis=0)
        if self.alternative != "greater":
            hit = null <= self.observed + self.gamma
            self.less += np.count_nonzero(hit if mask is None else hit & mask, axis=0)

    def add_own_set(self, full: np.ndarray, ind: np.ndarray, n_x: int, shift: np.ndarray) -> None:
        """Word influence's target configurations from one block of the full test's splits ``ind``: item i's
        configuration keeps the splits that put it in its own set (X for i < n_x) and its statistic is
        ``full + shift_i``. As ``full + shift_i >= S_i - gamma_i`` is ``full >= S_i - shift_i - gamma_i``, the
        counts are one product of the indicators with a few 0/1 (or moment) vectors over the splits; only splits
        within the configurations' tie tolerances of each other are compared one by one."""
        tails = [(t, sign) for t, sign in (("greater", 1.0), ("less", -1.0))
                 if not self.parametric and self.alternative in (t, "two-sided")]
        columns, unsure = [np.ones(len(full))], {}
        if self.parametric:
            columns += [full, full * full]
        for tail, sign in tails:
            threshold = self.observed - shift - sign * self.gamma  # a hit: sign * (full - threshold) >= 0
            lo, hi = (threshold.min(), threshold.max()) if sign > 0 else (threshold.max(), threshold.min())
            columns.append((sign * (full - hi) >= 0).astype(np.float64))  # beyond every threshold
            unsure[tail] = (threshold, np.flatnonzero((sign * (full - lo) >= 0) & (sign * (full - hi) < 0)), sign)
        stacked = np.column_stack(columns)
        t = stacked.T @ ind  # (vectors, items): each vector summed over the splits with the item in X
        own = np.concatenate([t[:, :n_x], stacked.sum(axis=0)[:, None] - t[:, n_x:]], axis=1)
        self.count += own[0]
        if self.parametric:
            f1, f2 = own[1], own[2]
            self.moments += (f1 + shift * own[0], f2 + 2 * shift * f1 + shift * shift * own[0])
            return
        for row, (tail, _) in enumerate(tails, start=1):
            counts = own[row]
            threshold, rows, sign = unsure[tail]
            if rows.size:
                keeps = np.concatenate([ind[rows, :n_x] > 0.5, ind[rows, n_x:] < 0.5], axis=1)
                counts = counts + np.count_nonzero(
                    keeps & (sign * (full[rows, None] - threshold[None, :]) >= 0), axis=0)
            getattr(self, tail)[...] += counts

    def pvalues(self, exact: bool) -> tuple[np.ndarray, np.ndarray]:
        """p per configuration (sampled: the observed split added, ``(1 + #) / (count + 1)``) and its splits."""
        if self.parametric:
            from scipy import stats  # here, not at import: scipy.stats costs about 1 s to import

            mean = self.moments[0] / self.count
            std = np.sqrt(np.maximum(self.moments[1] - self.count * mean * mean, 0.0) / np.maximum(self.count - 1, 1))
            with np.errstate(divide="ignore", invalid="ignore"):
                z = (self.observed - mean) / std
            p_greater = np.where(std > 0, stats.norm.sf(z), (self.observed <= mean).astype(float))
            p_less = np.where(std > 0, stats.norm.cdf(z), (self.observed >= mean).astype(float))
            count = self.count
        else:
            extra = 0 if exact else 1
            count = self.count + extra
            p_greater, p_less = (self.greater + extra) / count, (self.less + extra) / count
        if self.alternative == "greater":
            return p_greater, count
        if self.alternative == "less":
            return p_less, count
        return np.minimum(1.0, 2.0 * np.minimum(p_greater, p_less)), count


def column_pvalues(
    values: np.ndarray, n_x: int, *, n_samples: int, alternative: str = "greater", method: str = "auto",
    rng: np.random.Generator | int | None = None,
) -> tuple[np.ndarray, bool, int]:
    """Permutation p-values of ``S = sum_X s - sum_Y s`` for every column of ``values`` (items x configurations).

    All columns share the same splits (exact enumeration when ``C(n, n_x) <= n_samples``, else
    ``n_samples - 1`` uniform random splits plus the observed one, ``p = (1 + #{S_i >= S}) / n_samples``),
    with scipy's tie tolerance (``100 eps |S|``) as in
    :func:`~embias_widgets.metrics.permutation.permutation_test`; ``method="parametric"`` takes the normal
    fit's tail instead (Caliskan et al. 2017). Returns the p-values, whether exact, and the splits counted.
    """
    values = np.asarray(values, dtype=np.float64)
    total = values.sum(axis=0)
    tails = _Tails(2.0 * values[:n_x].sum(axis=0) - total, alternative, method == "parametric")
    blocks, exact = _indicator_blocks(values.shape[0], n_x, n_samples, np.random.default_rng(rng))
    for ind in blocks:
        tails.add(2.0 * (ind @ values) - total)
    p, count = tails.pvalues(exact)
    return p, exact, int(count[0]) if len(count) else 0


@dataclass(frozen=True)
class LeaveOneOut:
    """d and p with one item left out, per set (``"targ1"``, ``"targ2"``, ``"attr1"``, ``"attr2"``).

    ``effect_size[key][i]`` is d without item i of set ``key`` (NaN where undefined, e.g. a set left
    empty), ``pvalue[key][i]`` its p. ``exact`` (per set) and ``n_permutations`` (per item): how those p were
    computed (sampled: the splits that fit the configuration, the observed one included).
    """

    effect_size: dict[str, np.ndarray]
    pvalue: dict[str, np.ndarray]
    exact: dict[str, bool]
    n_permutations: dict[str, np.ndarray]


def _drop_each(s: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Rows ``s`` without item i, for i in ``range(lo, hi)``: shape (hi - lo, len(s) - 1)."""
    n = len(s)
    keep = np.arange(n - 1)[None, :] + (np.arange(n - 1)[None, :] >= np.arange(lo, hi)[:, None])
    return s[keep]


def _attribute_dropped(cos: np.ndarray, variant: str) -> np.ndarray:
    """Per attribute item j, ``reduce_{a != j} cos[w, a]`` for every target w: shape (attributes, targets).

    Mean: ``(sum - cos[:, j]) / (m - 1)``, an O(1) update per word; max: the largest cosine unless item j
    gave it, then the second largest. NaN everywhere when the set has one item (it would be empty).
    """
    m = cos.shape[1]
    if m < 2:
        return np.full((m, cos.shape[0]), np.nan)
    if variant == "mean":
        return (cos.sum(axis=1)[None, :] - cos.T) / (m - 1)
    top2 = np.partition(cos, m - 2, axis=1)[:, m - 2 :]  # (targets, 2): second largest, largest
    first, second = top2[:, 1], top2[:, 0]
    is_max = first[None, :] == cos.T
    tied = (cos == first[:, None]).sum(axis=1) > 1  # another item gives the same maximum
    return np.where(is_max & ~tied[None, :], second[None, :], first[None, :])


def _loo_pvalues(
    s: np.ndarray, n_x: int, attribute_rows: np.ndarray, *, n_samples: int, alternative: str, method: str,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """p without each item (targets X then Y, then the attribute rows' configurations) from ONE set of splits.

    Attribute configurations keep every target: each is a column of ``splits @ attribute_rows.T``. A target
    configuration "without x_i" uses the splits that put x_i in X: given that, the other items' split is a
    uniform (n_x - 1)-subset of the n - 1 others (every such subset exactly once when enumerating), so those
    splits are the leave-one-out test's own; its statistic is ``S_full - s_i``. Without y_j: the splits with
    y_j in Y, statistic ``S_full + s_j``. Rows holding NaN (an attribute set left empty) get NaN p.
    """
    n = len(s)
    total = s.sum()
    observed = 2.0 * s[:n_x].sum() - total
    ok = np.isfinite(attribute_rows).all(axis=1)
    values = attribute_rows[ok].T
    a_total = values.sum(axis=0)
    parametric = method == "parametric"
    shift = np.concatenate([-s[:n_x], s[n_x:]])
    targets = _Tails(observed + shift, alternative, parametric)
    attributes = _Tails(2.0 * values[:n_x].sum(axis=0) - a_total, alternative, parametric)
    blocks, exact = _indicator_blocks(n, n_x, n_samples, rng)
    both = np.column_stack([s, values])  # one product per block for the full test and every attribute column
    for ind in blocks:
        sums = ind @ both
        full = 2.0 * sums[:, 0] - total
        targets.add_own_set(full, ind, n_x, shift)
        attributes.add(2.0 * sums[:, 1:] - a_total)
    p_targets, count_targets = targets.pvalues(exact)
    p_attr, count_attr = np.full(len(attribute_rows), np.nan), np.zeros(len(attribute_rows))
    p_attr[ok], count_attr[ok] = attributes.pvalues(exact)
    return np.concatenate([p_targets, p_attr]), np.concatenate([count_targets, count_attr]), exact


def leave_one_out(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, *, variant: str = "mean", ddof: int = 1,
    n_samples: int = 100_000, alternative: str = "greater", method: str = "auto",
    rng: np.random.Generator | int | None = None, max_sampled: int | None = None,
) -> LeaveOneOut:
    """d and p of the test with each item of each set left out, all other choices unchanged.

    ``cos_a`` (targets x A) and ``cos_b`` (targets x B) hold the cosines of the target items, X's ``n_x``
    first. p is exact when the full test's is (``C(n, n_x) <= n_samples``), else from
    ``min(n_samples, max_sampled)`` uniform splits of the full test (``max_sampled``: by default
    :func:`influence_samples`, the run's ``n_samples`` up to 83 target items; seeded by ``rng``) shared by every
    configuration: an attribute item's configuration uses them all, a target item's those that put the item in
    its own set (about ``n_x / n`` of them for X; see :func:`_loo_pvalues`). Vectorised: one matrix product per
    block of splits for all configurations.
    """
    check_options(variant=variant, ddof=ddof, n_samples=n_samples, alternative=alternative, method=method, seed=rng)
    cos_a, cos_b = np.asarray(cos_a, dtype=np.float64), np.asarray(cos_b, dtype=np.float64)
    n = cos_a.shape[0]
    s = associations_from_cosines(cos_a, cos_b, variant)
    reduce = np.max if variant == "max" else np.mean
    configs = {
        "targ1": (_drop_each(s, 0, n_x), n_x - 1),
        "targ2": (_drop_each(s, n_x, n), n_x),
        "attr1": (_attribute_dropped(cos_a, variant) - reduce(cos_b, axis=1)[None, :], n_x),
        "attr2": (reduce(cos_a, axis=1)[None, :] - _attribute_dropped(cos_b, variant), n_x),
    }
    n_a = cos_a.shape[1]
    max_sampled = influence_samples(n, n_samples) if max_sampled is None else max_sampled
    samples = n_samples if math.comb(n, n_x) <= n_samples else min(n_samples, max_sampled)
    attribute_rows = np.vstack([configs["attr1"][0], configs["attr2"][0]])
    p, count, exact = _loo_pvalues(s, n_x, attribute_rows, n_samples=samples, alternative=alternative,
                                   method=method, rng=np.random.default_rng(rng))
    bounds = {"targ1": (0, n_x), "targ2": (n_x, n), "attr1": (n, n + n_a), "attr2": (n + n_a, len(p))}
    out: dict[str, dict] = {"d": {}, "p": {}, "exact": {}, "count": {}}
    for key, (rows, k) in configs.items():
        d = effect_sizes_by_row(rows, k, ddof)
        d[~np.isfinite(rows).all(axis=1)] = np.nan
        lo, hi = bounds[key]
        p_key = p[lo:hi].copy()
        if k in (0, rows.shape[1]):  # a target set left empty: no test
            p_key[:] = np.nan
        out["d"][key], out["p"][key], out["exact"][key], out["count"][key] = d, p_key, exact, count[lo:hi]
    return LeaveOneOut(out["d"], out["p"], out["exact"], out["count"])


@dataclass(frozen=True)
class SubsetStability:
    """d and p over K seeded subsets of the items (Antoniak & Mimno 2021 motivate it).

    ``sizes``: the items each subset keeps per set; ``effect_sizes`` and ``pvalues``: one per subset (NaN d
    where undefined); ``exact``/``n_permutations``: how the p were computed (splits shared by the subsets).
    """

    k: int
    keep: float
    sizes: dict[str, int]
    effect_sizes: np.ndarray
    pvalues: np.ndarray
    exact: bool
    n_permutations: int


def kept_size(n: int, keep: float) -> int:
    """Items a subset keeps of a set of n: ``round(keep n)``, at least 2 (at most n)."""
    return min(n, max(2, round(keep * n)))


def _subset_rows(gen: np.random.Generator, k: int, n: int, size: int) -> np.ndarray:
    """``k`` uniform random ``size``-subsets of ``range(n)`` as sorted index rows (the smallest random keys)."""
    return np.sort(np.argsort(gen.random((k, n)), axis=1)[:, :size], axis=1)


def _attribute_scores(cos: np.ndarray, idx: np.ndarray, variant: str) -> np.ndarray:
    """(subsets, targets): mean or max of ``cos[w, a]`` over each subset's attribute items ``idx``."""
    m = cos.shape[1]
    if variant == "mean":
        chosen = np.zeros((len(idx), m))
        np.put_along_axis(chosen, idx, 1.0, axis=1)
        return chosen @ cos.T / idx.shape[1]
    return cos.T[idx].max(axis=1)  # (subsets, size, targets) -> (subsets, targets)


def subset_stability(
    cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, *, k: int = 200, keep: float = 0.8, variant: str = "mean",
    ddof: int = 1, n_samples: int = 100_000, alternative: str = "greater", method: str = "auto",
    rng: np.random.Generator | int | None = None, max_sampled: int = ROBUSTNESS_SAMPLES,
) -> SubsetStability:
    """d and p of ``k`` seeded random subsets, each keeping :func:`kept_size` items of every set.

    Per subset, s is recomputed from the kept attribute columns and read at the kept target rows; the p of
    all subsets share one set of splits (exact when ``C(n', k') <= n_samples``, else
    ``min(n_samples, max_sampled)`` sampled). The same ``rng`` gives the same subsets and p-values.
    """
    check_options(variant=variant, ddof=ddof, n_samples=n_samples, alternative=alternative, method=method, seed=rng)
    if not (isinstance(k, int) and k >= 1):
        raise ValueError(f"`k` (subsets) must be a positive integer, got {k!r}")
    if not 0 < keep <= 1:
        raise ValueError(f"`keep` must be a share in (0, 1], e.g. 0.8, got {keep!r}")
    cos_a, cos_b = np.asarray(cos_a, dtype=np.float64), np.asarray(cos_b, dtype=np.float64)
    n_y = cos_a.shape[0] - n_x
    sizes = {key: kept_size(m, keep) for key, m in
             (("targ1", n_x), ("targ2", n_y), ("attr1", cos_a.shape[1]), ("attr2", cos_b.shape[1]))}
    gen = np.random.default_rng(rng)
    draw_gen, split_gen = gen.spawn(2)
    ix = _subset_rows(draw_gen, k, n_x, sizes["targ1"])
    iy = n_x + _subset_rows(draw_gen, k, n_y, sizes["targ2"])
    ia = _subset_rows(draw_gen, k, cos_a.shape[1], sizes["attr1"])
    ib = _subset_rows(draw_gen, k, cos_b.shape[1], sizes["attr2"])
    s = _attribute_scores(cos_a, ia, variant) - _attribute_scores(cos_b, ib, variant)  # (k, targets)
    rows = np.take_along_axis(s, np.hstack([ix, iy]), axis=1)
    kx = sizes["targ1"]
    d = effect_sizes_by_row(rows, kx, ddof)
    samples = n_samples if math.comb(rows.shape[1], kx) <= n_samples else min(n_samples, max_sampled)
    p, exact, count = column_pvalues(rows.T, kx, n_samples=samples, alternative=alternative, method=method,
                                     rng=split_gen)
    return SubsetStability(k=k, keep=keep, sizes=sizes, effect_sizes=d, pvalues=p, exact=exact,
                           n_permutations=count)
