"""Two-way bootstrap intervals of an NLI probe's NN, FN and T:tau, over its independent units.

A probe crosses templates with word pairs (Dev et al. 2020: "The SUBJECT VERB a/an OBJECT." x (premise word,
hypothesis word)); a sentence pair is one cell of that crossing. Pairs that share a template or a word pair
are not independent, so treating the ~1.9M pairs of a probe as independent draws gives intervals far too
narrow (NN 0.3377 [0.3377, 0.3377] on the whole gender x occupation probe). The units drawn from
populations are the **templates** and the **word pairs**; the estimand of every interval here is the measure
over those populations: ``E[x]`` over templates and word pairs for the sentence-pair level, the share (or
mean) over word pairs of their mean over templates for the word-pair level.

One replicate (Owen 2007's pigeonhole bootstrap, in the form the sufficient statistics allow):

- **word pairs** are resampled with replacement, each with all its sentence pairs: multinomial counts
  ``b_w`` (exactly, from the per-word-pair sums);
- **templates** are resampled with replacement, multinomial counts ``a_t``, entering as a linear shift: a
  measure ``x`` (the neutral probability, ``1[argmax = neutral]``, ``1[n > tau]``) moves by
  ``lambda sum_t (a_t - 1) (H_t - n_t m) / N`` (``H_t``: template t's sum of x, ``n_t`` its pairs, ``m``
  the estimate), and every word pair's template mean of (e, n, c) by the same shift of the template sums.
  Resampling both ways counts the pairs' own noise (the template x word-pair interaction) twice, once in
  each margin (Owen 2007; McCullagh 2000): ``lambda^2 = max(0, V_T - V_TW) / V_T`` takes it out of the
  template margin, with ``V_T = sum_t (H_t - n_t m)^2 / N^2`` and ``V_TW = sum_i (x_i - m)^2 / N^2``, so the
  replicates' variance is the two-way cluster estimate ``V_W + V_T - V_TW`` (Cameron, Gelbach & Miller 2011).

Sentence-pair level: ``m* = sum_w b_w H_w / sum_w b_w n_w + template shift``. Word-pair level: each word
pair's mean (e, n, c) over its templates plus the shift of the templates' means, then NN, FN (argmax) and
T:tau of those, weighted by ``b_w``. The interval is the percentile interval of the replicates, expanded for
few units (Hesterberg 2015, with Satterthwaite's degrees of freedom of the two components), clipped to [0, 1];
a share over word pairs (FN, T:tau) is never narrower than Wilson's interval over the word pairs (the
percentile interval of a share collapses to a point when every word pair is on one side). All of it reads
only the sums that chunks keep (:class:`~.neutrality.NeutralityStats`, :class:`~.neutrality.TemplateStats`);
vectorised over batches of replicates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .score_intervals import (
    DEFAULT_LEVEL,
    ScoreInterval,
    bootstrap_indices,
    check_level,
    expanded_level,
    percentile_interval,
    resample_counts,
    wilson_interval,
)
from .validation import check_options

__all__ = ["DEFAULT_RESAMPLES", "NOISY_WORD_MEANS", "noisy_word_means", "two_way_intervals"]

DEFAULT_RESAMPLES = 2_000
"""Bootstrap replicates of an NLI interval unless asked otherwise."""

NliStats = Any  # a :class:`~.neutrality.NeutralityStats` (typed Any: that module imports this one)


def _measures(stats: NliStats) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Names, per-word-pair sums ``(W, m)`` and totals of squares ``(m,)`` of the pair-level measures."""
    names = list(stats.pair_level())  # net_neutral, fraction_neutral, threshold_<tau>... in the run's order
    per_word = np.column_stack([stats.sums[:, 1], stats.argmax[:, 1], stats.above]).astype(np.float64)
    squares = np.nan if stats.squares is None else float(np.sum(stats.squares))
    return names, per_word, np.array([squares, *per_word[:, 1:].sum(axis=0)])  # an indicator is its own square


def _template_part(stats: NliStats, estimate: np.ndarray,
                   squares: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(U, lam, D)``: per-template deviations ``(T, m)`` of the measures, their shrink factors ``(m,)`` and
    the deviations ``(T, 3)`` of the templates' (e, n, c) sums; None with fewer than 2 templates."""
    t = stats.templates
    if t is None or len(t.keys) < 2:
        return None
    n = stats.n_pairs
    per_template = np.column_stack([t.sums[:, 1], t.argmax[:, 1], t.above]).astype(np.float64)
    U = (per_template - t.count[:, None] * estimate[None, :]) / n
    v_t = np.sum(U * U, axis=0)
    v_tw = (squares - n * estimate * estimate) / (n * n)
    v_tw = np.where(np.isfinite(v_tw), v_tw, 0.0)  # squares unknown: no shrinking (conservative)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(v_t > 0, np.sqrt(np.clip(v_t - v_tw, 0.0, None) / v_t), 0.0)
    if stats.n_word_pairs == 1:  # no word-pair margin resampled, so nothing is counted twice
        lam = np.ones_like(lam)
    mean = t.sums.sum(axis=0) / n
    D = (t.sums - t.count[:, None] * mean[None, :]) / n
    return U, lam, D


def _degrees_of_freedom(stats: NliStats, per_word: np.ndarray, estimate: np.ndarray,
                        part: tuple | None) -> np.ndarray:
    """Per measure, Satterthwaite's degrees of freedom of the two variance components the replicates carry: the
    word pairs' ``V_W = sum_w (H_w - n_w m)^2 / N^2`` over ``W - 1`` and the templates' ``lambda^2 V_T`` over
    ``T - 1``: ``(V_W + V_T')^2 / (V_W^2 / (W - 1) + V_T'^2 / (T - 1))``."""
    n, w = stats.n_pairs, stats.n_word_pairs
    v_w = np.sum(((per_word - stats.count[:, None] * estimate[None, :]) / n) ** 2, axis=0) if w > 1 else \
        np.zeros(per_word.shape[1])
    v_t, t = (np.zeros_like(v_w), 1) if part is None else (part[1] ** 2 * np.sum(part[0] ** 2, axis=0),
                                                             len(part[0]))
    with np.errstate(divide="ignore", invalid="ignore"):
        df = (v_w + v_t) ** 2 / (v_w ** 2 / max(w - 1, 1) + v_t ** 2 / max(t - 1, 1))
    return np.where(np.isfinite(df), df, max(w, t) - 1.0)


NOISY_WORD_MEANS = 0.3
"""Above this share of the word pairs' spread coming from their own templates' noise, the word-pair shares warn."""


def noisy_word_means(stats: NliStats) -> float | None:
    """How much of the spread of the word pairs' mean neutral probability is their templates' noise: the pairs'
    own (template x word pair) variance, ``mean_w var_t(n) - var_t(template means)``, over the templates a word
    pair averages, as a share of the word pairs' variance. A share over word pairs of noisy means is biased
    (the calibration suite: 0.89 coverage with 10 templates and mostly pair-level noise); None when undefined."""
    t, count = stats.templates, stats.count.astype(float)
    if t is None or len(t.keys) < 2 or stats.n_word_pairs < 2 or stats.squares is None or np.any(count < 2):
        return None
    means = stats.sums[:, 1] / count
    within = float(np.mean((stats.squares - count * means ** 2) / (count - 1)))
    template_means = t.sums[:, 1] / t.count
    own = max(0.0, within - float(np.var(template_means, ddof=1))) / float(np.mean(count))
    spread = float(np.var(means, ddof=1))
    return None if spread <= 0 else own / spread


def _replicates(stats: NliStats, per_word: np.ndarray, part: tuple | None, rng: np.random.Generator,
                r: int) -> tuple[np.ndarray, np.ndarray]:
    """``(r, m)`` replicates of the pair-level and of the word-pair-level measures."""
    b = resample_counts(bootstrap_indices(rng, stats.n_word_pairs, r), stats.n_word_pairs)
    pair = (b @ per_word) / (b @ stats.count.astype(float))[:, None]
    M = stats.word_pair_means()[None, :, :]
    if part is not None:
        U, lam, D = part
        a = resample_counts(bootstrap_indices(rng, len(U), r), len(U)) - 1.0
        pair = pair + (a @ U) * lam[None, :]
        M = M + (lam[0] * (a @ D))[:, None, :]  # the neutral probability's shrink moves the whole triple
    nn = M[:, :, 1]
    word = [nn, M.argmax(axis=2) == 1, *[nn > tau for tau in stats.taus]]
    weights = b / b.sum(axis=1, keepdims=True)
    return pair, np.column_stack([np.sum(weights * w, axis=1) for w in word])


def _method(stats: NliStats, level_name: str, n_resamples: int, seed: int, lam: float | None) -> str:
    w, n = stats.n_word_pairs, stats.n_pairs
    if w == 1:
        return (f"bootstrap percentile interval: {n_resamples:,} replicates (seed {seed}) resampling the "
                f"{len(stats.templates.keys):,} templates with replacement (a linear shift); one word pair, so the "
                "interval is conditional on it (score more word pairs for an interval over them)")
    if lam is None:
        t = "one template" if stats.templates is not None else "templates not recorded"
        templates = f"word pairs only ({t}: the interval is conditional on the templates)"
    else:
        templates = (f"and the {len(stats.templates.keys):,} templates with replacement (a linear shift, shrunk by "
                     f"{lam:.2f} so that the pairs' own noise is not counted twice; Cameron, Gelbach & Miller "
                     "2011)")
    what = ("the mean over templates and word pairs" if level_name == "pairs"
            else "the measure over word pairs of their means over templates")
    return (f"two-way bootstrap percentile interval (Owen 2007): {n_resamples:,} replicates (seed {seed}) "
            f"resampling the {w:,} word pairs with replacement, each with all its sentence pairs, {templates}; "
            f"the {n:,} sentence pairs share templates and word pairs, so they are not resampled; for {what}")


def two_way_intervals(stats: NliStats, *, level: float = DEFAULT_LEVEL, n_resamples: int = DEFAULT_RESAMPLES,
                      seed: int = 0, batch: int = 128) -> dict[str, dict[str, ScoreInterval | None]]:
    """``{"pairs": {measure: interval}, "word_pairs": {...}}`` of a probe's statistics (module docstring):
    NN, FN and every T:tau at both levels. With one word pair only the templates are resampled (the interval is
    conditional on that word pair; None without 2 templates either); with one template (or none recorded), only
    the word pairs (conditional on the templates)."""
    level = check_level(level)
    check_options(n_resamples=n_resamples, seed=seed)
    stats._nonempty()
    names, per_word, squares = _measures(stats)
    estimate = per_word.sum(axis=0) / stats.n_pairs
    part = _template_part(stats, estimate, squares)
    if stats.n_word_pairs < 2 and part is None:
        return {name: dict.fromkeys(names) for name in ("pairs", "word_pairs")}
    df = _degrees_of_freedom(stats, per_word, estimate, part)
    rng = np.random.default_rng(seed)
    pair_reps, word_reps = [], []
    for start in range(0, int(n_resamples), batch):
        p, w = _replicates(stats, per_word, part, rng, min(batch, int(n_resamples) - start))
        pair_reps.append(p)
        word_reps.append(w)
    out: dict[str, dict[str, ScoreInterval | None]] = {}
    word_shares, noisy = stats.word_level(), noisy_word_means(stats)
    for level_name, reps in (("pairs", np.vstack(pair_reps)), ("word_pairs", np.vstack(word_reps))):
        out[level_name] = {}
        for j, name in enumerate(names):
            k = j if level_name == "pairs" else 0  # the word-pair level moves with NN's template shift
            lam = None if part is None else float(part[1][k])
            wide = expanded_level(level, float(df[k]))
            method = _method(stats, level_name, int(n_resamples), int(seed), lam) + (
                f"; expanded percentile interval (Hesterberg 2015; the {wide:.4g} percentiles for {df[k]:.1f} "
                "degrees of freedom, Satterthwaite's over the two components)")
            iv = percentile_interval(reps[:, j], level=wide, method=method)
            low, high = (np.nan, np.nan) if iv is None else (max(0.0, iv.low), min(1.0, iv.high))
            if level_name == "word_pairs" and j > 0 and stats.n_word_pairs > 1:  # never narrower than Wilson's
                w = stats.n_word_pairs
                floor = wilson_interval(round(word_shares[name] * w), w, level=level)
                low, high = min(low, floor.low), max(high, floor.high)
                method += f"; widened where needed to Wilson's interval over the {w:,} word pairs"
                if noisy is not None and noisy > NOISY_WORD_MEANS:
                    method += (f"; warning: {noisy:.0%} of the word pairs' spread is their templates' noise (too few "
                               "templates for it), so this share of word pairs is biased and its interval may "
                               "cover less than its level")
            out[level_name][name] = None if not np.isfinite(low) else ScoreInterval(low, high, level, method)
    return out
