"""CEAT's headline effect size, its interval over words and contexts, and its permutation p.

Guo & Caliskan (2021) draw one context per word ``N`` times and combine the ``N`` WEAT effect sizes ``e_i`` by
random effects (:mod:`.ceat`). Their interval and p treat the ``N`` samples as independent studies, but every
sample reuses the same few words and contexts, so both shrink as ``N`` grows whatever the words. Here:

**Effect size.** ``d = mean_i e_i``, the mean of the ``N`` samples' WEAT effect sizes (``ddof=1``), the
average the paper's combined effect size approximates.

**Estimand.** The expected effect size of one CEAT sample over the populations the lists stand for: sets of
the same sizes drawn from the populations of words, one context of each word drawn from the population of its
contexts. It is what ``mean_i e_i`` estimates without bias; it is below the d of the whole populations when the
sets are small or the contexts scatter (one sample's d is attenuated by the noise of its few contexts).

**Interval: a two-stage bootstrap, bias-corrected percentile (BC; Efron 1981, Efron & Tibshirani 1993 sec.
14.3).** One replicate draws the words of each set with replacement (``|X|`` of X, ...), then each drawn word's
contexts with replacement (as many as it has; Davison & Hinkley 1997 sec. 3.8), and reruns the sampling:
``replicate_samples`` samples of one context per drawn word, their mean ``e``. With ``R`` defined replicates
``t*_r``, ``z0 = Phi^-1(#{t* < d} / R + #{t* = d} / 2R)`` and the interval is the ``Phi(2 z0 - z)`` and
``Phi(2 z0 + z)`` quantiles of the replicates, ``z = Phi^-1((1 + level) / 2)``. The correction matters: a
replicate's duplicated words attenuate its d more than the data's, so the plain percentile interval sits low.

**p: a permutation test of the target words' labels** on the same ``N`` draws. ``sd_i`` (over X u Y) does not
depend on which words are called X, so ``mean_i e_i = mean_{j in X} m_j - mean_{j in Y} m_j`` with
``m_j = mean_i s_ij / sd_i``: every split of X u Y into sets of sizes ``|X|``, ``|Y|`` gives its statistic from
the ``m_j`` (:func:`.permutation_test`, exact up to ``permutations`` splits, else sampled). The null is "X and
Y words interchangeable" with these attribute words and contexts, as WEAT's test (Caliskan et al. 2017).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .ceat import CeatSamples, _draw_samples, _sample_associations, _word_arrays, check_n_samples
from .permutation import permutation_test
from .validation import MAX_SAMPLES, check_options

__all__ = ["DEFAULT_CEAT_RESAMPLES", "REPLICATE_SAMPLES", "CeatTest", "ceat_test"]

DEFAULT_CEAT_RESAMPLES = 1_000
"""Bootstrap replicates of CEAT's interval unless asked otherwise."""
REPLICATE_SAMPLES = 100
"""Samples of one context per word that each bootstrap replicate draws (fewer if the run draws fewer)."""
ESTIMAND = ("the expected effect size of one CEAT sample over the populations: sets of these sizes drawn from the "
            "populations of words the lists stand for, one context per word from the population of its contexts")
_ROW_CELLS = 2**22  # context numbers held per chunk of replicates
FEW_WORDS = 8
"""Below this many words in a set the interval is likely too narrow: it held 0.91-0.92 with 4 words a set in the
calibration suite (0.93-0.97 with 8)."""


@dataclass(frozen=True)
class CeatTest:
    """CEAT's headline numbers (see the module docstring).

    Attributes
    ----------
    effect_size
        ``mean_i e_i`` over the ``n_samples`` samples.
    interval, level, interval_method
        The two-stage bootstrap BC interval at ``level`` and what it resampled, in words.
    p_value, alternative, p_value_method, n_permutations, exact
        The permutation test of the target words' labels.
    n_resamples, replicate_samples, n_undefined
        Bootstrap replicates, the samples each drew, and how many were left out (a sample with zero spread).
    estimand
        What the interval is for, in words.
    samples, replicates
        The ``N`` draws (for Guo & Caliskan's random effects, :func:`.random_effects`) and each replicate's mean.
    note
        A warning when a set has fewer than :data:`FEW_WORDS` words, else None.
    """

    effect_size: float
    interval: tuple[float, float]
    level: float
    p_value: float
    alternative: str
    n_samples: int
    n_resamples: int
    replicate_samples: int
    n_undefined: int
    n_permutations: int
    exact: bool
    interval_method: str
    p_value_method: str
    estimand: str
    samples: CeatSamples
    replicates: np.ndarray
    note: str | None = None


def ceat_test(X: Sequence[np.ndarray], Y: Sequence[np.ndarray], A: Sequence[np.ndarray], B: Sequence[np.ndarray], *,
              n_samples: int = 10_000, rng: np.random.Generator | int | None = None, level: float = 0.95,
              n_resamples: int = DEFAULT_CEAT_RESAMPLES, replicate_samples: int = REPLICATE_SAMPLES,
              alternative: str = "greater", permutations: int = 100_000) -> CeatTest:
    """CEAT's effect size with its two-stage bootstrap BC interval and its permutation p (module docstring).

    ``X, Y, A, B``: one array per word, ``(its contexts, dim)``, as :func:`.ceat_samples` takes them. The ``N``
    draws come first from ``rng`` (so a seed gives :func:`.ceat_samples`'s draws), then the permutations (when
    sampled) and the replicates.
    """
    check_options(seed=rng, confidence_level=level, n_resamples=n_resamples, alternative=alternative)
    n_samples = check_n_samples(n_samples)
    for name, value, low in (("replicate_samples", replicate_samples, 1), ("permutations", permutations, 2)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or not low <= value <= MAX_SAMPLES:
            raise ValueError(f"`{name}` must be a whole number from {low} to {MAX_SAMPLES:,}, got {value!r}")
    gen = np.random.default_rng(rng)
    stacked, counts, sizes = _word_arrays((X, Y, A, B))
    drawn, standardised = _draw_samples(stacked, counts, sizes, n_samples, gen)
    d = float(drawn.effect_sizes.mean())
    nx, ny = sizes[0], sizes[1]
    test = permutation_test(standardised, nx, n_samples=permutations, alternative=alternative, rng=gen)
    per = min(int(replicate_samples), n_samples)
    reps = _replicates(stacked, counts, sizes, int(n_resamples), per, gen)
    defined = reps[np.isfinite(reps)]
    low, high = bc_interval(defined, d, level)
    splits = f"all {test.n_permutations:,} splits" if test.exact else f"{test.n_permutations:,} sampled splits"
    interval_method = (
        f"two-stage bootstrap, bias-corrected percentile (BC): {n_resamples:,} replicates, each drawing the words "
        f"of X, Y, A and B with replacement within their set and each drawn word's contexts with replacement, then "
        f"{per:,} samples of one context per word; interval for {ESTIMAND}"
        + (f"; {reps.size - defined.size} replicate(s) without a defined d left out" if defined.size < reps.size
           else ""))
    p_value_method = (
        f"permutation test ({alternative}) of the target words' labels on the same {n_samples:,} samples: {splits} "
        f"of the {nx + ny} target words into sets of {nx} and {ny}, the mean of the samples' d recomputed for each; "
        "null: X and Y words interchangeable, with these attribute words")
    return CeatTest(
        effect_size=d, interval=(low, high), level=float(level), p_value=float(test.pvalue), alternative=alternative,
        n_samples=n_samples, n_resamples=int(n_resamples), replicate_samples=per,
        n_undefined=int(reps.size - defined.size), n_permutations=int(test.n_permutations), exact=bool(test.exact),
        interval_method=interval_method, p_value_method=p_value_method, estimand=ESTIMAND, samples=drawn,
        replicates=reps, note=few_words_note(sizes))


def few_words_note(sizes: Sequence[int]) -> str | None:
    """A warning when a set of X, Y, A, B has fewer than :data:`FEW_WORDS` words (the bootstrap over so few words
    is too narrow), else None."""
    few = [f"{name} ({n})" for name, n in zip("XYAB", sizes, strict=True) if n < FEW_WORDS]
    if not few:
        return None
    return (f"fewer than {FEW_WORDS} words in {', '.join(few)}: the interval over words is likely too narrow (it held "
            f"the effect in 91-92% of simulated studies with 4 words a set, 93-97% with 8)")


def bc_interval(replicates: np.ndarray, estimate: float, level: float) -> tuple[float, float]:
    """Efron's bias-corrected percentile interval: the ``Phi(2 z0 -+ z)`` quantiles of ``replicates`` with
    ``z0 = Phi^-1`` of the share below ``estimate`` (ties count half). The share is kept within
    ``[1/2R, 1 - 1/2R]`` so that ``z0`` stays finite; NaN bounds without replicates."""
    r = np.asarray(replicates, dtype=np.float64)
    if r.size == 0:
        return math.nan, math.nan
    from scipy import stats  # here, not at import: scipy.stats costs about 1 s to import

    share = (np.count_nonzero(r < estimate) + 0.5 * np.count_nonzero(r == estimate)) / r.size
    z0 = float(stats.norm.ppf(min(max(share, 0.5 / r.size), 1 - 0.5 / r.size)))
    z = float(stats.norm.ppf((1 + level) / 2))
    low, high = np.quantile(r, stats.norm.cdf([2 * z0 - z, 2 * z0 + z]))
    return float(low), float(high)


def _replicates(stacked: np.ndarray, counts: np.ndarray, sizes: list[int], n_resamples: int, per: int,
                rng: np.random.Generator) -> np.ndarray:
    """Each replicate's mean ``e`` over ``per`` samples of the resampled words and contexts (NaN: undefined)."""
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    firsts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    words = sum(sizes)
    nx, ny, na, _ = sizes
    chunk = max(1, min(_ROW_CELLS // (per * words), _ROW_CELLS // max(1, int(counts.sum()))))
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        r = min(chunk, n_resamples - start)
        slots = np.concatenate([first + rng.integers(0, n, size=(r, n)) for first, n in zip(firsts, sizes,
                                                                                               strict=True)], axis=1)
        n_ctx = counts[slots]  # (r, words): each drawn word's number of contexts
        lengths = n_ctx.ravel()
        list_starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).reshape(r, 1, words)
        resampled = rng.integers(0, np.repeat(lengths, lengths))  # each drawn word's contexts, resampled
        picks = rng.integers(0, n_ctx[:, None, :], size=(r, per, words))  # one of them per sample
        rows = offsets[slots][:, None, :] + resampled[list_starts + picks]
        e = np.empty(r * per)
        for part, s in _sample_associations(stacked, counts, rows.reshape(r * per, words), nx + ny, na):
            sd = s.std(axis=1, ddof=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                e[part] = np.where(sd > 0, (s[:, :nx].mean(axis=1) - s[:, nx:].mean(axis=1)) / sd, np.nan)
        out[start:start + r] = e.reshape(r, per).mean(axis=1)
    return out
