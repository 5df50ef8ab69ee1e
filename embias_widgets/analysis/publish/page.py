"""What a report shows, as a list of blocks that ``report.html`` (:mod:`..report.html`) and the JupyterLab viewer
(``js/report_viewer.js``) both draw, so the two show the same thing.

Order: title and what ran (only the sizes of the methods that ran), a DEMO warning when any model is a demo,
the findings (per model: what survives Holm, what does not, the descriptive headlines, what could not run),
the coverage table (several models of mixed kinds), agreement between methods, models side by side (one table
per method with a column per model and one figure with models as colours), then one collapsible section per
method and model (DEMO warning first, the headline number with its interval, the robustness line, the table
with Holm's decision in it, the figure, validity notes with sources, published figures, notes), and last the
provenance (fingerprints, data files).

Blocks: ``{"t": "h", "level", "text"}``, ``{"t": "p", "text", "cls"}`` (cls ``muted``, ``warn``, ``headline``),
``{"t": "ul", "items", "cls"}``, ``{"t": "table", "columns", "kinds", "rows", "alphas"}`` (raw cells: numbers,
text, None, intervals; each surface formats them column by column with its twin of
:mod:`embias_widgets.formatting`; ``alphas``: None, or per row the significance thresholds its p-values are shown
against, the report's alpha and the threshold of the Holm step that judges its raw p), ``{"t": "figure",
"svg", "alt"}``, ``{"t": "details", "summary", "status", "open", "children"}``. Every text is plain text.
"""

from __future__ import annotations

from typing import Any

from ...formatting import column_kinds, format_value
from ..report.sections_lm import TEMPLATE_NOTE
from .agreement import agreement_blocks, validity_notes
from .blocks import h as _h
from .blocks import p as _p
from .blocks import table
from .blocks import ul as _ul
from .findings import demo_notes, findings, headline, user

_SIZE_KEYS = {"weat": ("permutations",), "seat": ("seat_tests", "permutations"),
              "sense-weat": ("sense_tests", "permutations"), "debias": ("debias_random", "permutations"),
              "crows-pairs": ("crows_pairs",), "stereoset": ("stereoset_items",), "sense-pairs": ("sense_pairs",),
              "ceat": ("ceat_tests", "ceat_samples"), "bbq": ("bbq_items",)}
_SIZE_WORDS = {"permutations": "permutations per test", "seat_tests": "SEAT tests", "sense_tests": "sense tests",
               "debias_random": "random directions (debiasing check)", "crows_pairs": "CrowS-Pairs pairs",
               "stereoset_items": "StereoSet items", "sense_pairs": "sense-sensitive pairs",
               "nli_pairs": "NLI pairs per probe (seeded sample)", "ceat_tests": "CEAT tests",
               "ceat_samples": "CEAT samples", "bbq_items": "BBQ items per category"}


def _table(columns: list[str], rows: list[list[Any]], kinds: list[str] | None = None,
           alphas: list[Any] | None = None) -> dict[str, Any]:
    return table(columns, rows, kinds or column_kinds(columns), alphas=alphas)


def holm_steps(report: dict[str, Any]) -> dict[tuple[str, str], list[float]]:
    """``(section id, label) -> [alpha, Holm step threshold]`` for every p-value of the report: the thresholds
    the p-values are shown against, so none is rounded across one (:func:`~embias_widgets.formatting.format_p`)."""
    from ...metrics import holm_thresholds

    alpha = float(report["holm"]["alpha"])
    tests = [(s["id"], t) for s in report["sections"] for t in s.get("significance") or []]
    steps = holm_thresholds([float(t["p"]) for _, t in tests], alpha=alpha) if tests else []
    return {(sid, str(t["label"])): [alpha, float(step)] for (sid, t), step in zip(tests, steps, strict=True)}


def report_problem(report: Any) -> str | None:
    """What keeps ``report`` from being drawn: a key or a section missing or of the wrong shape (the check of
    ``ReportResult.load`` and the JupyterLab file viewer); None for a whole report dict of a readable schema."""
    from ..report.checks import READABLE_SCHEMAS
    from ..report.checks import report_problem as problem_of

    return problem_of(report, READABLE_SCHEMAS)


def sizes_line(report: dict[str, Any]) -> str:
    """The sizes of the methods that ran (or were planned) in this report, nothing else."""
    from ..report.plan import sizes

    s = sizes(bool(report.get("quick")))
    keys = [k for sec in report["sections"] for k in _SIZE_KEYS.get(sec["method"], ("nli_pairs",)
                                                                     if sec["method"].startswith("nli-") else ())]
    parts = []
    for k in dict.fromkeys(keys):
        v = s.get(k)
        v = "all" if v is None or v == "all" else ", ".join(v) if isinstance(v, tuple | list) else f"{v:,}"
        parts.append(f"{_SIZE_WORDS.get(k, k)}: {v}")
    if any(sec["method"] in ("weat", "seat") for sec in report["sections"]):
        from ..report.sections import ROBUSTNESS

        parts.append(f"robustness (WEAT, SEAT): every word left out once, {ROBUSTNESS['subsets']} seeded subsets "
                     f"keeping {ROBUSTNESS['keep']:.0%} of each set's words")
    return f"{'quick' if report.get('quick') else 'full'} sizes: " + "; ".join(parts) if parts else ""


def section_table(section: dict[str, Any], steps: dict[tuple[str, str], list[float]] | None = None) -> dict[str, Any]:
    """The section's table with Holm's decision beside each p-value (``p (Holm)``, ``significant``); ``steps``
    (:func:`holm_steps`) gives each row's thresholds for its p-values."""
    columns, rows = list(section["table"]["columns"]), [list(r) for r in section["table"]["rows"]]
    sig = {t["label"]: t for t in section.get("significance") or []}
    if sig and "p" in columns and any(str(r[0]) in sig for r in rows):
        at = columns.index("p") + 1
        columns[at:at] = ["p (Holm)", "significant"]
        for r in rows:
            t = sig.get(str(r[0]))
            r[at:at] = [t["p_holm"], t["significant"]] if t else [None, None]
    alphas = [(steps or {}).get((section.get("id"), str(r[0]))) for r in rows] if steps else None
    return _table(columns, rows, alphas=alphas)


def robustness_line(section: dict[str, Any]) -> str:
    """How the section's numbers stand up to the choice of words: from its stability and influence columns."""
    cols = section["table"]["columns"]
    rows = section["table"]["rows"]
    if "stability" in cols:
        i = cols.index("stability")
        verdicts = [r[i] for r in rows if r[i]]
        fragile = [str(r[0]) for r in rows if r[i] == "fragile"]
        line = (f"Robustness: {verdicts.count('stable')} of {len(verdicts)} tests stable (significant after Holm, "
                f"and the interval over word choice excludes 0)" + (f"; fragile: {', '.join(fragile)}" if fragile
                                                                     else ""))
        if "words flipping sign" in cols:
            j = cols.index("words flipping sign")
            flips = [str(r[0]) for r in rows if r[j]]
            line += (f"; leaving one word out flips the sign of {', '.join(flips)}" if flips else
                     "; no single word left out flips a sign")
        return line + " (the rule is in the notes)."
    if section["method"] in ("weat", "seat", "sense-weat", "debias"):
        return "Robustness to the choice of words: not measured in this report."
    template = next((n for n in section.get("notes", []) if n.startswith(TEMPLATE_NOTE)), None)
    if template:
        return f"Robustness to the templates: {template.removeprefix(TEMPLATE_NOTE)}."
    return groups_line(section) or "Robustness to the choice of items or templates: not measured in this report."


GROUPS = {"bias type": "bias types", "sense type / key": "sense types and keys"}
"""First table columns that name groups of items (the likelihood sections), with their plural."""


def groups_line(section: dict[str, Any]) -> str:
    """How the headline score moves across the section's groups (bias types, sense types): its lowest and highest
    group and the groups whose interval excludes the no-bias value (the table's own numbers and intervals).
    Rows ``all`` and ``direction: ...`` are not groups."""
    chart, columns = section.get("chart") or {}, section["table"]["columns"]
    plural = GROUPS.get(columns[0] if columns else "")
    if not plural or not chart.get("interval") or chart.get("x") not in columns or chart.get("ref") is None:
        return ""
    x, iv, ref = columns.index(chart["x"]), columns.index(chart["interval"]), float(chart["ref"])
    groups = [r for r in section["table"]["rows"] if isinstance(r[x], int | float) and str(r[0]) != "all"
              and not str(r[0]).startswith("direction:")]
    if len(groups) < 2:
        return ""
    kind = column_kinds(columns)[x]
    low, high = min(groups, key=lambda r: r[x]), max(groups, key=lambda r: r[x])
    apart = [str(r[0]) for r in groups if isinstance(r[iv], dict) and not r[iv]["low"] <= ref <= r[iv]["high"]]
    return (f"Robustness across its {len(groups)} {plural}: {chart['x']} from "
            f"{format_value(low[x], kind)} ({low[0]}) to {format_value(high[x], kind)} ({high[0]}); the interval "
            f"excludes {format_value(ref, kind)} for {len(apart)} of them" + (f" ({', '.join(apart)})." if apart
                                                                               else "."))


def _section(section: dict[str, Any], steps: dict[tuple[str, str], list[float]]) -> dict[str, Any]:
    children: list[dict[str, Any]] = [_p(n, "warn") for n in demo_notes(section)]
    if section["status"] != "done":
        children += [_p(section["what"]), _p(f"{section['status']}: {user(section['reason'])}", "warn")]
    else:
        h = headline(section)
        children.append(_p(h["text"] if h else "no number to headline", "headline"))
        children += [_p(robustness_line(section), "muted"), _p(section["what"]), section_table(section, steps)]
        if section["figure"].get("svg"):
            children.append({"t": "figure", "svg": section["figure"]["svg"],
                             "alt": f"{section['title']}, {section['model']}"})
        notes = validity_notes(section["method"])
        if notes:
            children += [_h(4, "How far the method can be trusted"),
                         _ul([f"{n['text']} Source: {n['source']['paper']}, {n['source']['venue']}, "
                              f"{n['source']['where']}." for n in notes])]
        pubs = section["published"]
        if pubs:
            children += [_h(4, "Published figures beside ours"), _table(
                ["figure", "published", "ours", "source"],
                [[p["label"], p["value"], p["ours"], f"{p['source']['paper']}, {p['source']['table']}, "
                  f"{p['source']['row']}"] for p in pubs], ["number", "number", "number", "number"])]
        else:
            children.append(_p("Published figures: no published figure.", "muted"))
        other = [n for n in section["notes"] if n not in demo_notes(section)]
        if other:
            children += [_h(4, "Notes"), _ul(other)]
        children.append(_p(f"{section['seconds']:.1f} s", "muted"))
    return {"t": "details", "summary": f"{section['title']} · {user(section['model'])}", "status": section["status"],
            "open": section["status"] == "done", "children": children}


def _coverage(report: dict[str, Any]) -> list[dict[str, Any]]:
    from .report_data import methods_run

    models = report["models"]
    if len({m["kind"] for m in models}) < 2:
        return []
    t = report.get("methods_run") or methods_run(report)
    return [_h(2, "What ran on which model"), _table(t["columns"], t["rows"], ["text"] * len(t["columns"]))]


def _models_chart(group: list[dict[str, Any]], alpha: float) -> str | None:
    """The SVG of one method's figure with the models as colours (:mod:`..report.figures`' style); None when
    there is nothing to draw. :class:`~..report.figures.FigureError` when Vega-Lite cannot draw it."""
    from ..report.figures import chart_rows, chart_spec, to_svg

    rows = [r for s in group for r in chart_rows(s)]
    chart = group[0]["chart"]
    spec = chart_spec(rows, chart["x"], chart["y"], title=group[0]["title"], subtitle="models side by side",
                      ref=float(chart.get("ref", 0)), alpha=alpha)
    return None if spec is None else to_svg(spec)


def _side_by_side(report: dict[str, Any]) -> list[dict[str, Any]]:
    if len(report["models"]) < 2:
        return []
    blocks: list[dict[str, Any]] = [_h(2, "Models side by side")]
    for method in dict.fromkeys(s["method"] for s in report["sections"]):
        group = [s for s in report["sections"] if s["method"] == method and s["status"] == "done" and s.get("chart")]
        title = next(s["title"] for s in report["sections"] if s["method"] == method)
        if len(group) < 2:
            ran = ", ".join(user(s["model"]) for s in group) or "no model"
            blocks.append(_p(f"{title}: covers {ran} only (it applies to one of the models).", "muted"))
            continue
        blocks += [_h(3, title), *_model_columns(group, report)]
        from ..report.figures import FigureError

        try:
            svg = _models_chart(group, report["holm"]["alpha"])
        except FigureError as err:  # this figure is left out, with a note; the page is still written
            blocks.append(_p(f"Figure left out: Vega-Lite could not draw it ({err}).", "muted"))
            continue
        if svg:
            blocks.append({"t": "figure", "svg": svg, "alt": f"{title}, models"})
    return blocks


def _model_columns(group: list[dict[str, Any]], report: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    from .comparison_blocks import change_cells, mark
    from .findings import section_rows, value_kind

    kind = value_kind(group[0])
    cells: dict[str, dict[str, dict[str, Any]]] = {}
    for s in group:
        for r in section_rows(s):
            cells.setdefault(r["label"], {})[s["model"]] = r
    with_iv = {s["model"] for s in group if any(c.get(s["model"], {}).get("interval") for c in cells.values())}
    columns, kinds = [group[0]["table"]["columns"][0]], ["text"]
    for s in group:
        columns.append(f"{s['model']}: {group[0]['chart']['x']}")
        kinds.append(kind)
        if s["model"] in with_iv:
            columns.append(f"{s['model']}: interval")
            kinds.append(kind)
    change = change_cells(report or {}, group[0]["method"], group[0]["chart"]["x"])
    if change:
        columns += ["change", "change interval", "paired test"]
        kinds += [kind, kind, "text"]
    rows = []
    for label, by in cells.items():
        row: list[Any] = [label]
        for s in group:
            r = by.get(s["model"], {})
            row.append(r.get("value"))
            if s["model"] in with_iv:
                row.append(r.get("interval"))
        if change:
            c = change.get(label)
            row += [c["change"], c["change_interval"], mark(c)] if c else [None, None, ""]
        rows.append(row)
    return [_table(columns, rows, kinds)]


def _findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    alpha = report["holm"]["alpha"]
    blocks = [_h(2, "Findings"), _p(f"Holm-Bonferroni over all {report['holm']['n_tests']} p-values of the report "
                                    f"at alpha {alpha:g}; intervals are those each analysis reports (a finding "
                                    "without one says so).", "muted")]
    for f in findings(report):
        data = next((d for d in report.get("findings") or [] if d["model"] == f["model"]), None)
        survive = [r["text"] for r in data["survive"]] if data else f["survive"]
        descriptive = [r["text"] for r in data["descriptive"]] if data else f["descriptive"]
        blocks.append(_h(3, f"{user(f['model'])} ({f['kind']})"))
        if survive:
            blocks += [_p("Survive Holm:"), _ul(survive)]
        elif any(s["significance"] for s in report["sections"] if s["model"] == f["model"]):
            blocks.append(_p("No test survives Holm."))
        if f["not_significant"]:
            blocks += [_p("Do not survive Holm:"), _ul(f["not_significant"])]
        if descriptive:
            blocks += [_p("Descriptive measures (no p-value defined):"), _ul(descriptive)]
        if f["not_run"]:
            blocks += [_p("Could not run:"), _ul(f["not_run"], "warn")]
    return blocks


def _agreement(report: dict[str, Any]) -> list[dict[str, Any]]:
    a = report.get("agreement") or agreement_blocks(report)
    if not a["dimensions"] and not a.get("taus") and not a.get("orders", {}).get("rows"):
        return []
    blocks = [_h(2, "Do the methods agree?")]
    for model, t in a["dimensions"].items():
        blocks += [_p(f"{user(model)}: each social dimension by method: the direction each test found against "
                      "'no bias' (unclear when its interval holds it), its value and interval, and Holm's decision.",
                      "muted"), _table(t["columns"], t["rows"], ["text"] * len(t["columns"]))]
    if "orders" in a:
        blocks.append(_p(a["line"], "muted"))
        if a["orders"]["rows"]:
            blocks.append(_table(a["orders"]["columns"], a["orders"]["rows"], ["text", "text"]))
        blocks.append(_table(a["taus"]["columns"], a["taus"]["rows"], ["text", "text", "count", "number"])
                      if a["taus"]["rows"] else _p("No two methods ran on two models or more: no Kendall's tau.",
                                                   "muted"))
    return blocks


def page(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The blocks of a report (a ``report.json`` dict)."""
    prov = report["provenance"]
    demos = list(dict.fromkeys(n for s in report["sections"] for n in demo_notes(s)))
    blocks = [_h(1, user(report["title"])),
              _p(f"{report['created']} · embias-widgets {prov['package_version']} · Python {prov['python']} · "
                 f"{prov['seconds']:.1f} s · seed {prov['options'].get('seed')} · alpha "
                 f"{prov['options'].get('alpha')}", "muted")]
    if (line := sizes_line(report)):
        blocks.append(_p(line, "muted"))
    blocks += [_p(n, "warn") for n in demos]
    from .comparison_blocks import calibration_blocks, comparison_blocks

    blocks += _findings(report) + comparison_blocks(report) + _coverage(report) + _agreement(report)
    blocks += _side_by_side(report)
    steps = holm_steps(report)
    blocks += [_h(2, "Sections"), *(_section(s, steps) for s in report["sections"])]
    blocks += [_h(2, "Provenance"), _table(["model", "kind", "fingerprint"],
                                           [[m["name"], m["kind"], m["fingerprint"]] for m in report["models"]],
                                           ["text"] * 3)]
    if report["data_files"]:
        blocks.append(_table(["data file", "source", "sha256"],
                             [[k, v["source"], v["sha256"]] for k, v in report["data_files"].items()], ["text"] * 3))
    if prov["options"].get("notes"):
        blocks.append(_ul(prov["options"]["notes"]))
    return blocks + calibration_blocks(report)
