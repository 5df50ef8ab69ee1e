"""One figure style for the report, the widgets' exports and the viewer (Vega-Lite, built with altair).

A figure draws only what its rows hold: one bar per row from the value that means "no bias" (``ref``: 0 for
effect sizes, 50 for percentages, 1 for NLI neutrality) drawn as a line, a whisker from ``low`` to ``high``
where the row has an interval, and, where rows have a corrected p-value, the significant bars solid and marked
``*``, the others pale inside a full-colour outline, and rows with no test (a control, "-" in the table) pale
inside a dashed outline, each state with its legend entry (the correction and alpha named in its title). Bars
take the palette's colours (:mod:`embias_widgets.palette`): by group (RIPA's word groups, the debiasing
check's sets of vectors, :func:`~embias_widgets.palette.group_colors`) or, with several models, one colour per
model; every bar's outline is its colour at full strength, so each reads at 3:1 on light and dark pages.
The title names the test and the model.

Readable at a phone's width: the figure is 340 px wide (it scrolls inside its card rather than shrink),
labels are 12 px, the y axis title stands above its labels (never beside them, where a browser's wider font
would draw the labels into it), the x axis has few ticks and drops any that would collide, long titles wrap.
Text is text in the SVG (``report.html`` recolours it with the page's theme through CSS); the PNG is rendered
at 300 dpi for print. Rows: ``{label, key, value, model, low, high, group, significant}`` (the last four may be None).
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
SOLID = 0.9
PALE = 0.3


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
    """The rows a done section's figure draws (rows without a finite number left out). A row's significance is
    looked up by its first cell (the label its test carries, as :func:`..publish.findings.section_rows` does);
    ``key`` keeps that cell, which names the row even where the chart's label (``chart["y"]``) repeats."""
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
        out.append({"label": str(r[y]), "key": str(r[0]), "value": float(r[x]), "model": section["model"],
                    "low": low, "high": high, "group": str(r[group]) if group is not None else None,
                    "significant": sig.get(str(r[0]))})
    return out


def wrap(text: str, width: int = 52) -> list[str]:
    """``text`` in lines of at most ``width`` characters (whole words)."""
    return textwrap.wrap(str(text), width) or [""]


def chart_spec(rows: list[dict[str, Any]], x_title: str, y_title: str, *, title: str = "", subtitle: str = "",
               ref: float = 0.0, alpha: float | None = None, group_title: str = "group",
               holm_scope: str = "every p-value of the report") -> dict[str, Any] | None:
    """The Vega-Lite spec of the figure of ``rows`` (None when there is nothing to draw); ``alpha`` is the
    report's Holm-Bonferroni level, named in the legend of the significance marks; ``group_title`` names the
    rows' groups in the colour legend.

    Rows whose label repeats within a model (the debiasing check: one test, three sets of vectors) sit side by
    side within the label's band, told apart by their group's colour; with several models, the models take the
    colours and such rows are labelled by their ``key``. The y axis title stands above the labels, in line
    with them, and the figure keeps some room left of them, since a browser's font may draw them wider than
    the one they were measured in (vl-convert's)."""
    if not rows:
        return None
    import altair as alt


    rows = [{**r, **{k: chart_text(r[k]) for k in ("label", "model", "group") if r.get(k) is not None}} for r in rows]
    title, subtitle = chart_text(title), chart_text(subtitle)
    # an axis (field) title also enters the bars' ARIA description as an expression string, whose backslashes
    # Vega reads as escapes ("\\x0c" would become a form feed): there a backslash is drawn as U+29F5
    x_title, y_title = (chart_text(t).replace("\\", "\u29f5") for t in (x_title, y_title))
    models = list(dict.fromkeys(r["model"] for r in rows))
    several = len(models) > 1
    repeats = len({(r["model"], r["label"]) for r in rows}) < len(rows)
    if several and repeats:
        rows = [{**r, "label": r.get("key", r["label"])} for r in rows]
    grouped = repeats and not several and all(r["group"] for r in rows)
    room = legend_room(rows)
    data = [{**r, "sig": _sig_word(r["significant"], rows), "ref": ref,
             "end": (r["high"] if r["high"] is not None else r["value"]) if r["value"] >= ref else
             (r["low"] if r["low"] is not None else r["value"])} for r in rows]
    color, fill = _colours(rows, models, room, group_title)
    labels = list(dict.fromkeys(r["label"] for r in data))
    label_px = label_width(data)
    y = alt.Y("label:N", title=y_title, sort=labels, axis=alt.Axis(
        labelLimit=LABEL_LIMIT, titleAngle=0, titleAlign="right", titleAnchor="start", titleBaseline="bottom",
        titleX=-6, titleY=-4, titleLimit=label_px))
    x = alt.X("value:Q", title=wrap(x_title, 30), scale=alt.Scale(zero=False, nice=True, padding=14),
              axis=alt.Axis(tickCount=4, labelOverlap="greedy", labelSeparation=8, labelFlush=True, grid=True))
    base = alt.Chart(alt.Data(values=data))
    # not filled: ``color`` is the outline (full strength), ``fill`` the inside (its opacity by significance)
    bars = base.mark_bar(filled=False, strokeWidth=1.5).encode(
        x=x, x2="ref:Q", y=y, color=color, fill=fill, **_significance(data, alpha, room, color, holm_scope))
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
    offset = "model" if several else "group" if grouped else None
    chart = alt.layer(*layers)
    if offset:
        order = models if several else list(dict.fromkeys(r["group"] for r in rows))
        chart = alt.layer(*[layer.encode(yOffset=alt.YOffset(f"{offset}:N", sort=order)) if i else layer
                            for i, layer in enumerate(layers)])
    n_side = len(models) if several else len({r["group"] for r in rows}) if grouped else 1
    step = 17 * n_side + 6 if n_side > 1 else 18  # side by side: room for a star (14 px) on each bar
    spec = chart.properties(
        width=WIDTH, height=max(54, step * len(labels)),
        # lines short enough for the plot's width in a browser's wider font (a path breaks anywhere), and a limit
        title=alt.TitleParams(wrap(title, 32), subtitle=wrap(subtitle, 34) if subtitle else alt.Undefined,
                              limit=WIDTH,
                              anchor="start", fontSize=FONT + 1, subtitleFontSize=FONT),
    )
    slack = round(label_px * (SLACK - 1)) + 6
    spec = spec.configure(background="#ffffff", font="system-ui, -apple-system, 'Segoe UI', sans-serif",
                          padding={"left": slack, "right": 6, "top": 6, "bottom": 6},
                          autosize=alt.AutoSizeParams(type="fit-x", contains="padding"))
    spec = spec.configure_axis(labelFontSize=FONT, titleFontSize=FONT, labelColor=INK, titleColor=INK,
                               domainColor=RULE, tickColor=RULE, gridColor="#d9d9d9")
    spec = spec.configure_legend(labelFontSize=FONT, titleFontSize=FONT, labelColor=INK, titleColor=INK)
    spec = spec.configure_title(color=INK, subtitleColor=INK).configure_view(stroke=None)
    return spec.to_dict()


LABEL_LIMIT = 120
"""Longest y label in px (longer ones end in an ellipsis)."""
SLACK = 1.2
"""How much wider than measured a browser may draw a label (DejaVu Sans draws about 1.12 times Arial's width)."""
SIG_WORDS = ("* significant", "not significant", "no test")
"""The legend's words for a bar whose row survives Holm-Bonferroni, one that does not, and one with no test
(a control such as the debiasing check's random direction; its table cell reads "-")."""


def _sig_word(significant: bool | None, rows: list[dict[str, Any]]) -> str | None:
    if all(r["significant"] is None for r in rows):
        return None
    return SIG_WORDS[2] if significant is None else SIG_WORDS[0] if significant else SIG_WORDS[1]


def label_width(rows: list[dict[str, Any]]) -> int:
    """Pixels the y labels take: about 7 px a character at 12 px, at most :data:`LABEL_LIMIT`."""
    return min(LABEL_LIMIT, 7 * max(len(r["label"]) for r in rows))



def _colours(rows: list[dict[str, Any]], models: list[str], room: int, group_title: str) -> tuple[Any, Any]:
    """The bars' outline (``color``, with its legend) and inside (``fill``) encodings: the models' colours when
    there are several, else the groups' (the palette's, :func:`~embias_widgets.palette.group_colors`), else one."""
    import altair as alt

    from ...palette import CATEGORICAL, group_colors

    several = len(models) > 1
    if not (several or any(r["group"] for r in rows)):
        return alt.value(CATEGORICAL[0]), alt.value(CATEGORICAL[0])
    # labels truncated where vl-convert's font reaches the room, less a browser's wider font's share (SLACK)
    legend = {"orient": "bottom", "direction": "vertical", "labelLimit": int((room - 24) / SLACK),
              "symbolType": "square", "symbolStrokeWidth": 1.5}
    field = "model" if several else "group"
    colours = ({m: CATEGORICAL[i % len(CATEGORICAL)] for i, m in enumerate(models)} if several
               else group_colors(r["group"] for r in rows))
    scale = alt.Scale(domain=list(colours), range=list(colours.values()))
    if several and any(r["significant"] is not None for r in rows):
        # the significance legend (bottom) and the models' would sit side by side and run off the figure at a
        # phone's width: the models' goes above the plot when both are drawn
        legend["orient"] = "top"
    return (alt.Color(f"{field}:N", title="model" if several else group_title, scale=scale,
                      legend=alt.Legend(**legend)),
            alt.Fill(f"{field}:N", scale=scale, legend=None))

def legend_room(rows: list[dict[str, Any]]) -> int:
    """Pixels a bottom legend has: it starts where the plot starts, right of the y labels (at most 120 px of
    labels, about 7 px a character, and the axis title), so its text is kept to what is left of the width."""
    labels = label_width(rows) + 30
    return max(120, WIDTH - labels - 12)


def _significance(data: list[dict[str, Any]], alpha: float | None, room: int, color: Any,
                  holm_scope: str = "every p-value of the report") -> dict[str, Any]:
    """The bars' inside and outline by significance: solid where the row survives Holm-Bonferroni (and starred),
    a pale inside where it does not, and a pale inside in a dashed outline where the row has no test. The
    outline is the palette's colour at full strength (at least 3:1 on light and dark backgrounds, WCAG 1.4.11),
    so a pale bar stays visible. One legend entry per state present, titled with the correction; Vega-Lite
    draws its swatches as outlines (:func:`vega_spec` fills them as the bars are filled)."""
    import altair as alt

    if all(r["sig"] is None for r in data):
        return {"fillOpacity": alt.value(SOLID)}
    present = [w for w in SIG_WORDS if any(r["sig"] == w for r in data)]
    words = f"Holm-Bonferroni over {holm_scope}" + (f", alpha {alpha:g}" if alpha is not None else "")
    title = wrap(words, max(12, (room - 10) // 8))
    swatch = color["value"] if isinstance(color, dict) else RULE  # one colour: alt.value(...) is {"value": ...}
    fill = {SIG_WORDS[0]: SOLID, SIG_WORDS[1]: PALE, SIG_WORDS[2]: PALE}
    dash = {SIG_WORDS[0]: [1, 0], SIG_WORDS[1]: [1, 0], SIG_WORDS[2]: [4, 3]}
    legend = alt.Legend(orient="bottom", direction="vertical", titleLimit=room, symbolType="square",
                        symbolStrokeColor=swatch, symbolFillColor=swatch, symbolStrokeWidth=1.5)
    return {"fillOpacity": alt.FillOpacity("sig:N", legend=None, scale=alt.Scale(
                type="ordinal", domain=present, range=[fill[w] for w in present])),
            "strokeDash": alt.StrokeDash("sig:N", title=title, legend=legend, scale=alt.Scale(
                type="ordinal", domain=present, range=[dash[w] for w in present]))}


def vega_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The Vega spec of a figure's Vega-Lite ``spec``, its legend swatches filled as the bars are: Vega-Lite
    draws the swatches of an outlined mark hollow and has no legend for fill opacity, so the colour legend's
    swatches take their colour's fill and the significance legend's their state's fill opacity here."""
    import vl_convert as vlc

    vega = vlc.vegalite_to_vega(spec)
    scales = {s["name"] for s in vega.get("scales", [])}
    for legend in vega.get("legends", []):
        symbols = legend.setdefault("encode", {}).setdefault("symbols", {}).setdefault("update", {})
        if legend.get("stroke") in scales:  # the colour legend (models or groups)
            symbols["fill"] = {"scale": legend["stroke"], "field": "value"}
        elif legend.get("strokeDash") and "fillOpacity" in scales:  # the significance legend
            symbols["fill"] = {"value": legend.get("symbolFillColor", RULE)}
            symbols["stroke"] = {"value": legend.get("symbolStrokeColor", RULE)}
            symbols["fillOpacity"] = {"scale": "fillOpacity", "field": "value"}
    legend_layout = {"bottom": {"direction": "vertical", "anchor": "start", "margin": 8}}
    vega.setdefault("config", {}).setdefault("legend", {})["layout"] = legend_layout  # stacked, never side by side
    return vega


def svg_of(spec: dict[str, Any]) -> str:
    """The figure as SVG (text as text), from :func:`vega_spec`."""
    import vl_convert as vlc

    return vlc.vega_to_svg(vega_spec(spec))


def section_spec(section: dict[str, Any], alpha: float | None = None) -> dict[str, Any] | None:
    """The figure of one section (title: the section's title; subtitle: its model)."""
    rows = chart_rows(section)
    if not rows:
        return None
    chart = section["chart"]
    return chart_spec(rows, chart["x"], chart["y"], title=section["title"], subtitle=section["model"],
                      ref=float(chart.get("ref", 0.0)), alpha=alpha, group_title=chart.get("color", "group"))


class FigureError(ValueError):
    """A figure Vega-Lite could not draw: the report leaves it out with a note and writes everything else."""


def to_svg(spec: dict[str, Any]) -> str:
    """The SVG of ``spec`` (:func:`svg_of`); :class:`FigureError` with vl-convert's first line when it fails."""
    try:
        return svg_of(spec)
    except Exception as err:  # vl-convert raises plain ValueError/RuntimeError with a JavaScript stack
        raise FigureError(_first_line(err)) from None


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return " ".join(lines[:2])[:300] or type(err).__name__


def render(spec: dict[str, Any], stem: Path) -> dict[str, Any]:
    """Write ``stem.svg`` (text as text) and ``stem.png`` (300 dpi); ``{"svg", "svg_path", "png_path"}``
    (paths relative to the folder). :class:`FigureError` (nothing written) when vl-convert cannot draw it."""
    import vl_convert as vlc

    try:  # one Vega spec for both files (vega_spec compiles the Vega-Lite spec)
        vega = vega_spec(spec)
        svg = vlc.vega_to_svg(vega)
        png = vlc.vega_to_png(vega, scale=PNG_SCALE, ppi=PPI)
    except Exception as err:  # vl-convert raises plain ValueError/RuntimeError with a JavaScript stack
        raise FigureError(_first_line(err)) from None
    stem.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(stem.with_suffix(".svg"), svg)
    write_atomic(stem.with_suffix(".png"), png)
    rel = f"{stem.parent.name}/{stem.name}"
    return {"svg": svg, "svg_path": f"{rel}.svg", "png_path": f"{rel}.png"}
