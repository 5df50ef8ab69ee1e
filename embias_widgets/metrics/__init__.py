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
from .multiple_testing import HolmResult, holm_bonferroni
from .permutation import PermutationTestResult, permutation_test, split_statistic

__all__ = [
    "AssociationResult",
    "BootstrapInterval",
    "EffectSize",
    "HolmResult",
    "PermutationTestResult",
    "cosine_matrix",
    "effect_size",
    "effect_size_interval",
    "holm_bonferroni",
    "per_word_association",
    "permutation_test",
    "split_statistic",
    "unit_rows",
    "weat",
]
