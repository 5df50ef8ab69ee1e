"""One figure style for the report, the widgets' exports and the viewer (Vega-Lite, built with altair).

A figure draws only what its rows hold: one bar per row from the value that means "no bias" (``ref``: 0 for
effect sizes, 50 for percentages, 1 for NLI neutrality) drawn as a line, a whisker from ``low`` to ``high``
where the row has an interval, and, where the row has a corrected p-value, the significant bars solid and
marked ``*`` with the others pale (the correction and alpha named in the legend). Bars take the palette's
colours (:mod:`embias_widgets.palette`): by group (RIPA's word groups, :func:`~embias_widgets.palette.group_colors`)
or, with several models, one colour per model. The title names the test and the model.

Readable at a phone's width: the figure is 340 px wide (it scrolls inside its card rather than shrink),
labels are 12 px, the x axis has few ticks and drops any that would collide, long titles wrap. Text is text
in the SVG (``report.html`` recolours it with the page's theme through CSS); the PNG is rendered at 300 dpi
for print. Rows: ``{label, value, model, low, high, group, significant}`` (the last four may be None).
"""

from __future__ import annotations

import math
import re
import textwrap
from pathlib import Path
from typing import Any

from .store import write_atomic

WIDTH = 340
"""Total width in CSS px (plot, labels and padding)."""
FONT = 12
PPI = 300
PNG_SCALE = 72 / 96
"""vl-convert draws ``scale * ppi / 72`` pixels per CSS px; at 300 ppi this scale gives 300/96 of them, so the
printed figure keeps its on-screen size (CSS px are 96 per inch): a 360 px figure is 1125 px wide, 3.75 in."""
INK = "#1f1f1f"
RULE = "#7d7d7d"  # the palette's grey: >= 3:1 on light and dark backgrounds
PALE = 0.35


_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")


def chart_text(text: Any) -> str:
    """``text`` (a model's file name, a word, a title) as it may enter a figure: every control character, line or
    paragraph separator, lone surrogate and noncharacter written as its escape (a form feed as ``\\x0c``, a
    newline as ``\\n``, U+2028 as ``\\u2028``). Raw, such a character is no XML (vl-convert aborts the whole
    process measuring its text) or ends a Vega expression's string (Vega-Lite sorts by an expression that quotes
    every label and model), so the figure, or the report, fails; escaped, the name still reads as given."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), str(text))


def _interval(row: list[Any], at: int | None) -> tuple[float | None, float | None]:
    cell = row[at] if at is not None else None
    if isinstance(cell, dict) and _finite(cell.get("low")) and _finite(cell.get("high")):
        return float(cell["low"]), float(cell["high"])
    return None, None


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def chart_rows(section: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows a done section's figure draws (rows without a finite number left out)."""
    chart, table = section.get("chart"), section["table"]
    if section["status"] != "done" or not chart or chart["x"] not in table["columns"]:
        return []
    cols = table["columns"]
    x, y = cols.index(chart["x"]), cols.index(chart["y"])
    iv = cols.index(chart["interval"]) if chart.get("interval") in cols else None
    group = cols.index(chart["color"]) if chart.get("color") in cols else None
    sig = {t["label"]: t["significant"] for t in section.get("significance") or []}
    out = []
    for r in table["rows"]:
        if not _finite(r[x]):
            continue
        low, high = _interval(r, iv)
        out.append({"label": str(r[y]), "value": float(r[x]), "model": section["model"], "low": low, "high": high,
                    "group": str(r[group]) if group is not None else None, "significant": sig.get(str(r[y]))})
    return out


def wrap(text: str, width: int = 52) -> list[str]:
    """``text`` in lines of at most ``width`` characters (whole words)."""
    return textwrap.wrap(str(text), width) or [""]


def chart_spec(rows: list[dict[str, Any]], x_title: str, y_title: str, *, title: str = "", subtitle: str = "",
               ref: float = 0.0, alpha: float | None = None) -> dict[str, Any] | None:
    """The Vega-Lite spec of the figure of ``rows`` (None when there is nothing to draw); ``alpha`` is the
    report's Holm-Bonferroni level, named in the legend of the significance marks."""
    if not rows:
        return None
    import altair as alt

    from ...palette import CATEGORICAL, group_colors

    rows = [{**r, **{k: chart_text(r[k]) for k in ("label", "model", "group") if r.get(k) is not None}} for r in rows]
    title, subtitle = chart_text(title), chart_text(subtitle)
    # an axis (field) title also enters the bars' ARIA description as an expression string, whose backslashes
    # Vega reads as escapes ("\\x0c" would become a form feed): there a backslash is drawn as U+29F5
    x_title, y_title = (chart_text(t).replace("\\", "\u29f5") for t in (x_title, y_title))
    models = list(dict.fromkeys(r["model"] for r in rows))
    several = len(models) > 1
    room = legend_room(rows)
    data = [{**r, "sig": _sig_word(r["significant"]), "ref": ref,
             "end": (r["high"] if r["high"] is not None else r["value"]) if r["value"] >= ref else
             (r["low"] if r["low"] is not None else r["value"])} for r in rows]
    if several:
        color = alt.Color("model:N", title="model", scale=alt.Scale(domain=models, range=list(CATEGORICAL)),
                          legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=room - 24))
    elif any(r["group"] for r in rows):
        colours = group_colors(r["group"] for r in rows)
        color = alt.Color("group:N", title="group", scale=alt.Scale(domain=list(colours), range=list(colours.values())),
                          legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=room - 24))
    else:
        color = alt.value(CATEGORICAL[0])
    labels = list(dict.fromkeys(r["label"] for r in rows))
    y = alt.Y("label:N", title=y_title, sort=labels, axis=alt.Axis(labelLimit=120, titleLimit=200))
    x = alt.X("value:Q", title=wrap(x_title, 40), scale=alt.Scale(zero=False, nice=True, padding=14),
              axis=alt.Axis(tickCount=4, labelOverlap="greedy", labelSeparation=8, labelFlush=True, grid=True))
    base = alt.Chart(alt.Data(values=data))
    bars = base.mark_bar(strokeWidth=1).encode(x=x, x2="ref:Q", y=y, color=color, stroke=color,
                                              opacity=_opacity(data, alpha, room))
    layers = [alt.Chart(alt.Data(values=[{"ref": ref}])).mark_rule(color=RULE, strokeWidth=1.5).encode(x="ref:Q"),
              bars.properties(name="bars")]
    if any(r["low"] is not None for r in rows):
        layers.append(base.transform_filter("datum.low != null").mark_rule(color=INK, strokeWidth=1.5).encode(
            x="low:Q", x2="high:Q", y=y).properties(name="whiskers"))
    if any(r["significant"] for r in rows):
        star = base.transform_filter("datum.significant === true")
        for name, keep, align, dx in (("sigmarks", ">=", "left", 4), ("sigmarks_neg", "<", "right", -4)):
            layers.append(star.transform_filter(f"datum.value {keep} {ref}").mark_text(
                align=align, dx=dx, fontSize=FONT + 2, fill=INK).encode(x="end:Q", y=y, text=alt.value("*"))
                .properties(name=name))
    chart = alt.layer(*layers)
    if several:
        chart = alt.layer(*[layer.encode(yOffset=alt.YOffset("model:N", sort=models)) if i else layer
                            for i, layer in enumerate(layers)])
    step = 14 * len(models) + 6 if several else 18
    spec = chart.properties(
        width=WIDTH, height=max(54, step * len(labels)),
        title=alt.TitleParams(wrap(title, 46), subtitle=wrap(subtitle, 52) if subtitle else alt.Undefined,
                              anchor="start", fontSize=FONT + 1, subtitleFontSize=FONT),
    )
    spec = spec.configure(background="#ffffff", font="system-ui, -apple-system, 'Segoe UI', sans-serif", padding=6,
                          autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    spec = spec.configure_axis(labelFontSize=FONT, titleFontSize=FONT, labelColor=INK, titleColor=INK,
                               domainColor=RULE, tickColor=RULE, gridColor="#d9d9d9")
    spec = spec.configure_legend(labelFontSize=FONT, titleFontSize=FONT, labelColor=INK, titleColor=INK)
    spec = spec.configure_title(color=INK, subtitleColor=INK).configure_view(stroke=None)
    return spec.to_dict()


def _sig_word(significant: bool | None) -> str | None:
    return None if significant is None else ("* significant" if significant else "not significant")


def legend_room(rows: list[dict[str, Any]]) -> int:
    """Pixels a bottom legend has: it starts where the plot starts, right of the y labels (at most 120 px of
    labels, about 7 px a character, and the axis title), so its text is kept to what is left of the width."""
    labels = min(120, 7 * max(len(r["label"]) for r in rows)) + 30
    return max(120, WIDTH - labels - 12)


def _opacity(data: list[dict[str, Any]], alpha: float | None, room: int) -> Any:
    import altair as alt

    if all(r["sig"] is None for r in data):
        return alt.value(0.9)
    words = "Holm-Bonferroni over every p-value of the report" + (f", alpha {alpha:g}" if alpha is not None else "")
    title = wrap(words, max(12, (room - 10) // 8))
    return alt.Opacity("sig:N", title=title, scale=alt.Scale(domain=["* significant", "not significant"],
                                                                  range=[0.9, PALE]),
                           legend=alt.Legend(orient="bottom", direction="vertical", titleLimit=room))


def section_spec(section: dict[str, Any], alpha: float | None = None) -> dict[str, Any] | None:
    """The figure of one section (title: the section's title; subtitle: its model)."""
    rows = chart_rows(section)
    if not rows:
        return None
    chart = section["chart"]
    return chart_spec(rows, chart["x"], chart["y"], title=section["title"], subtitle=section["model"],
                      ref=float(chart.get("ref", 0.0)), alpha=alpha)


class FigureError(ValueError):
    """A figure Vega-Lite could not draw: the report leaves it out with a note and writes everything else."""


def to_svg(spec: dict[str, Any]) -> str:
    """The SVG of ``spec`` (vl-convert); :class:`FigureError` with vl-convert's first line when it fails."""
    import vl_convert as vlc

    try:
        return vlc.vegalite_to_svg(spec)
    except Exception as err:  # vl-convert raises plain ValueError/RuntimeError with a JavaScript stack
        raise FigureError(_first_line(err)) from None


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return " ".join(lines[:2])[:300] or type(err).__name__


def render(spec: dict[str, Any], stem: Path) -> dict[str, Any]:
    """Write ``stem.svg`` (text as text) and ``stem.png`` (300 dpi); ``{"svg", "svg_path", "png_path"}``
    (paths relative to the folder). :class:`FigureError` (nothing written) when vl-convert cannot draw it."""
    import vl_convert as vlc

    svg = to_svg(spec)
    try:
        png = vlc.vegalite_to_png(spec, scale=PNG_SCALE, ppi=PPI)
    except Exception as err:
        raise FigureError(_first_line(err)) from None
    stem.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(stem.with_suffix(".svg"), svg)
    write_atomic(stem.with_suffix(".png"), png)
    rel = f"{stem.parent.name}/{stem.name}"
    return {"svg": svg, "svg_path": f"{rel}.svg", "png_path": f"{rel}.png"}
