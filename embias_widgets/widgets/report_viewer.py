"""``ReportViewer``: a report as ``report.html`` shows it (findings first, agreement, models side by side, then
each section collapsible with its headline, table, figure, validity notes, published figures and notes): only
what the report holds (the ``report.json`` dict of :class:`ReportResult`).

The page's blocks are built once in Python by :func:`embias_widgets.analysis.publish.page.page`, the function
``report.html`` is drawn from, and sent in the ``page`` trait; the front end draws them with the JavaScript twin
of the number formatter, so the viewer and the page show the same numbers the same way.
"""

from __future__ import annotations

from typing import Any

import traitlets

from ._base import EmbiasWidget, bundle


class ReportViewer(EmbiasWidget):
    """Shows a report (``ReportResult.to_dict()`` or a loaded ``report.json``); computes nothing itself."""

    _esm = bundle("report_viewer.js")
    _css = bundle("report_viewer.css")

    report = traitlets.Dict().tag(sync=False)
    """The ``embias-report/2`` dict (``/1`` is read too): title, provenance, models, sections (each with its table,
    figure SVG, significance, published figures and notes), findings, agreement, coverage, comparisons."""
    page = traitlets.List(read_only=True).tag(sync=True)
    """The blocks the front end draws (:func:`~embias_widgets.analysis.publish.page.page` of ``report``)."""

    def __init__(self, report: Any = None, **kwargs: Any) -> None:
        if report is not None and not isinstance(report, dict):
            report = report.to_dict()  # a ReportResult
        super().__init__(report=report or {}, **kwargs)
        self._set_page()

    @traitlets.validate("report")
    def _valid_report(self, proposal: dict) -> dict:
        """An ``embias-report/1`` dict whose keys and sections are whole (the check the JupyterLab file viewer and
        ``ReportResult.load`` make): a partial or older report is one refusal, never a KeyError from the page."""
        from ..analysis.publish.page import report_problem

        value = proposal["value"]  # the schema written out: a ReportResult's display hook opens this module, so
        if value and value.get("schema") not in ("embias-report/1", "embias-report/2"):  # no analysis.report here
            raise traitlets.TraitError(f"report must be an embias-report/1 or /2 dict (report.json), got schema "
                                       f"{value.get('schema')!r}")
        problem = report_problem(value) if value else None
        if problem is not None:
            raise traitlets.TraitError(f"report is not a whole embias report: {problem}; give the report.json that "
                                       "embias report wrote (ReportResult.load(path)), or write it again")
        return value

    @traitlets.observe("report")
    def _report_changed(self, _change: dict) -> None:
        self._set_page()

    def _set_page(self) -> None:
        from ..analysis.publish.page import page

        self.set_trait("page", page(self.report) if self.report else [])
