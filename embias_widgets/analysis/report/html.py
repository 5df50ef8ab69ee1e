"""``report.html``: self-contained (figures as inline SVG images, no script, nothing fetched), light and dark
(``prefers-color-scheme``) and print. A section per method: what it measures, the numbers, the chart,
significance, published figures, notes. Every text is escaped; nothing the user gave is markup.
"""

from __future__ import annotations

import base64
import html
import math
from typing import Any

CSS = """
:root { --fg: #1f1f1f; --muted: #4d4d4d; --bg: #ffffff; --card: #f4f4f4; --border: #b8b8b8; --accent: #0b57d0;
  --ok: #136c2e; --warn: #8a4b00; --bad: #a31515; color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --fg: #ececec; --muted: #c4c4c4; --bg: #161616; --card: #242424;
  --border: #5c5c5c; --accent: #8ab4f8; --ok: #7fd196; --warn: #f2b56b; --bad: #ff9c9c; } }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
  margin: 0 auto; max-width: 980px; padding: 1.5rem; }
h1, h2, h3 { line-height: 1.25; } .muted { color: var(--muted); }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--border); padding: .2rem .5rem; text-align: left; color: var(--fg); }
th { background: var(--card); }
details { border: 1px solid var(--border); border-radius: 6px; padding: .5rem 1rem; margin: 1rem 0; }
summary { cursor: pointer; font-weight: 600; }
.figure { background: #ffffff; padding: .5rem; border-radius: 4px; display: inline-block; max-width: 100%; }
.figure img { max-width: 100%; height: auto; }
.done { color: var(--ok); } .skipped { color: var(--warn); } .failed { color: var(--bad); }
code { color: var(--fg); background: var(--card); padding: 0 .2rem; }
@media print { body { max-width: none; color: #000; background: #fff; } details { break-inside: avoid; }
  details > *:not(summary) { display: block; } }
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _cell(v: Any) -> str:
    if v is None:
        return "&mdash;"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.4g}"
    return _e(v)


def table_html(columns: list[str], rows: list[list[Any]]) -> str:
    """An HTML table of ``rows`` (every cell escaped)."""
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _figure(svg: str | None, alt: str) -> str:
    if not svg:
        return "<p class='muted'>no chart</p>"
    data = base64.b64encode(svg.encode()).decode()
    return f"<div class='figure'><img alt='{_e(alt)}' src='data:image/svg+xml;base64,{data}'></div>"


def _published(section: dict[str, Any]) -> str:
    pubs = section["published"]
    if not pubs:
        return "<p class='muted'>Published figures: no published figure.</p>"
    rows = [[p["label"], p["value"], p["ours"], f"{p['source']['paper']}, {p['source']['table']}, "
             f"{p['source']['row']}"] for p in pubs]
    return "<h4>Published figures beside ours</h4>" + table_html(["figure", "published", "ours", "source"], rows)


def _significance(section: dict[str, Any], alpha: float) -> str:
    sig = section.get("significance") or []
    if not sig:
        return "<p class='muted'>Significance: no p-value in this section.</p>"
    rows = [[t["label"], t["p"], t["p_holm"], "yes" if t["significant"] else "no"] for t in sig]
    return (f"<h4>Significance (Holm-Bonferroni over every p-value of the report, alpha {alpha:g})</h4>"
            + table_html(["test", "p", "p (Holm)", "significant"], rows))


def section_html(section: dict[str, Any], alpha: float) -> str:
    """One section: what it measures, numbers, chart, significance, published figures, notes."""
    status = section["status"]
    head = (f"<details open><summary>{_e(section['title'])} &middot; {_e(section['model'])} "
            f"<span class='{_e(status)}'>[{_e(status)}]</span></summary><p>{_e(section['what'])}</p>")
    if status != "done":
        return head + f"<p class='{_e(status)}'>{_e(section['reason'])}</p></details>"
    notes = "".join(f"<li>{_e(n)}</li>" for n in section["notes"])
    return (head + table_html(section["table"]["columns"], section["table"]["rows"])
            + _figure(section["figure"]["svg"], f"{section['title']}, {section['model']}")
            + _significance(section, alpha) + _published(section)
            + (f"<h4>Notes</h4><ul>{notes}</ul>" if notes else "")
            + f"<p class='muted'>{section['seconds']:.1f} s</p></details>")


def report_html(result: Any) -> str:
    """The whole page of a :class:`~.result.ReportResult`."""
    d = result.to_dict()
    prov = d["provenance"]
    models = table_html(["model", "kind", "fingerprint"],
                        [[m["name"], m["kind"], m["fingerprint"]] for m in d["models"]])
    data = table_html(["data file", "source", "sha256"],
                      [[k, v["source"], v["sha256"]] for k, v in d["data_files"].items()]) if d["data_files"] else ""
    parts = [f"<h1>{_e(d['title'])}</h1>",
             f"<p class='muted'>{_e(d['created'])} &middot; embias-widgets {_e(prov['package_version'])} &middot; "
             f"Python {_e(prov['python'])} &middot; {prov['seconds']:.1f} s &middot; "
             f"{'quick' if d['quick'] else 'full'} sizes: {_e(prov['options']['sizes'])}</p>", models, data]
    if len(d["models"]) > 1:
        parts.append("<h2>Models side by side</h2>")
        for t in result.method_tables():
            parts += [f"<h3>{_e(t['title'])}</h3>", table_html(t["columns"], t["rows"])]
        for _, title, spec in result.method_charts():
            if spec:
                import vl_convert as vlc

                parts += [f"<h3>{_e(title)}</h3>", _figure(vlc.vegalite_to_svg(spec), title)]
    parts.append("<h2>Sections</h2>")
    parts += [section_html(s, d["holm"]["alpha"]) for s in d["sections"]]
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
            "content='width=device-width, initial-scale=1'><meta http-equiv='Content-Security-Policy' "
            "content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">"
            f"<title>{_e(d['title'])}</title><style>{CSS}</style></head><body>{''.join(parts)}</body></html>")
