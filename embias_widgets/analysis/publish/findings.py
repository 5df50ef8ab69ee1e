"""What a reader can quote: each section's headline number, the findings that survive Holm-Bonferroni, those
that do not, and what could not run. Read from the report's sections only (``report.json``); no statistic is
computed here, every number is the section's own.

A section's *headline* is a dict ``{"label", "value", "value_interval", "kind", "n", "direction", "text"}``:
for a section with p-values, its largest effect (by distance from "no bias") and how many tests survive Holm;
for a descriptive section, its overall row (``all``, ``NN (pairs)``) or else its largest row. ``text`` is the
headline written with :mod:`embias_widgets.formatting`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...formatting import column_kinds, format_interval, format_value
from ..report.verdicts import apart_sentence, row_story

DEMO_MARK = "DEMO"
FSI, PDI = "\u2068", "\u2069"
_ISOLATES = dict.fromkeys(map(ord, "\u2066\u2067\u2068\u2069"))


def user(text: Any) -> str:
    """User text (a model name or path, a title, a reason naming a file) between Unicode's first-strong
    isolate and its pop (FSI ... PDI), so a right-to-left override inside it cannot turn the rest of the line
    around; ``report.html`` writes the pair as ``<bdi>``, the viewer as a ``bdi`` element. Isolates the text
    held itself are removed, so it cannot close ours early."""
    return FSI + str(text).translate(_ISOLATES) + PDI


def columns_of(section: dict[str, Any]) -> dict[str, int]:
    """Column name -> index of a section's table."""
    return {c: i for i, c in enumerate(section["table"]["columns"])}


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and v == v


def section_rows(section: dict[str, Any]) -> list[dict[str, Any]]:
    """Each table row of a done section with a number in its chart column: ``{label, value, interval,
    significant, p_holm}`` (interval None where the analysis gave none)."""
    chart = section.get("chart")
    if section["status"] != "done" or not chart:
        return []
    cols = columns_of(section)
    if chart["x"] not in cols:
        return []
    x, iv = cols[chart["x"]], cols.get(chart.get("interval") or "")
    sig = {t["label"]: t for t in section.get("significance") or []}
    out = []
    for r in section["table"]["rows"]:
        if not _num(r[x]):
            continue
        t = sig.get(str(r[0]))
        out.append({"label": str(r[0]), "value": float(r[x]), "interval": r[iv] if iv is not None else None,
                    "significant": t["significant"] if t else None, "p_holm": t["p_holm"] if t else None})
    return out


def value_kind(section: dict[str, Any]) -> str:
    """The formatting kind of the section's chart column."""
    cols = section["table"]["columns"]
    return column_kinds(cols)[cols.index(section["chart"]["x"])]


def direction(value: float, interval: dict[str, Any] | None, ref: float) -> str:
    """``above``/``below`` "no bias" (``ref``), or ``unclear`` when the interval holds ``ref``."""
    if interval and interval["low"] <= ref <= interval["high"]:
        return "unclear"
    return "above" if value > ref else "below" if value < ref else "at"


def direction_words(value: float, interval: dict[str, Any] | None, ref: float, kind: str) -> str:
    """``> 0``, ``< 50`` or ``interval holds 0``: where the number lies against "no bias"."""
    where = direction(value, interval, ref)
    r = format_value(ref, "number")
    return {"above": f"> {r}", "below": f"< {r}", "at": f"= {r}"}.get(where, f"interval holds {r}")


def headline(section: dict[str, Any]) -> dict[str, Any] | None:
    """The section's headline (see the module docstring); None for a section that did not run."""
    rows = section_rows(section)
    if not rows:
        return None
    chart, kind = section["chart"], value_kind(section)
    ref = float(chart.get("ref", 0.0))
    tested = [r for r in rows if r["significant"] is not None]
    overall = next((r for r in rows if r["label"] in ("all", "NN (pairs)")), None)
    top = overall or max(tested or rows, key=lambda r: abs(r["value"] - ref))
    n_sig = sum(bool(r["significant"]) for r in tested)
    value = f"{chart['x']} {format_value(top['value'], kind)}"
    if top["interval"]:
        value += f" {format_interval(top['interval'], kind)}"
    if tested:
        text = (f"{n_sig} of {len(tested)} tests significant after Holm; largest: {top['label']}, {value}"
                f"{'' if top['interval'] else ' (no interval)'}")
    else:
        which = "" if overall else "largest: "
        text = f"{which}{top['label']}: {value}{'' if top['interval'] else ' (no interval)'} (no p-value defined)"
    return {"label": top["label"], "value": top["value"], "value_interval": top["interval"], "kind": kind,
            "n": len(rows), "direction": direction(top["value"], top["interval"], ref), "text": text}


def demo_notes(section: dict[str, Any]) -> list[str]:
    """The section's notes that warn of a DEMO model (shown first in the section and at the top)."""
    return [n for n in section.get("notes") or [] if is_demo_note(n)]


def is_demo_note(note: str) -> bool:
    """A note warning that the numbers come from a demo model (``DEMO ...`` or ``demo model: ...``)."""
    return bool(re.search(rf"\b{DEMO_MARK}\b", note)) or note.lower().startswith("demo model")


SHORT = {"weat": "WEAT", "ripa": "RIPA", "debias": "debiasing check", "seat": "SEAT", "sense-weat": "sense WEAT",
         "crows-pairs": "CrowS-Pairs", "stereoset": "StereoSet", "sense-pairs": "sense pairs", "sssb": "SSSB",
         "nli-gender-occupation": "NLI gender x occupation", "nli-nationality-polarity": "NLI nationality",
         "nli-religion-polarity": "NLI religion", "ceat": "CEAT", "bbq": "BBQ"}


def finding_text(section: dict[str, Any], row: dict[str, Any], alpha: float | None = None) -> str:
    """``WEAT weat6: effect size d 1.71 [1.20, 2.05] (> 0), p (Holm) < 0.0001``; p (Holm) never rounded across
    the report's ``alpha`` (0.0098 at 0.01, not 0.010); an association row whose Holm decision and interval
    disagree ends with the sentence that says so (:func:`~..report.verdicts.row_story`):
    ``...; significant for these words; the interval over word choice includes 0``."""
    kind = value_kind(section)
    ref = float(section["chart"].get("ref", 0.0))
    where = direction_words(row["value"], row["interval"], ref, kind)
    iv = f" {format_interval(row['interval'], kind)}" if row["interval"] else " (no interval)"
    p = f", p (Holm) {format_value(row['p_holm'], 'p', alpha)}" if row["p_holm"] is not None else ""
    story = row_story(section, row["label"], row["value"], row["interval"], row["significant"])
    return (f"{SHORT.get(section['method'], section['method'])} {row['label']}: {section['chart']['x']} "
            f"{format_value(row['value'], kind)}{iv} ({where}){p}" + (f"; {story}" if story else ""))


def per_model(report: dict[str, Any], add: Callable[..., Any]) -> list[dict[str, Any]]:
    """Per model, in the report's model order: ``{"model", "kind", "survive", "not_significant", "descriptive",
    "not_run", "demo"}``. Each of the model's sections adds its demo notes (each once); a section that did not run
    adds ``"title: status: reason"`` to ``not_run``; a finished one is passed to ``add(entry, section, rows,
    tested)`` (its :func:`section_rows` and those with a test), which fills the rest its own way."""
    out = []
    for m in report["models"]:
        entry: dict[str, Any] = {"model": m["name"], "kind": m["kind"], "survive": [], "not_significant": [],
                                 "descriptive": [], "not_run": [], "demo": []}
        for s in (s for s in report["sections"] if s["model"] == m["name"]):
            entry["demo"] += demo_notes(s)
            if s["status"] != "done":
                entry["not_run"].append(f"{s['title']}: {s['status']}: {user(s['reason'])}")
                continue
            rows = section_rows(s)
            add(entry, s, rows, [r for r in rows if r["significant"] is not None])
        entry["demo"] = list(dict.fromkeys(entry["demo"]))
        out.append(entry)
    return out


def findings(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per model: ``{"model", "kind", "survive": [text], "not_significant": [text], "descriptive": [text],
    "not_run": [text], "demo": [text]}`` in the report's model order."""

    def add(entry: dict[str, Any], s: dict[str, Any], rows: list[dict[str, Any]],
            tested: list[dict[str, Any]]) -> None:
        entry["survive"] += [finding_text(s, r, report["holm"]["alpha"]) for r in tested if r["significant"]]
        if tested and not all(r["significant"] for r in tested):
            entry["not_significant"].append(f"{SHORT.get(s['method'], s['title'])}: " + ", ".join(
                r["label"] for r in tested if not r["significant"]))
            apart = [r["label"] for r in tested if not r["significant"]
                     and row_story(s, r["label"], r["value"], r["interval"], False)]
            if apart:  # the interval excludes 0 where the test is not significant: say so
                entry["not_significant"][-1] += f"; {apart_sentence(s, apart)}"
        if not tested and (h := headline(s)):
            entry["descriptive"].append(f"{SHORT.get(s['method'], s['title'])}: {h['text']}")

    return per_model(report, add)
