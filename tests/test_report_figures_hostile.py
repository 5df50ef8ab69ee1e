"""User text in a figure: a model whose file name holds ``: # ' " \\f <TAB> <NL> U+2028`` failed the whole report
after every section had been computed ("Vega-Lite to SVG conversion failed: Unexpected token ILLEGAL"; a form feed
made vl-convert abort the process). Every user string is escaped where it enters a chart spec, and a figure that
still cannot be drawn is left out with a note, never the report.

The real renderer runs in a child process: were the escaping lost, vl-convert would abort that process, not the
test session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _report_stand_in import copy_vectors, report_json, report_ok, stand_in_fixture, vectors_fixture

from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.figures import chart_text

vectors, stand_in = vectors_fixture, stand_in_fixture  # the fixtures of tests/_report_stand_in.py
HOSTILE = "m: # ' \" \f \t \n \u2028 \u2029 \\ ${x} `y` </text> x.txt"
TYPED = HOSTILE + " typed: \\x0c \\u2028"  # and the escapes typed as text, backslash and all
ROOT = Path(__file__).resolve().parents[1]


def test_chart_text_escapes_what_breaks_xml_or_a_vega_expression_and_nothing_else():
    assert chart_text(HOSTILE) == "m: # ' \" \\x0c \\t \\n \\u2028 \\u2029 \\ ${x} `y` </text> x.txt"
    assert chart_text("Fl\u00f6wers \u00e9t\u00e9 \U0001f600") == "Fl\u00f6wers \u00e9t\u00e9 \U0001f600"
    assert chart_text("a\x00b\x1bc\x85d\ud800e\ufffe") == "a\\x00b\\x1bc\\x85d\\ud800e\\ufffe"


def _run_child(script: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("where", ["model", "label", "group", "title"])
def test_every_hostile_character_renders_wherever_user_text_enters_a_figure(tmp_path, where):
    run = _run_child(f"""
        import vl_convert as vlc
        from embias_widgets.analysis.report.figures import chart_spec
        name = {TYPED!r}
        def rows(models, labels, group=None):
            return [{{"label": l, "value": 1.0 + i, "model": m, "low": 0.5, "high": 2.5 + i, "group": group,
                      "significant": True}} for m in models for i, l in enumerate(labels)]
        spec = {{"model": lambda: chart_spec(rows(["glove", name], ["weat1", "weat6"]), "d", "test"),
                "label": lambda: chart_spec(rows(["glove"], ["weat1", name]), "d", "test"),
                "group": lambda: chart_spec(rows(["glove"], ["a", "b"], group=name), "RIPA", "word"),
                "title": lambda: chart_spec(rows(["glove"], ["a"]), name, name, title=name, subtitle=name),
                }}[{where!r}]()
        svg = vlc.vegalite_to_svg(spec)
        vlc.vegalite_to_png(spec)
        print("escaped name drawn:", "\\\\x0c" in svg or "\u29f5x0c" in svg)
        print("raw separators:", any(c in svg for c in "\\x0c\\u2028\\u2029"))
    """, tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "escaped name drawn: True" in run.stdout and "raw separators: False" in run.stdout


def test_a_report_of_a_model_with_a_hostile_file_name_is_written_whole(vectors, tmp_path):
    """Two models, one named HOSTILE, real figures (each section's and the models side by side)."""
    model, other = copy_vectors(vectors, tmp_path / HOSTILE), copy_vectors(vectors, tmp_path / "b.txt", scale=2.0)
    out = tmp_path / "r"
    run = _run_child(f"""
        import sys
        sys.path.insert(0, {str(ROOT / "tests")!r})
        from _report_stand_in import first_number
        from embias_widgets.analysis.report import runner
        from embias_widgets.cli import main
        runner.run_section = lambda spec: (first_number(spec, chart=True), 0.01)
        sys.exit(main(["report", "--quick", "--no-progress", "--model", {model!r}, "--model", {other!r},
                       "--out", {str(out)!r}]))
    """, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "\\x0c" in run.stdout and not any(c in run.stdout for c in "\x0c\u2028")  # the summary escapes too
    report = report_json(out)
    weat = [s for s in report["sections"] if s["method"] == "weat"]
    assert len(weat) == 2 and all(s["figure"]["svg"] for s in weat)
    assert all(not any(n.startswith("figure left out") for n in s["notes"]) for s in report["sections"])
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Models side by side" in page and page.count("<svg") == 3 and "\\x0c" in page


def test_a_figure_vega_lite_cannot_draw_is_left_out_with_a_note(vectors, tmp_path, monkeypatch):
    import vl_convert

    def fails(spec, **kw):
        raise ValueError("Vega-Lite to SVG conversion failed:\nError: Unexpected token ILLEGAL\n    at Au (x.js:7)")

    monkeypatch.setattr(report_runner, "run_section", lambda spec: (_first(spec), 0.01))
    monkeypatch.setattr(vl_convert, "vegalite_to_svg", fails)
    monkeypatch.setattr(vl_convert, "vega_to_svg", fails)  # the figures draw from the Vega spec (figures.svg_of)
    one, two = copy_vectors(vectors, tmp_path / "a.txt"), copy_vectors(vectors, tmp_path / "b.txt", scale=2.0)
    out = tmp_path / "r"
    report_ok("--model", one, "--model", two, "--out", str(out))
    report = report_json(out)
    weat = [s for s in report["sections"] if s["method"] == "weat"]
    assert all(s["figure"] == {"svg": None, "svg_path": None, "png_path": None} for s in weat)
    assert all(s["notes"][-1] == "figure left out: Vega-Lite could not draw it (Vega-Lite to SVG conversion "
               "failed: Error: Unexpected token ILLEGAL)" for s in weat)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Figure left out: Vega-Lite could not draw it" in page and "figure left out" in page
    assert json.loads(json.dumps(report))["sections"][0]["table"]["rows"]  # the numbers are all there


def _first(spec):
    from _report_stand_in import first_number

    return first_number(spec, chart=True)
