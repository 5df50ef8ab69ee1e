"""The association study: WEAT on word vectors, SEAT on sentences, and suites of tests x models.

- :mod:`.study`: :class:`AssociationTest` (the sets, a model, the options; ``run()``);
- :mod:`.sentence`: :class:`SentenceAssociationTest` (SEAT: words slotted into templates);
- :mod:`.result`: :class:`AssociationTestResult` (summary, to_dict, frame, chart);
- :mod:`.suite`: :func:`run_suite` and :class:`SuiteResult` (May et al. 2019's tests x models, Holm);
- :mod:`.catalog`: which study runs a test, and the tests and models the pickers offer;
- :mod:`.merging`, :mod:`.validation`: items that are one vector; what a study accepts.
"""

from ...metrics import DEFAULT_ALPHA
from .catalog import (
    SET_KEYS,
    USER_ERRORS,
    association_test_for,
    display_test_name,
    load_association_model,
    model_choices,
    test_choices,
    test_names,
)
from .merging import MergedItems, merge_same_vectors
from .result import AssociationTestResult, association_record, describe_p_value
from .sentence import SentenceAssociationTest, resolve_sentence_test
from .study import AssociationTest
from .suite import (
    RESULTS_COLUMNS,
    SUITE_ALIASES,
    SuiteResult,
    expand_test_names,
    paper_test_names,
    run_suite,
)
from .validation import SET_ROLES, AssociationInputError

__all__ = [
    "DEFAULT_ALPHA",
    "RESULTS_COLUMNS",
    "SET_KEYS",
    "SET_ROLES",
    "SUITE_ALIASES",
    "USER_ERRORS",
    "AssociationInputError",
    "AssociationTest",
    "AssociationTestResult",
    "MergedItems",
    "SentenceAssociationTest",
    "SuiteResult",
    "association_record",
    "association_test_for",
    "describe_p_value",
    "display_test_name",
    "expand_test_names",
    "load_association_model",
    "merge_same_vectors",
    "model_choices",
    "paper_test_names",
    "resolve_sentence_test",
    "run_suite",
    "test_choices",
    "test_names",
]
