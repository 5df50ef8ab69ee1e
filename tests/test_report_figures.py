"""The report's figures draw every row in a state a reader can tell apart and read: significant (solid, starred),
not significant (pale inside a full-colour outline), no test (a control: pale in a dashed outline), each state
with its legend entry; the debiasing check's rows side by side within their test; the y axis title above the
labels. Built on small section dicts written here; the figures are drawn by vl-convert, as the report draws
them. How they look in a browser (contrast, overlaps) is tests/browser/test_report_html.py's."""

from __future__ import annotations

import re

import pytest

from embias_widgets.analysis.report import SECTION_KEYS
from embias_widgets.analysis.report.figures import chart_rows, chart_spec, section_spec, svg_of, vega_spec
from embias_widgets.palette import CATEGORICAL

VECTORS = ("original", "gender direction removed", "random direction removed")


def _debias(model: str = "glove") -> dict:
    """The debiasing check's section as run_debias writes it: three rows per test, the random control untested."""
    section = dict.fromkeys(SECTION_KEYS)
    values = {"weat6": (1.71, 0.80, 1.70), "weat7": (1.50, -0.25, 1.41)}
    rows, sig = [], []
    for test, ds in values.items():
        for label, d in zip(VECTORS, ds, strict=True):
            rows.append([f"{test} {label}", test, label, d, 0.001])
        sig += [{"label": f"{test} original", "p": 0.001, "p_holm": 0.004, "significant": True},
                {"label": f"{test} gender direction removed", "p": 0.06, "p_holm": 0.2, "significant": False}]
    section.update(id=f"debias--{model}", title="Projection debiasing check against a random direction",
                   method="debias", model=model, status="done", notes=[], significance=sig,
                   table={"columns": ["row", "test", "vectors", "effect size d", "p"], "rows": rows},
                   chart={"x": "effect size d", "y": "test", "color": "vectors", "ref": 0})
    return section


def _bars(svg: str) -> list[dict]:
    """Each bar of a drawn figure: its fill, fill opacity, outline and dash, and its aria label."""
    block = re.search(r'bars_marks"[^>]*>(.*?)</g>', svg).group(1)
    out = []
    for path in re.findall(r"<path [^>]*/>", block):
        attr = dict(re.findall(r'([\w-]+)="([^"]*)"', path))
        out.append({"fill": attr.get("fill"), "opacity": float(attr.get("fill-opacity", 1)),
                    "stroke": attr.get("stroke"), "dash": attr.get("stroke-dasharray"), "label": attr["aria-label"]})
    return out


def _legend_labels(svg: str) -> list[str]:
    return re.findall(r'role-legend-label"[^>]*>(?:<text[^>]*>([^<]*)</text>)', svg) or re.findall(
        r'<text[^>]*>([^<]*)</text></g></g>', svg)


def test_debias_chart_draws_the_untested_control_apart_with_its_legend_entry():
    section = _debias()
    svg = svg_of(section_spec(section, alpha=0.01))
    bars = _bars(svg)
    assert len(bars) == 6
    by_state = {state: [b for b in bars if f"sig: {state}" in b["label"]]
                for state in ("* significant", "not significant", "no test")}
    assert [len(v) for v in by_state.values()] == [2, 2, 2]
    # significant: solid; not significant: pale, solid outline; no test (the random control): pale, dashed outline
    assert all(b["opacity"] >= 0.9 and b["dash"] == "1,0" for b in by_state["* significant"])
    assert all(b["opacity"] <= 0.35 and b["dash"] == "1,0" for b in by_state["not significant"])
    assert all(b["opacity"] <= 0.35 and b["dash"] == "4,3" for b in by_state["no test"])
    assert all("random direction removed" in b["label"] for b in by_state["no test"])
    # every bar's outline is its colour at full strength: the palette colour, never faded
    assert all(b["stroke"] == b["fill"] and b["stroke"] in CATEGORICAL for b in bars)
    assert {b["fill"] for b in bars} == set(CATEGORICAL[:3])  # one colour per set of vectors
    marks = re.search(r'sigmarks_marks"[^>]*>(.*?)</g>', svg).group(1)
    assert marks.count(">*</text>") == 2  # the two originals survive Holm; the control has no star
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    for entry in ("* significant", "not significant", "no test", "vectors", *VECTORS):
        assert entry in texts, entry
    assert not [t for t in texts if t.endswith("…")], "a label is cut short"
    assert [t for t in texts if t.startswith("weat")] == ["weat6", "weat7"]  # one label per test


def test_significance_legend_swatches_are_drawn_as_the_bars_are():
    """Vega-Lite draws the swatches of outlined bars hollow and has no fill-opacity legend: vega_spec fills them
    as each state's bars are filled, outlined in the same colour."""
    vega = vega_spec(section_spec(_debias(), alpha=0.01))
    sig = next(lg for lg in vega["legends"] if lg.get("strokeDash"))
    symbols = sig["encode"]["symbols"]["update"]
    assert symbols["fillOpacity"] == {"scale": "fillOpacity", "field": "value"}
    assert symbols["fill"] == symbols["stroke"] and symbols["fill"]["value"]
    scales = {s["name"]: s for s in vega["scales"]}
    assert scales["fillOpacity"]["type"] == "ordinal"  # a point scale would spread three states over [min, max]
    assert dict(zip(scales["fillOpacity"]["domain"], scales["fillOpacity"]["range"], strict=True)) == {
        "* significant": 0.9, "not significant": 0.3, "no test": 0.3}
    colours = next(lg for lg in vega["legends"] if lg.get("stroke"))
    assert colours["encode"]["symbols"]["update"]["fill"] == {"scale": colours["stroke"], "field": "value"}
    assert vega["config"]["legend"]["layout"]["bottom"]["direction"] == "vertical"  # legends stacked


@pytest.mark.parametrize("n_rows", [1, 3])
def test_y_axis_title_stands_above_the_labels(n_rows):
    """Never rotated beside the labels, where a browser's font (wider than the one vl-convert measures with)
    draws the labels into it: "test" over "sent-weat6" in a one-row chart."""
    rows = [{"label": f"sent-weat{i + 6}", "key": f"sent-weat{i + 6}", "value": 0.4, "model": "m", "low": None,
             "high": None, "group": None, "significant": False} for i in range(n_rows)]
    spec = chart_spec(rows, "effect size d", "test", title="SEAT", subtitle="all-MiniLM-L6-v2", alpha=0.01)
    axis = next(layer["encoding"]["y"]["axis"] for layer in spec["layer"] if layer.get("name") == "bars")
    assert axis["titleAngle"] == 0 and axis["titleY"] < 0 and axis["titleAlign"] == "right"
    assert spec["config"]["padding"]["left"] > 6  # room for labels drawn wider than measured
    svg = svg_of(spec)
    title = re.search(r'role-axis-title"[^>]*><text text-anchor="end" transform="translate\((-?[\d.]+),(-?[\d.]+)\)'
                      r'[^>]*>test</text>', svg)
    assert title and float(title[2]) < 0, "the y title is not above the plot"


def test_rows_are_keyed_by_their_first_cell_and_several_models_keep_distinct_labels():
    rows = chart_rows(_debias("a"))
    assert [r["key"] for r in rows][:3] == [f"weat6 {v}" for v in VECTORS]
    assert [r["significant"] for r in rows][:3] == [True, False, None]
    both = rows + chart_rows(_debias("b"))
    spec = chart_spec(both, "effect size d", "test", title="debias", subtitle="models side by side", alpha=0.01)
    labels = next(layer["encoding"]["y"]["sort"] for layer in spec["layer"] if layer.get("name") == "bars")
    assert labels == [f"{t} {v}" for t in ("weat6", "weat7") for v in VECTORS]  # models as colours, rows by key
