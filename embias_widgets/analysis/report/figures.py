"""A section's chart (Vega-Lite, built with altair from the section's own table) and its SVG and PNG files.

The chart draws only what the table holds: one bar per row, the value column on x, the label column on y,
models as colours when several models share a method. SVG and PNG (2x) are rendered by vl-convert, offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .store import write_atomic

PNG_SCALE = 2


def chart_rows(section: dict[str, Any]) -> list[dict[str, Any]]:
    """``[{label, value, model}]`` of a done section's chart columns (rows without a number left out)."""
    chart, table = section.get("chart"), section["table"]
    if section["status"] != "done" or not chart or chart["x"] not in table["columns"]:
        return []
    x, y = table["columns"].index(chart["x"]), table["columns"].index(chart["y"])
    return [{"label": str(r[y]), "value": float(r[x]), "model": section["model"]}
            for r in table["rows"] if isinstance(r[x], int | float) and not isinstance(r[x], bool)]


def chart_spec(rows: list[dict[str, Any]], x_title: str, y_title: str) -> dict[str, Any] | None:
    """The Vega-Lite spec of a bar chart of ``rows`` (None when there is nothing to draw)."""
    if not rows:
        return None
    import altair as alt

    from ...palette import CATEGORICAL

    models = list(dict.fromkeys(r["model"] for r in rows))
    height = max(60, 18 * len({r["label"] for r in rows}) * (len(models) if len(models) > 1 else 1))
    base = alt.Chart(alt.Data(values=rows)).mark_bar().encode(
        x=alt.X("value:Q", title=x_title),
        y=alt.Y("label:N", title=y_title, sort=None),
        color=alt.Color("model:N", title="model", scale=alt.Scale(range=list(CATEGORICAL)),
                        legend=alt.Legend(orient="bottom") if len(models) > 1 else None),
        tooltip=["model:N", "label:N", alt.Tooltip("value:Q", format=".4f")],
    )
    if len(models) > 1:
        base = base.encode(yOffset="model:N")
    return base.properties(width=420, height=height).configure(background="#ffffff").to_dict()


def render(spec: dict[str, Any], stem: Path) -> dict[str, Any]:
    """Write ``stem.svg`` and ``stem.png`` (2x); ``{"svg", "svg_path", "png_path"}`` (paths relative to the folder)."""
    import vl_convert as vlc

    svg = vlc.vegalite_to_svg(spec)
    png = vlc.vegalite_to_png(spec, scale=PNG_SCALE)
    stem.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(stem.with_suffix(".svg"), svg)
    write_atomic(stem.with_suffix(".png"), png)
    rel = f"{stem.parent.name}/{stem.name}"
    return {"svg": svg, "svg_path": f"{rel}.svg", "png_path": f"{rel}.png"}
