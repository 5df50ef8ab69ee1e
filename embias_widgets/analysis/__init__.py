"""Kernel-side compute classes: one per kind of study."""

from .association import AssociationInputError, AssociationTest, AssociationTestResult

__all__ = ["AssociationInputError", "AssociationTest", "AssociationTestResult"]
