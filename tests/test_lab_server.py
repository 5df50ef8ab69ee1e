"""The server side of report.json's JupyterLab viewer (``embias_widgets.widgets.lab_server``): the blocks it
answers are exactly :func:`~embias_widgets.analysis.publish.page.page`'s (what report.html is drawn from), a file
that is not a report gets one line saying why, and the extension is enabled by the file the wheel installs.
The route in a running JupyterLab: tests/browser/test_labextension_browser.py."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pytest

from embias_widgets.analysis.publish import page
from embias_widgets.analysis.report import SECTION_KEYS
from embias_widgets.widgets import lab_server

ROOT = Path(__file__).resolve().parent.parent
CONFIG = "jupyter-config/jupyter_server_config.d/embias_widgets.json"


def _report() -> dict:
    section = dict.fromkeys(SECTION_KEYS)
    section.update(id="weat--m", title="WEAT", method="weat", model="m", what="One.", status="done", seconds=1.0,
                   table={"columns": ["test", "effect size d", "p"], "rows": [["weat1", 1.707777596585637, 3e-5],
                                                                              ["weat2", float("nan"), 0.5]]},
                   published=[], significance=[{"label": "weat1", "p": 3e-5, "p_holm": 6e-5, "significant": True}],
                   notes=[], figure={"svg": None, "svg_path": None, "png_path": None})
    return {"schema": "embias-report/1", "title": "t", "created": "2025-01-01T00:00:00+00:00", "quick": True,
            "provenance": {"package_version": "0", "python": "3", "platform": "p", "seconds": 1.0,
                           "options": {"seed": 0, "alpha": 0.01}},
            "models": [{"name": "m", "kind": "static", "fingerprint": "f"}], "data_files": {},
            "sections": [section], "holm": {"alpha": 0.01, "n_tests": 1}}


def _tables(blocks: list[dict]) -> list[dict]:
    """Every table block, those inside a section's details too, in page order."""
    out = []
    for b in blocks:
        out += [b] if b["t"] == "table" else _tables(b.get("children", []))
    return out


def test_the_blocks_are_the_pages_with_seed_and_alpha_as_written():
    report = _report()
    text = json.dumps(report)  # NaN as JSON's NaN, as json.dumps writes report.json
    blocks = lab_server.report_page(text)
    assert json.dumps(blocks) == json.dumps(page(json.loads(text)))  # NaN included (as NaN: see below)
    assert "seed 0 · alpha 0.01" in blocks[1]["text"]
    table = next(b for b in _tables(blocks) if b["columns"][0] == "test")
    assert table["rows"][0][1] == 1.707777596585637  # full precision: only the front end rounds


def test_non_finite_numbers_reach_the_browser_as_the_formatter_writes_them():
    from embias_widgets.formatting import format_value

    blocks = lab_server._finite(lab_server.report_page(json.dumps(_report())))
    text = json.dumps(blocks, allow_nan=False)  # what the handler sends: JSON.parse takes it
    table = next(b for b in _tables(json.loads(text)) if b["columns"][0] == "test")
    assert table["rows"][1][1] == format_value(math.nan) and table["rows"][0][1] == 1.707777596585637


@pytest.mark.parametrize(("text", "says"), [
    ('{"schema": "embias-report/1", ', "not valid JSON"),
    ('{"schema": "something-else/2", "sections": []}', "it is not an embias report (schema 'something-else/2'"),
    ('{"schema": "embias-report/1", "sections": [{}]}', "it is not a whole embias report: 'title' is missing"),
    ("[1, 2]", "it is not a whole embias report"),
])
def test_a_file_that_is_not_a_report_gets_one_line_saying_why(text, says):
    with pytest.raises(ValueError, match="Open With > Editor") as err:
        lab_server.report_page(text)
    assert says in str(err.value) and "\n" not in str(err.value)


def test_the_wheel_installs_the_config_that_enables_the_server_extension():
    shared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"][
        "shared-data"]
    assert shared[CONFIG] == "etc/jupyter/jupyter_server_config.d/embias_widgets.json"
    enabled = json.loads((ROOT / CONFIG).read_text())["ServerApp"]["jpserver_extensions"]
    assert enabled == {"embias_widgets.widgets.lab_server": True}
    points = lab_server._jupyter_server_extension_points()
    assert points == [{"module": "embias_widgets.widgets.lab_server"}]
    assert callable(lab_server._load_jupyter_server_extension)
