"""Kernel-side compute classes: one per kind of study."""

from .association import (
    AssociationInputError,
    AssociationTest,
    AssociationTestResult,
    SentenceAssociationTest,
    SuiteResult,
    run_suite,
)
from .bbq import BbqResult, BbqStudy
from .ceat import CeatInputError, ContextualAssociationResult, ContextualAssociationTest
from .likelihood import PairedLikelihood, PairedLikelihoodResult, PairRow
from .nli import NliProbe, NliProbeResult, NliRunError, debias_comparison
from .relation import (
    RelationInputError,
    RelationProjection,
    RelationProjectionResult,
    contrived_attribute_search,
    contrived_attribute_table,
    weat_before_after,
)
from .report import Report, ReportResult
from .senses import (
    SenseAssociationResult,
    SenseAssociationTest,
    SenseGenderBiasResult,
    SenseInputError,
    sense_gender_bias,
)
from .study_result import StudyResult

__all__ = [
    "AssociationInputError",
    "AssociationTest",
    "AssociationTestResult",
    "BbqResult",
    "BbqStudy",
    "CeatInputError",
    "ContextualAssociationResult",
    "ContextualAssociationTest",
    "NliProbe",
    "NliProbeResult",
    "NliRunError",
    "PairRow",
    "PairedLikelihood",
    "PairedLikelihoodResult",
    "RelationInputError",
    "RelationProjection",
    "RelationProjectionResult",
    "Report",
    "ReportResult",
    "SenseAssociationResult",
    "SenseAssociationTest",
    "SenseGenderBiasResult",
    "SenseInputError",
    "SentenceAssociationTest",
    "StudyResult",
    "SuiteResult",
    "contrived_attribute_search",
    "contrived_attribute_table",
    "debias_comparison",
    "run_suite",
    "sense_gender_bias",
    "weat_before_after",
]
