"""The blocks ``report.json`` holds as data since schema ``embias-report/2``, so ``report.html``, the viewer and any
script read the same objects: ``findings``, ``agreement``, ``methods_run`` and ``coverage`` (the comparison,
``comparisons``, comes from :mod:`embias_widgets.analysis.compare`).

- ``findings``: per model, each finding as a record with its numbers at full precision (``value``,
  ``interval``, ``p_holm``, ``significant``, ``direction``) and the sentence the page shows (``text``);
- ``agreement``: the dimension tables per model, each method's model order with its distances, Kendall's tau
  between two methods' orders (full precision) and the line on how weak tau is with few models;
- ``methods_run``: which method ran on which model (``run``, ``skipped: why``, ``not applicable``);
- ``coverage``: the measured coverage and size of every interval and test (the calibration suite,
  ``bench/calibration``), read from ``embias_widgets/calibration.json`` when the package ships it; each row
  names the report methods it speaks for (``methods``). None when the file is absent.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from .agreement import agreement_blocks, model_orders
from .findings import SHORT, finding_text, headline, per_model, user

CALIBRATION = Path(__file__).resolve().parents[2] / "calibration.json"
CHECK_METHODS = {
    "weat": ("weat", "seat", "sense-weat"), "seat": ("seat",), "ceat": ("ceat",), "ripa": ("ripa",),
    "pairs": ("crows-pairs", "sense-pairs", "sssb"), "stereoset": ("stereoset",), "nli": ("nli",),
    "compare": ("comparison",), "stability": ("weat", "seat", "sense-weat"), "bbq": ("bbq",),
}
"""A calibration check's name (its first word before ``-``) -> the report methods its rates speak for."""


def _record(section: dict[str, Any], row: dict[str, Any], alpha: float | None = None) -> dict[str, Any]:
    from .findings import direction

    ref = float(section["chart"].get("ref", 0.0))
    return {"method": section["method"], "section": section["id"], "label": row["label"],
            "measure": section["chart"]["x"], "value": row["value"], "interval": row["interval"],
            "reference": ref, "p_holm": row["p_holm"], "significant": row["significant"],
            "direction": direction(row["value"], row["interval"], ref), "text": finding_text(section, row, alpha)}


def findings_data(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per model: ``{"model", "kind", "survive", "not_significant", "descriptive", "not_run", "demo"}``; the first
    three are lists of finding records (see the module docstring), ``not_run`` and ``demo`` lists of sentences."""
    alpha = (report.get("holm") or {}).get("alpha")

    def add(entry: dict[str, Any], s: dict[str, Any], rows: list[dict[str, Any]],
            tested: list[dict[str, Any]]) -> None:
        entry["survive"] += [_record(s, r, alpha) for r in tested if r["significant"]]
        entry["not_significant"] += [_record(s, r, alpha) for r in tested if not r["significant"]]
        if not tested and (h := headline(s)):
            top = next(r for r in rows if r["label"] == h["label"])
            entry["descriptive"].append({**_record(s, top, alpha),
                                         "text": f"{SHORT.get(s['method'], s['title'])}: {h['text']}"})

    return per_model(report, add)


def agreement_data(report: dict[str, Any]) -> dict[str, Any]:
    """:func:`~.agreement.agreement_blocks` plus ``model_orders`` (per method title, ``[[model, distance], ...]``
    most biased first), every number at full precision."""
    out = agreement_blocks(report)
    out["model_orders"] = {k: [[m, float(v)] for m, v in ms] for k, ms in model_orders(report).items()} \
        if len(report["models"]) > 1 else {}
    return out


def methods_run(report: dict[str, Any]) -> dict[str, Any]:
    """``{"columns": ["method", model...], "rows": [[title, cell per model], ...]}``: what ran on which model."""
    from ..report.plan import SECTIONS_BY_KIND
    from ..report.sections import TITLES

    models = report["models"]
    methods = list(dict.fromkeys(meth for m in models for meth in SECTIONS_BY_KIND.get(m["kind"], ())))
    by = {(s["method"], s["model"]): s for s in report["sections"]}
    rows = []
    for meth in methods:
        row: list[Any] = [TITLES.get(meth, meth)]
        for m in models:
            s = by.get((meth, m["name"]))
            if s is None:
                row.append("not applicable (" + m["kind"] + ")" if meth not in SECTIONS_BY_KIND.get(m["kind"], ())
                           else "not run (needs --pairs FILE)" if meth == "sssb" else "not run")
            else:
                row.append("run" if s["status"] == "done" else f"{s['status']}: {user(s['reason'])}")
        rows.append(row)
    return {"columns": ["method", *(m["name"] for m in models)], "rows": rows}


@cache
def _calibration(path: str) -> dict[str, Any] | None:
    p = Path(path)
    if not p.is_file():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


def coverage_data(report: dict[str, Any], path: Path | None = None) -> dict[str, Any] | None:
    """The calibration rows that speak for the report's methods (see the module docstring); None without the
    file. ``{"source", "meta", "rows"}``, each row as the suite wrote it plus ``methods``."""
    data = _calibration(str(path or CALIBRATION))
    if data is None:
        return None
    ran = {s["method"] for s in report["sections"]} | ({"comparison"} if report.get("comparisons") else set())
    ran |= {"nli"} if any(m.startswith("nli-") for m in ran) else set()
    rows = []
    for r in data.get("rows", []):
        methods = CHECK_METHODS.get(str(r.get("check", "")).split("-")[0], ())
        if set(methods) & ran:
            rows.append({**r, "methods": list(methods)})
    return {"source": "the calibration suite (bench/calibration): data with a known truth, seeded replicates",
            "meta": data.get("meta", {}), "rows": rows}


def report_data(report: dict[str, Any]) -> dict[str, Any]:
    """``findings``, ``agreement``, ``methods_run`` and ``coverage`` of a report dict (see the module docstring)."""
    return {"findings": findings_data(report), "agreement": agreement_data(report),
            "methods_run": methods_run(report), "coverage": coverage_data(report)}
