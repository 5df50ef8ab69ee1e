"""The relation study: RIPA along the relation vector of ordered pairs, debiasing by projection.

- :mod:`.study`: :class:`RelationProjection` (pairs, words, a static model; ``run()``, debiased models);
- :mod:`.result`: :class:`RelationProjectionResult` (summary, to_dict, frame, chart);
- :mod:`.before_after`: :func:`weat_before_after` (WEAT under several models, side by side);
- :mod:`.contrived`: Ethayarajh et al. (2019)'s Table 1 and the contrived-attribute search;
- :mod:`.validation`: what a relation study accepts.
"""

from .before_after import weat_before_after
from .contrived import contrived_attribute_search, contrived_attribute_table
from .result import PAIR_GROUPS, RelationProjectionResult
from .study import DEFAULT_PAIRS, SUBSPACE_KINDS, RelationProjection
from .validation import DEFAULT_GROUP, Pair, RelationInputError, clean_pairs, clean_word_groups

__all__ = [
    "DEFAULT_GROUP",
    "DEFAULT_PAIRS",
    "PAIR_GROUPS",
    "SUBSPACE_KINDS",
    "Pair",
    "RelationInputError",
    "RelationProjection",
    "RelationProjectionResult",
    "clean_pairs",
    "clean_word_groups",
    "contrived_attribute_search",
    "contrived_attribute_table",
    "weat_before_after",
]
