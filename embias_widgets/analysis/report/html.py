"""``report.html``: the blocks of :mod:`.page` as one self-contained page (figures as inline SVG, no script,
nothing fetched), light and dark (``prefers-color-scheme``: the figures' text and rules take the theme's
colours through CSS) and print. Every text is escaped; user text (model names, paths, the title) sits in
``<bdi>``; numbers are written by :mod:`embias_widgets.formatting`. Tables and figures scroll inside their
card; the page itself never scrolls sideways, down to a phone's 360 px.
"""

from __future__ import annotations

import html
from typing import Any

from ...formatting import format_table
from ..publish.findings import FSI, PDI

CSS = """
:root { --fg: #1f1f1f; --muted: #4d4d4d; --bg: #ffffff; --card: #f4f4f4; --border: #b8b8b8; --accent: #0b57d0;
  --ok: #136c2e; --warn: #8a4b00; --bad: #a31515; --warnbg: #fff4e0; color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececec; --muted: #c4c4c4; --bg: #161616; --card: #242424;
  --border: #5c5c5c; --accent: #8ab4f8; --ok: #7fd196; --warn: #f2b56b; --bad: #ff9c9c; --warnbg: #2e2416; } }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
  margin: 0 auto; max-width: 1000px; padding: 1.5rem; overflow-wrap: anywhere; }
h1, h2, h3, h4 { line-height: 1.25; } h1 { font-size: 1.6rem; } .muted { color: var(--muted); }
.scroll { max-width: 100%; overflow-x: auto; margin: .5rem 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--border); padding: .2rem .5rem; text-align: left; color: var(--fg);
  overflow-wrap: normal; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; } th { background: var(--card); }
details { border: 1px solid var(--border); border-radius: 6px; padding: .5rem 1rem; margin: 1rem 0; min-width: 0; }
summary { cursor: pointer; font-weight: 600; }
.headline { font-weight: 600; font-size: 1.05rem; }
.warn { color: var(--warn); background: var(--warnbg); border-left: 4px solid var(--warn); padding: .3rem .6rem; }
.figure svg { display: block; max-width: none; height: auto; }
.figure svg > rect:first-child, .figure svg path.background { fill: transparent; }
.figure svg text { fill: var(--fg); }
.figure svg .whiskers_marks > * { stroke: var(--fg); }
.figure svg .role-axis-grid path { stroke: var(--border); }
.done { color: var(--ok); } .skipped { color: var(--warn); } .failed { color: var(--bad); }
code { color: var(--fg); background: var(--card); padding: 0 .2rem; }
@media (max-width: 600px) { body { padding: .75rem; } details { padding: .4rem .5rem; } }
@media print { body { max-width: none; color: #000; background: #fff; } details { break-inside: avoid; }
  details > *:not(summary) { display: block; } }
"""


def _e(value: Any) -> str:
    """Escaped text; FSI ... PDI (user text, :func:`~.findings.user`) becomes ``<bdi>...</bdi>``."""
    return html.escape(str(value), quote=True).replace(FSI, "<bdi>").replace(PDI, "</bdi>")


def table_html(columns: list[str], rows: list[list[Any]], kinds: list[str] | None = None,
               alphas: list[Any] | None = None) -> str:
    """An HTML table of ``rows``, each column written in its kind (:func:`format_table`; ``alphas[i]``: the
    thresholds row i's p-values are shown against), in a card that scrolls sideways."""
    kinds = kinds or ["number"] * len(columns)
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(
        f"<td class='num'>{_e(text)}</td>" if isinstance(v, int | float | dict) and not
        isinstance(v, bool) else f"<td>{_e(text)}</td>" for v, text in zip(r, texts, strict=True))
        + "</tr>" for r, texts in zip(rows, format_table(rows, kinds, alphas), strict=True))
    return f"<div class='scroll'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def block_html(b: dict[str, Any]) -> str:
    """One block of :func:`.page.page`."""
    t = b["t"]
    if t == "h":
        return f"<h{b['level']}>{_e(b['text'])}</h{b['level']}>"
    if t == "p":
        return f"<p class='{_e(b['cls'])}'>{_e(b['text'])}</p>" if b.get("cls") else f"<p>{_e(b['text'])}</p>"
    if t == "ul":
        cls = f" class='{_e(b['cls'])}'" if b.get("cls") else ""
        return f"<ul{cls}>" + "".join(f"<li>{_e(i)}</li>" for i in b["items"]) + "</ul>"
    if t == "table":
        return table_html(b["columns"], b["rows"], b["kinds"], b.get("alphas"))
    if t == "figure":
        # the SVG is vl-convert's, from our own spec: its text is escaped by the renderer; role=img names it
        svg = b["svg"].replace("<svg ", f"<svg role='img' aria-label='{_e(b['alt'])}' ", 1)
        return f"<div class='figure scroll'>{svg}</div>"
    if t == "details":
        status = b["status"]
        return (f"<details{' open' if b['open'] else ''}><summary>{_e(b['summary'])} "
                f"<span class='{_e(status)}'>[{_e(status)}]</span></summary>"
                + "".join(block_html(c) for c in b["children"]) + "</details>")
    raise ValueError(f"unknown block {t!r}")


def report_html(result: Any) -> str:
    """The whole page of a :class:`~.result.ReportResult` (or of its ``to_dict()``, when the caller has it)."""
    from ..publish.page import page

    d = result if isinstance(result, dict) else result.to_dict()
    body = "".join(block_html(b) for b in page(d))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
            "content='width=device-width, initial-scale=1'><meta http-equiv='Content-Security-Policy' "
            "content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">"
            f"<title>{html.escape(d['title'].translate(dict.fromkeys(map(ord, FSI + PDI))))}</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>")
