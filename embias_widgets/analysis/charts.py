"""Set up altair once for every chart the library returns: drawn offline, in the notebook's theme.

Every study's ``chart()`` calls :func:`setup_charts` before building its chart, so no notebook needs a
set-up cell. It does two things, each only while the user has not chosen otherwise:

- **offline**: altair 6 emits Vega-Lite v6, which JupyterLab 4's built-in renderer does not draw, and
  altair's default HTML renderer loads vega from a CDN (a blank chart and "Error loading script" offline).
  The ``"embias"`` renderer draws a chart with altair's own anywidget (:class:`altair.JupyterChart`) whose
  vega bundle comes from ``vl-convert-python`` (:meth:`altair.JupyterChart.enable_offline`, built once and
  kept: :mod:`.chart_bundle`), so a chart draws with no network. It is enabled only while the active
  renderer is altair's ``"default"``.
- **theme**: the ``"embias"`` altair theme gives charts a transparent background, and the renderer draws
  them as SVG with a style sheet that colours text, axes and grid lines from JupyterLab's CSS variables
  (``--jp-ui-font-color1`` ...), with light-theme fallbacks elsewhere; so a chart reads in JupyterLab Light
  and Dark alike. It is enabled only with the ``"embias"`` renderer and while the active theme is altair's
  ``"default"``. Data colours come
  from :mod:`embias_widgets.palette` (each reads on both backgrounds).

``setup_charts(offline=False)`` goes back to altair's default renderer (charts then need the network).
"""

from __future__ import annotations

from typing import Any

RENDERER = "embias"
"""Name of the offline renderer (and of the altair theme) registered by :func:`setup_charts`."""

THEME_CSS = """
.embias-chart .vega-embed { overflow: visible; }
.embias-chart .vega-embed svg text { fill: var(--jp-ui-font-color1, #1f1f1f); }
.embias-chart .vega-embed .role-axis-domain path,
.embias-chart .vega-embed .role-axis-tick path { stroke: var(--jp-ui-font-color2, #616161); }
.embias-chart .vega-embed .role-axis-grid path { stroke: var(--jp-border-color2, #e0e0e0); }
"""
"""CSS for chart SVGs: a stylesheet rule wins over an SVG presentation attribute, so vega's black text and
grey axes take the JupyterLab theme's colours (and the light defaults outside JupyterLab)."""

EMBED_OPTIONS = {"renderer": "svg", "actions": {"export": True, "source": False, "compiled": False, "editor": False}}
"""vega-embed options of the offline renderer: SVG (so :data:`THEME_CSS` applies), a download menu only."""

_state: dict[str, Any] = {"registered": False}


def _theme() -> dict[str, Any]:
    """The ``"embias"`` altair theme: transparent background, no view border; colours come from CSS."""
    return {"config": {"background": "transparent", "view": {"stroke": None}}}


def _chart_class() -> type:
    """:class:`altair.JupyterChart` with the theme's style sheet and a root class to scope it."""
    import altair as alt

    if "chart_class" not in _state:

        class EmbiasChart(alt.JupyterChart):  # type: ignore[misc, valid-type]
            """altair's chart widget, drawn with the embias theme's CSS (see the module docstring)."""

            _css = alt.JupyterChart._css + THEME_CSS

        _state["chart_class"] = EmbiasChart
    return _state["chart_class"]


def offline_renderer(spec: dict, **metadata: Any) -> dict:
    """Draw ``spec`` with the themed, offline :class:`altair.JupyterChart` (an altair renderer function)."""
    import altair as alt

    from .chart_bundle import enable_offline

    chart_class = _chart_class()
    enable_offline(chart_class)  # altair's, with the bundle kept in the cache folder (2.5 s the first time)
    embed_options = {**EMBED_OPTIONS, **(metadata.get("embed_options") or {})}
    widget = chart_class(chart=alt.Chart.from_dict(spec), embed_options=embed_options)
    widget.add_class("embias-chart")
    return widget._repr_mimebundle_()


def setup_charts(*, offline: bool = True) -> None:
    """Register the ``"embias"`` renderer and theme and enable them where the user kept altair's defaults.

    Idempotent and cheap after the first call; every ``chart()`` of the library calls it.
    ``offline=False`` restores altair's default renderer if ours is active.
    """
    import altair as alt

    if not _state["registered"]:
        alt.renderers.register(RENDERER, offline_renderer)
        alt.theme.register(RENDERER, enable=False)(_theme)
        _state["registered"] = True
    if offline and alt.renderers.active == "default":
        alt.renderers.enable(RENDERER)
    elif not offline and alt.renderers.active == RENDERER:
        alt.renderers.enable("default")
    # the transparent theme only with our renderer, whose CSS colours the text: elsewhere black text on a
    # transparent background would vanish on a dark page
    if alt.renderers.active == RENDERER and alt.theme.active == "default":
        alt.theme.enable(RENDERER)
    elif alt.renderers.active != RENDERER and alt.theme.active == RENDERER:
        alt.theme.enable("default")
