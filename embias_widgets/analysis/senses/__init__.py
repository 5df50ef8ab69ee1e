"""The sense studies of Zhou, Kaneko & Bollegala (2022): a WEAT over word senses with its word-level twins
(:class:`SenseAssociationTest`, section 3 and Table 2) and the gender direction bias of senses
(:func:`sense_gender_bias`, section 7, eq. 8, Figure 2).

- ``study.py``: :class:`SenseAssociationTest`, the runner;
- ``result.py``: the frozen results, :class:`SenseAssociationResult` and :class:`SenseGenderBiasResult`;
- ``resolve.py``: reading items as sense keys or lemmas, one item per lemma at the word level;
- ``gender.py``: eq. 8, the gender direction and ``cos(v, g)``;
- ``suite.py``: sense runs in batch (the command line);
- ``lookup.py``: WordNet lookups for picking senses (what the sense selector shows).
"""

from .gender import sense_gender_bias
from .lookup import (
    POS_NAMES,
    USER_ERRORS,
    Lookup,
    Sense,
    UnknownSenseError,
    describe,
    item_chip,
    item_senses,
    load_wordnet,
    look_up,
    sense_record,
    short_gloss,
)
from .resolve import SenseInputError, one_item_per_lemma
from .result import (
    KINDS,
    LEVEL_TITLES,
    LEVELS,
    GenderBiasRow,
    ResolvedItem,
    SenseAssociationResult,
    SenseGenderBiasResult,
    altair_scale_colors,
)
from .study import SENSE_MODES, SenseAssociationTest
from .suite import is_sense_model, run_sense_suite, uses_senses

__all__ = [
    "KINDS",
    "LEVELS",
    "LEVEL_TITLES",
    "POS_NAMES",
    "SENSE_MODES",
    "USER_ERRORS",
    "GenderBiasRow",
    "Lookup",
    "ResolvedItem",
    "Sense",
    "SenseAssociationResult",
    "SenseAssociationTest",
    "SenseGenderBiasResult",
    "SenseInputError",
    "UnknownSenseError",
    "altair_scale_colors",
    "describe",
    "is_sense_model",
    "item_chip",
    "item_senses",
    "load_wordnet",
    "look_up",
    "one_item_per_lemma",
    "run_sense_suite",
    "sense_gender_bias",
    "sense_record",
    "short_gloss",
    "uses_senses",
]
