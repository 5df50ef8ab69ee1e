"""Likelihood-based bias scores for (masked) language models: the aggregates, one module per kind.

The model computes per-token log-probabilities; everything here turns those
arrays into sentence scores and bias scores, with no model and no I/O.

Sentence scores, for tokens w_1..w_n (special tokens excluded):

- PLL (Salazar et al. 2020): ``sum_i log P(w_i | S without w_i)``,
  one masked copy of S per token;
- CPS (Nangia et al. 2020, CrowS-Pairs): the same sum restricted to the
  tokens the two sentences of a pair share (the modified tokens are never
  masked); alignment lives in the models layer;
- AUL (Kaneko & Bollegala 2022; Zhou, Kaneko & Bollegala 2022, eq. 5):
  ``(1/n) sum_i log P(w_i | S)`` from one pass over the unmasked sentence;
- AULA (Kaneko & Bollegala 2022): ``(1/n) sum_i a_i log P(w_i | S)``
  with ``a_i`` the attention token i receives, averaged over layers, heads and
  query positions (not renormalised; their ``evaluate.py``).

Bias scores over pairs (more stereotypical, less stereotypical sentence):

- pair bias score ``100 * mean 1[score(more) > score(less)]``, as CrowS-Pairs'
  ``metric.py`` (Nangia et al. 2020) and Kaneko & Bollegala's AUL/AULA code
  count it: ``more`` is CrowS-Pairs' ``sent_more`` in BOTH directions; the
  ``stereo_antistereo`` label only decides which sub-score (stereo /
  anti-stereo) a pair is reported under and never flips the comparison.
  CrowS-Pairs reports this percentage (50 = unbiased), Zhou, Kaneko &
  Bollegala (2022, eq. 6) report it minus 50 (range [-50, 50], 0 =
  unbiased). Ties count as "not stereotypical" in both (strict ``>``);
  ``metric.py`` first rounds each sentence score to 3 decimals, so pairs
  whose rounded scores are equal are "neutral": counted in N, never a
  success. Its per-direction sub-scores divide by the non-neutral pairs of
  that direction only (:attr:`GroupBiasScore.percent_of_decided`);
- StereoSet (Nadeem et al. 2021): SS = % of items whose stereotype beats the
  anti-stereotype, LMS = % of (meaningful, unrelated) comparisons the
  meaningful option wins (stereotype and anti-stereotype each against the
  unrelated sentence), ICAT = ``LMS * min(SS, 100 - SS) / 50``. The official
  scorer averages SS and LMS over targets (``average="target"``).

Modules: :mod:`.sentence_scores` (PLL, CPS, AUL, AULA), :mod:`.pair_bias` (the pair bias score, its
conventions and rounding), :mod:`.stereoset` (SS, LMS, ICAT).
"""

from .pair_bias import (
    CONVENTION_LABELS,
    CONVENTIONS,
    GroupBiasScore,
    PairBiasScore,
    check_decimals,
    pair_bias_score,
    pair_preferences,
)
from .sentence_scores import attention_received, aul_score, aula_score, pll_score
from .stereoset import StereoSetScore, icat_score, stereoset_from_comparisons, stereoset_scores

__all__ = [
    "CONVENTIONS",
    "CONVENTION_LABELS",
    "GroupBiasScore",
    "PairBiasScore",
    "StereoSetScore",
    "attention_received",
    "aul_score",
    "aula_score",
    "check_decimals",
    "icat_score",
    "pair_bias_score",
    "pair_preferences",
    "pll_score",
    "stereoset_from_comparisons",
    "stereoset_scores",
]
