"""``ReportResult``: a report's numbers (the ``report.json`` schema) answering the StudyResult questions.

``to_dict()`` is exactly ``report.json`` (schema :data:`SCHEMA`, keys pinned by a test); ``frame()`` is one row
per table cell; ``chart()`` the sections' bar charts; ``summary()`` what a person reads. :meth:`write` puts the
figures (SVG and PNG), ``report.json`` and ``report.html`` in the folder, each through a temporary name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .checks import READABLE_SCHEMAS, SCHEMA

DATA_KEYS = ("findings", "agreement", "methods_run", "coverage", "comparisons")
"""The keys /2 added (:mod:`embias_widgets.analysis.publish.report_data`; ``comparisons`` from
:mod:`embias_widgets.analysis.compare`, an empty list without a baseline)."""
SCHEMA_FILE = Path(__file__).resolve().parent / "report.schema.json"
"""The JSON Schema (draft 2020-12) of ``report.json`` at :data:`SCHEMA`, shipped in the package."""
SECTION_KEYS = ("id", "title", "method", "model", "what", "status", "reason", "seconds", "table", "published",
                "significance", "notes", "chart", "figure")
_NO_FIGURE = {"svg": None, "svg_path": None, "png_path": None}


@dataclass
class ReportResult:
    """The result of :meth:`Report.run` (or of :meth:`load` on a ``report.json``)."""

    report: dict[str, Any]
    out_dir: Path | None = None
    _figures: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: str | Path) -> ReportResult:
        """A result from a ``report.json`` written by :meth:`write`; one :class:`~.checks.ReportFileError` naming
        the file and what is wrong when it cannot be read as a report (damaged, edited, another file)."""
        from .checks import read_report

        path = Path(path)
        return cls(read_report(path, READABLE_SCHEMAS), path.parent)

    @property
    def sections(self) -> list[dict[str, Any]]:
        return self.report["sections"]

    def to_dict(self) -> dict[str, Any]:
        """``report.json``: the schema's keys only, every number with its provenance."""
        from ..publish.report_data import report_data

        out = {k: v for k, v in self.report.items() if k not in ("sections", *DATA_KEYS)}
        out["schema"] = SCHEMA
        out["sections"] = [{k: (s.get(k) if k != "figure" else self._figures.get(s["id"], s.get("figure", _NO_FIGURE)))
                            for k in SECTION_KEYS} for s in self.sections]
        for s in out["sections"]:
            s["significance"] = s["significance"] or []
            s["figure"] = s["figure"] or dict(_NO_FIGURE)
        out.update(report_data(out))
        out["comparisons"] = list(self.report.get("comparisons") or [])
        return out

    def summary(self) -> str:
        """One line per section: status, headline row and significant tests (a model's name with its control
        characters escaped: a terminal shows ``\\x1b`` rather than obeying it)."""
        from .figures import chart_text

        lines = [f"{chart_text(self.report['title'])} ({'quick' if self.report['quick'] else 'full'}; "
                 f"{self.report['provenance']['seconds']:.1f} s; Holm-Bonferroni over {self.report['holm']['n_tests']} "
                 f"p-values at alpha {self.report['holm']['alpha']})"]
        for s in self.sections:
            if s["status"] != "done":
                lines.append(f"  {s['title']} [{chart_text(s['model'])}]: {s['status']}: {chart_text(s['reason'])}")
                continue
            tests = s.get("significance") or []
            sig = [t["label"] for t in tests if t["significant"]]
            named = f" ({', '.join(sig[:6])})" if sig else ""
            verdict = f"{len(sig)} of {len(tests)} significant after Holm{named}" if tests else "no p-values"
            lines.append(f"  {s['title']} [{chart_text(s['model'])}]: {len(s['table']['rows'])} rows, {verdict}")
        return "\n".join(lines)

    def frame(self) -> Any:
        """Tidy: one row per table cell (``section, method, model, row, column, value``)."""
        import pandas as pd

        rows = [{"section": s["id"], "method": s["method"], "model": s["model"], "row": str(r[0]), "column": c,
                 "value": v}
                for s in self.sections for r in s["table"]["rows"] for c, v in zip(s["table"]["columns"][1:], r[1:],
                                                                                  strict=True)]
        return pd.DataFrame(rows, columns=["section", "method", "model", "row", "column", "value"])

    def method_charts(self) -> list[tuple[str, str, dict[str, Any] | None]]:
        """``(method, title, Vega-Lite spec)`` per method, models as colours."""
        from .figures import chart_rows, chart_spec

        out = []
        for method in dict.fromkeys(s["method"] for s in self.sections):
            group = [s for s in self.sections if s["method"] == method]
            chart = next((s["chart"] for s in group if s.get("chart")), None)
            rows = [r for s in group for r in chart_rows(s)]
            spec = chart_spec(rows, chart["x"], chart["y"], title=group[0]["title"], subtitle="models side by side",
                              ref=float(chart.get("ref", 0)), alpha=self.report["holm"]["alpha"]) if chart else None
            out.append((method, group[0]["title"], spec))
        return out

    def chart(self) -> Any:
        """The sections' charts stacked (altair)."""
        import altair as alt

        from ..charts import setup_charts

        setup_charts()

        top_level = ("config", "$schema")
        charts = [alt.Chart.from_dict({k: v for k, v in spec.items() if k not in top_level}).properties(title=title)
                  for _, title, spec in self.method_charts() if spec]
        return alt.vconcat(*charts) if charts else alt.Chart(alt.Data(values=[])).mark_text()

    def method_tables(self) -> list[dict[str, Any]]:
        """One table per method with models as columns (the chart column's value per row label)."""
        out = []
        for method, title, _ in self.method_charts():
            group = [s for s in self.sections if s["method"] == method and s["status"] == "done" and s.get("chart")]
            if not group:
                continue
            models = [s["model"] for s in group]
            cells: dict[str, dict[str, Any]] = {}
            for s in group:
                x = s["table"]["columns"].index(s["chart"]["x"])
                for r in s["table"]["rows"]:
                    cells.setdefault(str(r[0]), {})[s["model"]] = r[x]
            out.append({"method": method, "title": f"{title}: {group[0]['chart']['x']}",
                        "columns": [group[0]["table"]["columns"][0], *models],
                        "rows": [[label, *(v.get(m) for m in models)] for label, v in cells.items()]})
        return out

    def write(self, *, html: bool = True) -> None:
        """Figures (SVG, PNG), then ``report.json``, then ``report.html`` into ``out_dir``."""
        from .figures import FigureError, render, section_spec
        from .store import write_atomic

        if self.out_dir is None:
            raise ValueError("this result has no folder to write to")
        for s in self.sections:
            spec = section_spec(s, self.report["holm"]["alpha"])
            try:
                self._figures[s["id"]] = render(spec, self.out_dir / "figures" / s["id"]) if spec else dict(_NO_FIGURE)
            except FigureError as err:  # one figure left out, never the report
                self._figures[s["id"]] = dict(_NO_FIGURE)
                note = f"figure left out: Vega-Lite could not draw it ({err})"
                s["notes"] = [*(n for n in s.get("notes") or [] if not n.startswith("figure left out:")), note]
        data = self.to_dict()  # once: report.html draws the very dict report.json holds
        write_atomic(self.out_dir / "report.json", json.dumps(data, indent=1, default=str))
        if html:
            from .html import report_html

            write_atomic(self.out_dir / "report.html", report_html(data))

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """In a notebook: the report viewer widget when the widgets are importable, else the summary."""
        from importlib import import_module

        try:  # the widget layer sits above this one: looked up at display time, never imported here
            viewer = import_module("embias_widgets.widgets.report_viewer").ReportViewer(self.to_dict())
        except ImportError:
            return {"text/plain": self.summary()}
        bundle = viewer._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        return {**data, "text/plain": self.summary()}, meta
