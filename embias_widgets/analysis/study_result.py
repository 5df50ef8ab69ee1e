"""The one shape every study's result has.

A study (``AssociationTest``, ``PairedLikelihood``, ``NliProbe``, ``RelationProjection``,
``SenseAssociationTest``, ...) holds its inputs and runs; what it returns is a frozen result that answers
the same four questions the same way, so that a widget, the command line and a report show the same
number:

- ``summary() -> str``: what a person reads (one paragraph, the headline numbers with their options);
- ``to_dict() -> dict``: JSON-ready (``json.dumps`` takes it as it is), every number with its options;
- ``frame() -> pandas.DataFrame``: the tidy table (one row per item, pair, word or cell; one column per
  variable);
- ``chart() -> altair.Chart``: the picture of ``frame()``.

Widgets and the command line only ever show what a result holds: any number they need that is not in
one of these four answers belongs in the result, not in the widget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover - types only
    import altair
    import pandas

__all__ = ["StudyResult"]


@runtime_checkable
class StudyResult(Protocol):
    """What every analysis result answers (see the module docstring)."""

    def summary(self) -> str:
        """What a person reads: the headline numbers, with their options, as plain text."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """Every number with its options, JSON-ready."""
        ...

    def frame(self) -> pandas.DataFrame:
        """The tidy table: one row per item, one column per variable."""
        ...

    def chart(self) -> altair.TopLevelMixin:
        """The altair chart of :meth:`frame`."""
        ...
