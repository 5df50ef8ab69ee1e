"""The change in WEAT's effect size d between two models on the same words (WEAT, SEAT, sense WEAT).

``d = (mean_X s - mean_Y s) / std_{X u Y} s`` with ``s(w) = mean_a cos(w, a) - mean_b cos(w, b)`` (Caliskan
et al. 2017; ``max`` for the max variant, Zhou et al. 2022) is computed for each model from its own cosines;
the change is ``d_after - d_before``.

- **Interval**: the paired bootstrap over the words of all four sets. Each replicate draws ``|X|`` of X's
  words, ``|Y|`` of Y's, ``|A|`` of A's and ``|B|`` of B's with replacement (in that order, as scipy's
  multi-sample ``bootstrap`` draws them), the same words for both models, and recomputes both d's; the
  interval is BCa (Efron 1987) on the replicate differences, its acceleration from leaving out one word of
  each set in turn (:func:`~.paired.bca_bounds`). **Its estimand** is the change in d over the word
  populations the four lists stand for: for each model, d with every set replaced by its population
  (``s(w) = w/|w| . (E_A a/|a| - E_B b/|b|)``, ``d = (E_X s - E_Y s) / sd s`` over an equal mixture of X's and
  Y's populations: the single-model interval's estimand), after minus before.
- **When the attribute words' own spread dominates** (:func:`attribute_noise_share`): ``s`` is each target
  word's projection on the direction between the attribute sets' mean unit vectors, and with few attribute
  words that direction is partly noise (which words were drawn). The noise adds to the spread of ``s`` over
  the target words and not to the X-Y difference, so d on these words understates d over the populations, by
  a factor of about ``sqrt(1 - rho)`` with ``rho`` the noise's share of ``var(s)``. The bootstrap corrects
  this to first order only: with ``rho`` near 1 (a model that keeps little of the association axis, as
  projection debiasing leaves it, while the words keep their own spread) d over the populations is hardly
  estimable from these words, and the interval misses it (simulated: 0.33-0.60 coverage at ``rho`` about 1).
  Where either model's ``rho`` is at least :data:`ATTRIBUTE_NOISE_LIMIT` and the two models' ``rho`` differ by
  at least :data:`ATTRIBUTE_NOISE_GAP` the change carries a ``warning`` (with equal shares the two d's are
  understated alike and their difference much less).
  With attribute words fixed (``resample_attributes=False``) the estimand is conditional on them and no
  warning applies; the max variant and sets of one attribute word get none (``rho`` is undefined there).
- **Test** (words fixed): a paired permutation test. Under "the two models are interchangeable on every
  target word", swapping the two models' association scores of any target word leaves the distribution of the
  change unchanged. Each model's ``s`` is first standardised over X u Y (``(s - mean) / std``), which leaves
  its d as it is but puts both models on one scale, so that a model whose cosines are merely larger or
  smaller does not count as a change. Every swap pattern is enumerated for at most 16 target words (exact),
  else ``n_permutations`` random ones (+1 adjusted); two-sided. It answers "with these words"; the interval
  answers "with other words of the same kinds", and the two can disagree. (The swap is exact when the models'
  scores of different words are independent given the words; each model's own view of the attribute words
  couples them slightly: simulated size 0.064-0.070 at 0.05, 1,200 runs a setting.)
"""

from __future__ import annotations

import functools

import numpy as np

from .attribute_noise import ATTRIBUTE_NOISE_LIMIT, attribute_noise_share
from .bootstrap import bootstrap_replicates, resample_counts
from .paired import PairedChange, bca_bounds, bootstrap_p_value, interval_of
from .score_intervals import DEFAULT_LEVEL, ScoreInterval, check_level
from .validation import check_options

__all__ = ["ATTRIBUTE_NOISE_GAP", "ATTRIBUTE_NOISE_LIMIT", "EXACT_SWAP_WORDS", "attribute_noise_share",
           "effect_size_change", "swap_permutation_test"]

EXACT_SWAP_WORDS = 16
"""Up to this many target words the swap test enumerates every pattern (2^16 = 65,536)."""
ATTRIBUTE_NOISE_GAP = 0.15
"""A change in d gets a ``warning`` where either model's :func:`attribute_noise_share` is at least
:data:`ATTRIBUTE_NOISE_LIMIT` and the two shares differ by at least this (equal shares understate both d's
alike). Calibrated by simulation (``bench/calibration/check_compare.py``, 8 and 25 words a set): the interval
holds the change in d over the word populations, or the output warns, in 0.96-1.00 of runs in every setting,
where the interval alone held it in only 0.33-0.60 of runs when one model kept 0.3 of the association axis.
The warning is not rare where nothing is wrong: with 8 words a set and two interchangeable models it fires in
0.31-0.40 of runs (about 0.6 with the share limit alone), with 25 words in 0.001."""


def _d(s: np.ndarray, n_x: int, ddof: int) -> np.ndarray:
    """d along the last axis (X's ``n_x`` first); NaN where the standard deviation is 0."""
    std = s.std(axis=-1, ddof=ddof)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (s[..., :n_x].mean(axis=-1) - s[..., n_x:].mean(axis=-1)) / std
    return np.where(std > 0, d, np.nan)


def _s(cos_a: np.ndarray, cos_b: np.ndarray, variant: str) -> np.ndarray:
    if variant == "mean":
        return cos_a.mean(axis=-1) - cos_b.mean(axis=-1)
    return cos_a.max(axis=-1) - cos_b.max(axis=-1)


def _standardised(s: np.ndarray, ddof: int) -> np.ndarray:
    std = s.std(ddof=ddof)
    return (s - s.mean()) / std if std > 0 else s - s.mean()


@functools.lru_cache(maxsize=4)
def _all_patterns(n: int) -> np.ndarray:
    """Every swap pattern of ``n`` words once, as a (2^n, n) 0/1 float matrix (read-only, kept)."""
    out = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.float64)
    out.flags.writeable = False
    return out


def swap_permutation_test(s_before: np.ndarray, s_after: np.ndarray, n_x: int, *, ddof: int = 1,
                          n_permutations: int = 10_000,
                          rng: np.random.Generator | int | None = None) -> tuple[float, bool, int]:
    """``(p, exact, patterns)``: the paired permutation test of ``d(s_after) - d(s_before) = 0`` by swapping
    the two models' standardised association scores word by word (see the module docstring)."""
    check_options(n_resamples=n_permutations, seed=rng)
    zb, za = _standardised(np.asarray(s_before, float), ddof), _standardised(np.asarray(s_after, float), ddof)
    n = zb.size
    observed = float(_d(za, n_x, ddof) - _d(zb, n_x, ddof))
    if not np.isfinite(observed):
        return float("nan"), False, 0
    tol = 1e-12 * max(1.0, abs(observed))

    delta = zb - za
    weights = np.zeros((n, 3))  # per pattern, by one product: the shift of X's sum, Y's sum, the sum of squares
    weights[:n_x, 0], weights[n_x:, 1], weights[:, 2] = delta[:n_x], delta[n_x:], zb**2 - za**2
    base = np.array([[za[:n_x].sum(), za[n_x:].sum(), (za**2).sum()], [zb[:n_x].sum(), zb[n_x:].sum(),
                                                                      (zb**2).sum()]])

    def count(mask: np.ndarray) -> int:
        shift = mask @ weights  # the swapped words take zb in "after" (+shift) and za in "before" (-shift)
        d = []
        for sums in (base[0] + shift, base[1] - shift):
            var = (sums[:, 2] - (sums[:, 0] + sums[:, 1]) ** 2 / n) / (n - ddof)
            with np.errstate(divide="ignore", invalid="ignore"):
                d.append(np.where(var > 0, (sums[:, 0] / n_x - sums[:, 1] / (n - n_x)) / np.sqrt(var), np.nan))
        return int(np.sum(np.abs(d[0] - d[1]) >= abs(observed) - tol))

    if n <= EXACT_SWAP_WORDS:
        masks = _all_patterns(n)
        return count(masks) / len(masks), True, len(masks)
    gen = np.random.default_rng(rng)
    hits = sum(count((gen.random((min(2048, n_permutations - s), n)) < 0.5).astype(np.float64))
               for s in range(0, n_permutations, 2048))
    return (1 + hits) / (1 + n_permutations), False, int(n_permutations)


def _noise_warning(shares: list[float]) -> str | None:
    """The ``warning`` of a change in d whose models' attribute-noise shares are ``shares`` (before, after)."""
    if not all(np.isfinite(x) for x in shares) or max(shares) < ATTRIBUTE_NOISE_LIMIT or \
            abs(shares[1] - shares[0]) < ATTRIBUTE_NOISE_GAP:
        return None
    return (f"the attribute words' own spread makes up {shares[0]:.2f} (first model) and {shares[1]:.2f} (second) "
            "of the spread of the association scores: d on these words understates d over the word populations "
            "(by a factor of about sqrt(1 - share)), and where the models keep the association axis to different "
            "degrees (as after projection debiasing) the interval for the change over the word populations often "
            "misses it; read the change as one for these words (the permutation test), or use more attribute "
            "words")


def _jackknife(cos: list[tuple[np.ndarray, np.ndarray]], n_x: int, variant: str, ddof: int,
               attributes: bool) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per set (X, Y, and with ``attributes`` A, B), with each of its words left out: the change in d and the
    change in ``|d|`` (each model's d computed once for both)."""
    n_t, n_a, n_b = cos[0][0].shape[0], cos[0][0].shape[1], cos[0][1].shape[1]

    def both(rows: np.ndarray, cols_a: np.ndarray, cols_b: np.ndarray, nx: int) -> list[float]:
        return [float(_d(_s(ca[np.ix_(rows, cols_a)], cb[np.ix_(rows, cols_b)], variant), nx, ddof))
                for ca, cb in cos]

    all_t, all_a, all_b = np.arange(n_t), np.arange(n_a), np.arange(n_b)
    drops = [[both(np.delete(all_t, i), all_a, all_b, n_x - 1) for i in range(n_x)],
             [both(np.delete(all_t, i), all_a, all_b, n_x) for i in range(n_x, n_t)]]
    if attributes:
        drops += [[both(all_t, np.delete(all_a, j), all_b, n_x) for j in range(n_a)],
                  [both(all_t, all_a, np.delete(all_b, j), n_x) for j in range(n_b)]]
    per_model = [np.array(rows).T for rows in drops]  # (2 models, words of the set)
    return [d[1] - d[0] for d in per_model], [np.abs(d[1]) - np.abs(d[0]) for d in per_model]


def effect_size_change(
    before: tuple[np.ndarray, np.ndarray],
    after: tuple[np.ndarray, np.ndarray],
    n_x: int,
    *,
    variant: str = "mean",
    ddof: int = 1,
    level: float = DEFAULT_LEVEL,
    n_resamples: int = 2_000,
    n_permutations: int = 10_000,
    resample_attributes: bool = True,
    rng: np.random.Generator | int | None = None,
) -> PairedChange:
    """The change in d between two models on the same words (see the module docstring).

    ``before = (cos_a, cos_b)``: the first model's ``(targets x A)`` and ``(targets x B)`` cosines, targets X
    (the first ``n_x`` rows) then Y; ``after`` the second model's, same words in the same order.
    ``resample_attributes=False`` keeps A and B fixed (the interval the permutation test conditions on; also
    what a sense WEAT whose attribute senses are not kept gets). ``bias_change`` is the change in ``|d|``.
    The test's ``counts`` hold the words of each set and the swap patterns; ``warning`` says when either model's
    :func:`attribute_noise_share` is at least :data:`ATTRIBUTE_NOISE_LIMIT` and the two differ by at least
    :data:`ATTRIBUTE_NOISE_GAP` (the interval is then unreliable)."""
    level = check_level(level)
    check_options(variant=variant, ddof=ddof, n_resamples=n_resamples, seed=rng)
    cos = [(np.asarray(ca, dtype=np.float64), np.asarray(cb, dtype=np.float64)) for ca, cb in (before, after)]
    if cos[0][0].shape != cos[1][0].shape or cos[0][1].shape != cos[1][1].shape:
        raise ValueError("both models need the cosines of the same words: shapes "
                         f"{cos[0][0].shape}/{cos[0][1].shape} and {cos[1][0].shape}/{cos[1][1].shape}")
    n_t, n_a, n_b = cos[0][0].shape[0], cos[0][0].shape[1], cos[0][1].shape[1]
    n_y = n_t - n_x
    if n_x < 2 or n_y < 2 or n_a < 1 or n_b < 1:
        raise ValueError(f"need at least 2 words in X and Y and 1 in A and B, got {n_x}, {n_y}, {n_a}, {n_b}")
    s = [_s(ca, cb, variant) for ca, cb in cos]
    d = [float(_d(x, n_x, ddof)) for x in s]
    gen = np.random.default_rng(rng)
    r = int(n_resamples)
    ix, iy = gen.integers(0, n_x, (r, n_x)), gen.integers(0, n_y, (r, n_y))
    if resample_attributes:
        counts_a = resample_counts(gen.integers(0, n_a, (r, n_a)), n_a)
        counts_b = resample_counts(gen.integers(0, n_b, (r, n_b)), n_b)
    else:
        counts_a, counts_b = np.ones((r, n_a)), np.ones((r, n_b))
    reps = [bootstrap_replicates(ca, cb, n_x, counts_a, counts_b, ix, iy, variant=variant, ddof=ddof)
            for ca, cb in cos]
    change_reps = reps[1] - reps[0]
    jack, abs_jack = _jackknife(cos, n_x, variant, ddof, resample_attributes)
    change = d[1] - d[0]
    low, high = bca_bounds(change, change_reps, jack, level=level)
    sets = "X, Y, A and B" if resample_attributes else "X and Y (attribute words fixed)"
    estimand = ("the change in d over the word populations the lists stand for (each model's d with every set "
                "replaced by its population)") if resample_attributes else (
        "the change in d with these attribute words, over the target populations")
    method = (f"paired BCa bootstrap: {r} replicates resampling the words of {sets} with replacement, the same "
              f"words for both models; an interval for {estimand}")
    warning = None
    if resample_attributes and variant == "mean":
        warning = _noise_warning([attribute_noise_share(ca, cb) for ca, cb in cos])
    interval = ScoreInterval(low, high, level, method) if np.isfinite(low) and np.isfinite(high) else None
    p, exact, patterns = swap_permutation_test(s[0], s[1], n_x, ddof=ddof, n_permutations=n_permutations, rng=gen)
    test = (f"paired permutation test, words fixed: each target word's two association scores (standardised "
            f"per model) swapped between the models, {'all' if exact else 'random'} {patterns:,} patterns"
            f"{'' if exact else ' (+1 adjusted)'}, two-sided")
    bias_reps = np.abs(reps[1]) - np.abs(reps[0])
    bias_low, bias_high = bca_bounds(abs(d[1]) - abs(d[0]), bias_reps, abs_jack, level=level)
    bias_iv = ScoreInterval(bias_low, bias_high, level, method) if np.isfinite(bias_low) else \
        interval_of(bias_reps, level, method)
    p_value = None if not np.isfinite(p) else float(p)
    if p_value is None:
        p_value = bootstrap_p_value(change_reps)
    return PairedChange(before=d[0], after=d[1], change=change, interval=interval, p_value=p_value, test=test,
                        reference=0.0, bias_change=abs(d[1]) - abs(d[0]), bias_interval=bias_iv, n=n_t + n_a + n_b,
                        counts={"n_x": n_x, "n_y": n_y, "n_a": n_a, "n_b": n_b, "patterns": patterns},
                        replicates=change_reps, warning=warning)
