"""anywidget front ends bound to the analyses (no science lives here)."""

from .bbq_explorer import BbqExplorer
from .effect_size_bars import EffectSizeBars
from .nli_explorer import NliExplorer
from .paired_likelihood_table import PairedLikelihoodTable
from .relation_projection import RelationProjectionWidget
from .report_viewer import ReportViewer
from .sense_explorer import SenseWeatExplorer
from .sense_selector import SenseSelector
from .weat_explorer import WeatExplorer
from .word_set_editor import WordSetEditor

__all__ = [
    "BbqExplorer",
    "EffectSizeBars",
    "NliExplorer",
    "PairedLikelihoodTable",
    "RelationProjectionWidget",
    "ReportViewer",
    "SenseSelector",
    "SenseWeatExplorer",
    "WeatExplorer",
    "WordSetEditor",
]
