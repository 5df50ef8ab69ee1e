"""The page's blocks for a report's paired comparisons and its calibration table (:mod:`.page` places them).

- Per comparison (``report.json``'s ``comparisons``): what was compared and how, a table of every change (before,
  after, change, its interval, p after Holm, the verdict; a ``*`` where the paired test survives Holm), a figure
  of the changes with their whiskers, what was not paired and what was not compared.
- :func:`change_cells`: the "change" cells the models-side-by-side table adds for a method both models ran.
- The calibration table (``coverage``): each interval's measured coverage and each test's size with its Monte
  Carlo error and the promise it is held to.
"""

from __future__ import annotations

from typing import Any

from .blocks import h as _h
from .blocks import p as _p
from .blocks import table as _table
from .blocks import ul as _ul
from .findings import SHORT, user

_PAGE_ROWS = 60
"""At most this many comparison rows in a table (the rest are in report.json and comparison.json)."""


def mark(row: dict[str, Any]) -> str:
    """``*`` where the paired test survives Holm, ``-`` where it does not, ``""`` for a descriptive row."""
    return "" if row.get("significant") is None else ("*" if row["significant"] else "-")


def _change_figure(c: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    from ..report.figures import FigureError, chart_spec, to_svg

    methods = {r["method"] for r in rows}
    data = [{"label": r["row"] if len(methods) == 1 else f"{SHORT.get(r['method'], r['method'])} {r['row']}",
             "value": r["change"], "model": "change",
             "low": (r["change_interval"] or {}).get("low"), "high": (r["change_interval"] or {}).get("high"),
             "group": None, "significant": r.get("significant")} for r in rows]
    measures = ", ".join(dict.fromkeys(r["measure"] for r in rows))
    spec = chart_spec(data, f"change, after - before ({measures})", "row", title="Paired change of each bias measure",
                      subtitle=f"{c['before']['name']} -> {c['after']['name']}", ref=0.0, alpha=c["alpha"],
                      holm_scope="the comparison's paired tests")
    if spec is None:
        return None
    try:
        svg = to_svg(spec)
    except FigureError as err:  # left out with a note; the rest of the comparison is still written
        return {"t": "p", "text": f"Figure left out: Vega-Lite could not draw it ({err}).", "cls": "muted"}
    return {"t": "figure", "svg": svg, "alt": "paired changes with their intervals"}


def _first_of_each(texts: list[str]) -> dict[str, None]:
    """The first of the texts that differ only in their numbers (a McNemar line per row names its own b and c)."""
    import re

    seen: dict[str, str] = {}
    for t in texts:
        seen.setdefault(re.sub(r"\d[\d,.]*", "#", t), t)
    return dict.fromkeys(seen.values())


def comparison_blocks(report: dict[str, Any], *, figures: bool = True) -> list[dict[str, Any]]:
    """The blocks of every comparison of ``report`` (none without one)."""
    blocks: list[dict[str, Any]] = []
    for c in report.get("comparisons") or []:
        before, after = user(c["before"]["name"]), user(c["after"]["name"])
        blocks += [_h(2, f"Change from {before} to {after} (paired)"),
                   _p(f"Both models on the same items, paired item by item: {c['holm']['n_tests']} paired tests, "
                      f"Holm-Bonferroni at alpha {c['alpha']:g}; intervals at {c['level'] * 100:g}%. A change in "
                      "bias is the change in the distance from the no-bias value; '*' marks a paired test that "
                      "survives Holm.", "muted")]
        gated = [r for r in c["rows"] if r["gated"]]
        shown = gated[:_PAGE_ROWS]
        blocks.append(_table(
            ["method", "row", "measure", "before", "after", "change", "change interval", "p (Holm)", "paired test",
             "verdict"],
            [[r.get("title", r["method"]), r["row"], r["measure"], r["before"], r["after"], r["change"],
              r["change_interval"], r["p_holm"], mark(r), r["verdict"]] for r in shown],
            ["text", "text", "text", "number", "number", "number", "number", "p", "text", "text"]))
        if len(gated) > len(shown):
            blocks.append(_p(f"{len(gated) - len(shown)} more rows in report.json (comparisons).", "muted"))
        if figures and shown:
            fig = _change_figure(c, shown)
            if fig:
                blocks.append(fig)
        descriptive = [r for r in c["rows"] if not r["gated"]]
        if descriptive:
            blocks.append(_p(f"{len(descriptive)} descriptive changes (no paired test, never gated: LMS, ICAT, "
                             "T:tau, RIPA per word) are in report.json.", "muted"))
        methods = [r["test"] for r in gated] + [r["change_interval"]["method"] for r in gated if r["change_interval"]]
        if methods:
            blocks += [_h(4, "Tests and intervals (each method's first row; the others differ in their counts)"),
                       _ul(list(_first_of_each(methods)))]
        if c["unpaired"]:
            blocks += [_h(4, "Items only one model could use (left out of the pairing)"), _ul(
                [f"{u['method']}, {user(u['model'])}: {u['n']} ({u['why']}): {', '.join(map(user, u['items']))}"
                 + (" ..." if u["n"] > len(u["items"]) else "") for u in c["unpaired"]], "warn")]
        if c["not_compared"]:
            blocks += [_h(4, "Not compared"), _ul([f"{n['title']}: {n['reason']}" for n in c["not_compared"]])]
        if c["notes"]:
            blocks += [_h(4, "Notes on the comparison"), _ul(c["notes"])]
    return blocks


def change_cells(report: dict[str, Any], method: str, measure: str) -> dict[str, dict[str, Any]]:
    """Row label -> the comparison row of ``method`` whose measure is the side-by-side table's (the first
    comparison that has it): what the table's "change" columns show."""
    metric = measure.split(" ")[0]
    out: dict[str, dict[str, Any]] = {}
    for c in report.get("comparisons") or []:
        for r in c["rows"]:
            if r["method"] == method and r["gated"] and (r["measure"] == measure or r["measure"].startswith(metric)):
                out.setdefault(str(r["row"]), r)
    return out


def calibration_blocks(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The calibration table of ``report["coverage"]`` (nothing when absent or empty)."""
    cov = report.get("coverage")
    if not cov or not cov.get("rows"):
        return []
    meta = cov.get("meta") or {}
    rows = [[r["check"], ", ".join(f"{k} {v}" for k, v in r["setting"].items()), r["quantity"], r["estimand"],
             r["kind"], f"{r['rate']:.3f} ± {r['mc_error']:.3f} ({r['reps']})",
             f"[{r['band'][0]:.2f}, {r['band'][1]:.2f}]" if r.get("band") else "reported"] for r in cov["rows"]]
    return [_h(2, "How well the intervals and tests keep their promise"),
            _p(f"Measured by simulation on data whose truth is known ({cov['source']}; grid {meta.get('grid', '?')}, "
               f"{meta.get('reps', '?')} replicates a setting): coverage of each interval, size of each test at "
               "0.05, power under a planted effect, each with its Monte Carlo error.", "muted"),
            _table(["check", "setting", "what", "estimand", "kind", "rate ± MC error", "promise"], rows,
                   ["text"] * 7)]
