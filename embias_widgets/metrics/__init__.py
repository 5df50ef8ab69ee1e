"""The metric core: pure functions over numpy arrays (no I/O, no models)."""

from .association import (
    AssociationResult,
    EffectSize,
    cosine_matrix,
    effect_size,
    per_word_association,
    unit_rows,
    weat,
)
from .bootstrap import BootstrapInterval, effect_size_interval
from .likelihood import (
    GroupBiasScore,
    PairBiasScore,
    StereoSetScore,
    attention_received,
    aul_score,
    aula_score,
    icat_score,
    pair_bias_score,
    pair_preferences,
    pll_score,
    stereoset_scores,
)
from .multiple_testing import HolmResult, holm_bonferroni
from .permutation import PermutationTestResult, permutation_test, split_statistic

__all__ = [
    "AssociationResult",
    "BootstrapInterval",
    "EffectSize",
    "GroupBiasScore",
    "HolmResult",
    "PairBiasScore",
    "PermutationTestResult",
    "StereoSetScore",
    "attention_received",
    "aul_score",
    "aula_score",
    "cosine_matrix",
    "effect_size",
    "effect_size_interval",
    "holm_bonferroni",
    "icat_score",
    "pair_bias_score",
    "pair_preferences",
    "per_word_association",
    "permutation_test",
    "pll_score",
    "split_statistic",
    "stereoset_scores",
    "unit_rows",
    "weat",
]
