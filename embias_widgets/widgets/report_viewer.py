"""``ReportViewer``: a report's sections, collapsible, with their tables, charts, significance, published
figures and notes: only what the report holds (the ``report.json`` dict of :class:`ReportResult`)."""

from __future__ import annotations

from typing import Any

import traitlets

from ._base import EmbiasWidget, bundle


class ReportViewer(EmbiasWidget):
    """Shows a report (``ReportResult.to_dict()`` or a loaded ``report.json``); computes nothing itself."""

    _esm = bundle("report_viewer.js")
    _css = bundle("report_viewer.css")

    report = traitlets.Dict().tag(sync=True)
    """The ``embias-report/1`` dict: title, provenance, models, sections (each with its table, figure SVG,
    significance, published figures and notes)."""

    def __init__(self, report: Any = None, **kwargs: Any) -> None:
        if report is not None and not isinstance(report, dict):
            report = report.to_dict()  # a ReportResult
        super().__init__(report=report or {}, **kwargs)

    @traitlets.validate("report")
    def _valid_report(self, proposal: dict) -> dict:
        value = proposal["value"]
        if value and value.get("schema") != "embias-report/1":
            raise traitlets.TraitError(f"report must be an embias-report/1 dict (report.json), got schema "
                                       f"{value.get('schema')!r}")
        return value
