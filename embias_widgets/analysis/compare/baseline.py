"""A baseline report for ``Report(..., baseline=...)`` / ``embias report --baseline``: its sections with their
per-item data, and the comparison of each model of a new report with it.

A baseline is a :class:`~embias_widgets.analysis.report.ReportResult` (its sections still hold their ``items``
when it comes from a run) or the path of a ``report.json`` or of its folder. From a path the items come from the
folder's ``sections/`` files, each used only when its bytes match the folder's manifest and its table equals
the one in ``report.json`` (so a file of another run is never paired with this report's numbers); a section
without them is named in the comparison's ``not_compared``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .comparison import compare_models


def _with_items(report: dict[str, Any], folder: Path) -> dict[str, Any]:
    from ..report.store import SECTIONS_DIR, SectionStore

    if not (folder / SECTIONS_DIR).is_dir():
        return report
    store = SectionStore(folder)
    sections = []
    for s in report["sections"]:
        saved = store.saved_record(s["id"]) if s["status"] == "done" else None
        same = saved is not None and saved.get("table") == s["table"] and saved.get("items")
        sections.append({**s, "items": saved["items"]} if same else dict(s))
    return {**report, "sections": sections}


def load_baseline(baseline: Any) -> dict[str, Any]:
    """The baseline's report dict, sections with their ``items`` where kept (see the module docstring);
    ``ReportInputError`` naming the path and the fix when it cannot be read."""
    from ..report.checks import ReportFileError
    from ..report.plan import ReportInputError
    from ..report.result import ReportResult

    if isinstance(baseline, ReportResult):
        report = baseline.report
        return _with_items(report, baseline.out_dir) if baseline.out_dir is not None and not any(
            s.get("items") for s in report["sections"]) else report
    if isinstance(baseline, dict) and "sections" in baseline:
        return baseline
    path = Path(str(baseline)).expanduser()
    if path.is_dir():
        path = path / "report.json"
    try:
        result = ReportResult.load(path)
    except ReportFileError as err:
        raise ReportInputError(f"--baseline: {err}") from None
    return _with_items(result.report, path.parent)


def pick_baseline_model(baseline: dict[str, Any], model: dict[str, Any]) -> str | None:
    """The baseline model ``model`` is compared with: the one of the same name, else the first of its kind."""
    names = [m["name"] for m in baseline["models"]]
    if model["name"] in names:
        return model["name"]
    return next((m["name"] for m in baseline["models"] if m["kind"] == model["kind"]), None)


def baseline_comparisons(baseline: dict[str, Any], report: dict[str, Any], *, alpha: float, level: float,
                         seed: int) -> list[dict[str, Any]]:
    """The comparison of every model of ``report`` with its baseline model (:func:`pick_baseline_model`)."""
    out = []
    for m in report["models"]:
        before = pick_baseline_model(baseline, m)
        if before is not None:
            out.append(compare_models(baseline, before, report, m["name"], alpha=alpha, level=level, seed=seed))
    return out
