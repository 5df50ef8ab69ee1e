"""Agreement between methods and the validity notes, read from a report's sections.

- One model: a table of social dimensions (gender, race, religion, ...) by methods; each cell the direction
  each row of that dimension found (above/below "no bias", or unclear when its interval holds it), its value
  and interval, and whether it survives Holm (:func:`dimension_table`).
- Several models: per method the models' order by the method's headline number, and Kendall's tau between
  the orders of two methods over the models both ran (:func:`model_orders`, :func:`kendall_taus`), with a line
  saying how many models that is (few models make tau weak: with 2 it can only be -1 or 1).
- Validity notes, each with its source, from one data file (``stimuli/data/validity_notes.json``).

Nothing is computed here but Kendall's tau (``scipy.stats.kendalltau``) over the sections' own numbers.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from ...formatting import format_interval, format_value
from .findings import direction_words, headline, section_rows, value_kind

VALIDITY = Path(__file__).resolve().parents[2] / "stimuli" / "data" / "validity_notes.json"

_WEAT_DIMENSIONS = {"3": "race", "3b": "race", "4": "race", "5": "race", "5b": "race", "6": "gender",
                    "6b": "gender", "7": "gender", "7b": "gender", "8": "gender", "8b": "gender",
                    "9": "disability (mental vs physical illness)", "10": "age"}
_NAMED = {"angry_black_woman": "race and gender", "heilman": "gender", "double_bind": "gender"}
_BIAS_TYPES = {"race-color": "race", "race": "race", "gender": "gender", "religion": "religion",
               "nationality": "nationality", "age": "age", "disability": "disability",
               "sexual-orientation": "sexual orientation", "physical-appearance": "physical appearance",
               "socioeconomic": "socioeconomic status", "profession": "profession"}
_NLI = {"nli-gender-occupation": "gender", "nli-nationality-polarity": "nationality",
        "nli-religion-polarity": "religion"}


@cache
def _notes() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(VALIDITY.read_text(encoding="utf-8"))["notes"])


def validity_notes(method: str) -> list[dict[str, Any]]:
    """The validity notes of ``method``: ``{"id", "text", "source": {"paper", "venue", "where"}}``."""
    return [n for n in _notes() if method in n["methods"]]


def dimension(method: str, label: str) -> str | None:
    """The social dimension a table row measures (None for a row of no social group, e.g. WEAT 1-2)."""
    if method in _NLI:
        return _NLI[method] if label.startswith(("NN (pairs)", "FN (pairs)")) else None
    if method in ("weat", "seat", "sense-weat", "ceat"):
        m = re.search(r"weat(\d+b?)$", label)
        if m:
            return _WEAT_DIMENSIONS.get(m.group(1))
        return next((v for k, v in _NAMED.items() if k in label), None)
    if method in ("crows-pairs", "stereoset"):
        return _BIAS_TYPES.get(label)
    return None


def _cell(section: dict[str, Any], row: dict[str, Any]) -> str:
    kind, ref = value_kind(section), float(section["chart"].get("ref", 0.0))
    where = direction_words(row["value"], row["interval"], ref, kind)
    iv = format_interval(row["interval"], kind) if row["interval"] else "no interval"
    holm = "" if row["significant"] is None else (", Holm: yes" if row["significant"] else ", Holm: no")
    return f"{row['label']} {where}: {format_value(row['value'], kind)} {iv}{holm}"


def dimension_table(report: dict[str, Any], model: str) -> dict[str, Any] | None:
    """``{"columns": ["dimension", method titles...], "rows": [...]}`` for one model; None when no row of its
    sections names a social dimension."""
    sections = [s for s in report["sections"] if s["model"] == model and s["status"] == "done"]
    cells: dict[str, dict[str, list[str]]] = {}
    methods: list[str] = []
    for s in sections:
        for row in section_rows(s):
            dim = dimension(s["method"], row["label"])
            if dim is None:
                continue
            methods.append(s["title"])
            cells.setdefault(dim, {}).setdefault(s["title"], []).append(_cell(s, row))
    if not cells:
        return None
    methods = list(dict.fromkeys(methods))
    rows = [[dim, *("; ".join(by.get(m, [])) or None for m in methods)] for dim, by in sorted(cells.items())]
    return {"columns": ["dimension", *methods], "rows": rows}


def model_orders(report: dict[str, Any]) -> dict[str, list[tuple[str, float]]]:
    """Per method title: the models that ran it, ordered by their headline's distance from "no bias" (largest
    first), with that distance."""
    out: dict[str, list[tuple[str, float]]] = {}
    for s in report["sections"]:
        h = headline(s)
        if h is None:
            continue
        ref = float(s["chart"].get("ref", 0.0))
        out.setdefault(s["title"], []).append((s["model"], abs(h["value"] - ref)))
    return {k: sorted(v, key=lambda mv: -mv[1]) for k, v in out.items() if len(v) >= 2}


def kendall_taus(orders: dict[str, list[tuple[str, float]]]) -> list[list[Any]]:
    """``[method A, method B, n models, tau]`` for every two methods with at least two models in common."""
    from scipy.stats import kendalltau

    rows = []
    names = list(orders)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            va, vb = dict(orders[a]), dict(orders[b])
            common = [m for m in va if m in vb]
            if len(common) < 2:
                continue
            tau = kendalltau([va[m] for m in common], [vb[m] for m in common]).statistic
            rows.append([a, b, len(common), float(tau)])
    return rows


def agreement_blocks(report: dict[str, Any]) -> dict[str, Any]:
    """What the page shows: ``{"dimensions": {model: table}, "orders": table, "taus": table, "line": str}``."""
    models = [m["name"] for m in report["models"]]
    out: dict[str, Any] = {"dimensions": {m: t for m in models if (t := dimension_table(report, m))}}
    if len(models) > 1:
        orders = model_orders(report)
        out["orders"] = {"columns": ["method", "models, most biased first (distance from no bias)"],
                         "rows": [[k, " > ".join(f"{m} ({format_value(v, 'number')})" for m, v in ms)]
                                  for k, ms in orders.items()]}
        out["taus"] = {"columns": ["method A", "method B", "n models", "Kendall's tau"],
                       "rows": kendall_taus(orders)}
        out["line"] = (f"{len(models)} models: Kendall's tau between two methods' orders is weak evidence with so "
                       "few models (with 2 it can only be -1 or 1; with 3, only -1, -1/3, 1/3 or 1).")
    return out
