"""Kernel-side compute classes: one per kind of study."""

from .association import AssociationInputError, AssociationTest, AssociationTestResult
from .relation import (
    RelationInputError,
    RelationProjection,
    RelationProjectionResult,
    contrived_attribute_search,
    contrived_attribute_table,
    weat_before_after,
)

__all__ = [
    "AssociationInputError",
    "AssociationTest",
    "AssociationTestResult",
    "RelationInputError",
    "RelationProjection",
    "RelationProjectionResult",
    "contrived_attribute_search",
    "contrived_attribute_table",
    "weat_before_after",
]
