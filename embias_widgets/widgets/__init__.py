"""anywidget front ends bound to the analyses (no science lives here)."""

from .effect_size_bars import EffectSizeBars
from .explorer import WeatExplorer
from .likelihood_table import PairedLikelihoodTable
from .nli import NliExplorer
from .relation import RelationProjectionWidget
from .sense_explorer import SenseWeatExplorer
from .sense_selector import SenseSelector
from .word_set_editor import WordSetEditor

__all__ = [
    "EffectSizeBars",
    "NliExplorer",
    "PairedLikelihoodTable",
    "RelationProjectionWidget",
    "SenseSelector",
    "SenseWeatExplorer",
    "WeatExplorer",
    "WordSetEditor",
]
