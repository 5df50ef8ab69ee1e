"""What a report shows (issue 30): findings first, the coverage table, models side by side, agreement between
methods, validity notes with sources, the figures' style, the model card and user text isolated. Built on small
report dicts written here (the numbers are the test's own, so every expected text is worked out by hand); the
end-to-end report is tests/test_report.py's."""

from __future__ import annotations

import json
import re

import pytest

from embias_widgets.analysis.publish.agreement import VALIDITY, dimension_table, kendall_taus, model_orders
from embias_widgets.analysis.publish.findings import findings, headline
from embias_widgets.analysis.publish.model_card import model_card
from embias_widgets.analysis.publish.page import page, robustness_line, sizes_line
from embias_widgets.analysis.report import SECTION_KEYS, ReportResult
from embias_widgets.analysis.report.figures import PNG_SCALE, PPI, chart_spec, section_spec
from embias_widgets.analysis.report.html import report_html

IV = "95% interval"


def _iv(low: float, high: float) -> dict:
    return {"low": low, "high": high, "level": 0.95, "method": "percentile bootstrap over words"}


def _weat(model: str, rows: list[tuple], sig: dict[str, tuple]) -> dict:
    section = dict.fromkeys(SECTION_KEYS)
    section.update(id=f"weat--{model}", title="WEAT 1-10 and the b variants", method="weat", model=model,
                   what="WEAT. Reads as d.", status="done", reason=None, seconds=1.0, published=[], notes=[],
                   table={"columns": ["test", "effect size d", IV, "p"], "rows": [list(r) for r in rows]},
                   chart={"x": "effect size d", "y": "test", "interval": IV, "ref": 0},
                   significance=[{"label": k, "p": v[0], "p_holm": v[1], "significant": v[2]} for k, v in sig.items()],
                   figure={"svg": None, "svg_path": None, "png_path": None})
    return section


def _crows(model: str, status: str = "done") -> dict:
    section = dict.fromkeys(SECTION_KEYS)
    section.update(id=f"crows-pairs--{model}", title="CrowS-Pairs", method="crows-pairs", model=model,
                   what="CrowS-Pairs. 50 is unbiased.", status=status, seconds=2.0, published=[], significance=[],
                   reason=None if status == "done" else "no CrowS-Pairs file: give --crows-pairs",
                   notes=["DEMO masked LM: not a real language model"] if status == "done" else [],
                   table={"columns": ["bias type", "n", "CPS %", IV],
                          "rows": [["all", 8, 62.5, _iv(30.57, 86.32)], ["gender", 3, 33.33333333333333, None]]}
                   if status == "done" else {"columns": [], "rows": []},
                   chart={"x": "CPS %", "y": "bias type", "interval": IV, "ref": 50} if status == "done" else None,
                   figure={"svg": None, "svg_path": None, "png_path": None})
    return section


def _report(models: list[tuple[str, str]], sections: list[dict]) -> dict:
    return {"schema": "embias-report/1", "title": "audit", "created": "2026-01-01T00:00:00+00:00", "quick": True,
            "provenance": {"package_version": "0", "python": "3", "platform": "p", "seconds": 1.0,
                           "options": {"sizes": "quick", "seed": 0, "alpha": 0.01, "notes": []}},
            "models": [{"name": n, "kind": k, "fingerprint": "f" + n} for n, k in models], "data_files": {},
            "sections": sections, "holm": {"alpha": 0.01, "n_tests": sum(len(s["significance"]) for s in sections)}}


GLOVE_ROWS = [("weat1", 1.0804478, _iv(0.4744, 1.397), 1e-4), ("weat6", 1.707777596585637, _iv(1.5, 1.85), 2e-4),
              ("weat9", 1.1368, _iv(-0.86, 1.76), 0.023)]
GLOVE_SIG = {"weat1": (1e-4, 0.002, True), "weat6": (2e-4, 0.004, True), "weat9": (0.023, 0.136, False)}


@pytest.fixture
def one_model() -> dict:
    return _report([("glove", "static")], [_weat("glove", GLOVE_ROWS, GLOVE_SIG)])


@pytest.fixture
def mixed() -> dict:
    return _report([("glove", "static"), ("embias-demo-mlm", "masked-lm")],
                   [_weat("glove", GLOVE_ROWS, GLOVE_SIG), _crows("embias-demo-mlm")])


def _texts(blocks: list[dict]) -> list[str]:
    out = []
    for b in blocks:
        out += [b.get("text", ""), b.get("summary", ""), *b.get("items", [])]
        out += _texts(b.get("children", []))
    return [t for t in out if t]


def test_findings_name_survivors_with_interval_and_the_rest(mixed):
    f = {x["model"]: x for x in findings(mixed)}
    assert f["glove"]["survive"] == [
        "WEAT weat1: effect size d 1.08 [0.47, 1.40] (> 0), p (Holm) 0.002",
        "WEAT weat6: effect size d 1.71 [1.50, 1.85] (> 0), p (Holm) 0.004"]
    assert f["glove"]["not_significant"] == ["WEAT: weat9"]
    assert f["embias-demo-mlm"]["descriptive"] == ["CrowS-Pairs: all: CPS % 62.5 [30.6, 86.3] (no p-value defined)"]
    assert f["embias-demo-mlm"]["demo"] == ["DEMO masked LM: not a real language model"]
    skipped = _report([("m", "masked-lm")], [_crows("m", "skipped")])
    assert findings(skipped)[0]["not_run"] == [
        "CrowS-Pairs: skipped: \u2068no CrowS-Pairs file: give --crows-pairs\u2069"]


def test_headline_is_the_largest_tested_effect_or_the_overall_row(mixed):
    h = headline(mixed["sections"][0])
    assert (h["label"], h["value"], h["direction"]) == ("weat6", 1.707777596585637, "above")
    assert h["text"] == "2 of 3 tests significant after Holm; largest: weat6, effect size d 1.71 [1.50, 1.85]"
    h = headline(mixed["sections"][1])
    assert h["text"] == "all: CPS % 62.5 [30.6, 86.3] (no p-value defined)" and h["direction"] == "unclear"


def test_page_order_demo_first_and_only_applicable_sizes(mixed):
    blocks = page(mixed)
    heads = [b["text"] for b in blocks if b["t"] == "h" and b["level"] == 2]
    assert heads[:3] == ["Findings", "What ran on which model", "Do the methods agree?"]
    assert heads[-2:] == ["Sections", "Provenance"]
    assert blocks[3] == {"t": "p", "text": "DEMO masked LM: not a real language model", "cls": "warn"}  # at the top
    crows = next(b for b in blocks if b["t"] == "details" and "CrowS" in b["summary"])
    assert crows["children"][0]["cls"] == "warn" and "DEMO" in crows["children"][0]["text"]  # first in its section
    line = sizes_line(mixed)
    assert "CrowS-Pairs pairs: 8" in line and "permutations" in line
    assert "SEAT" not in line.replace("(WEAT, SEAT)", "") and "NLI" not in line and "StereoSet" not in line
    assert "quick sizes: quick report" not in " ".join(_texts(blocks))


def test_coverage_table_says_run_not_applicable_or_why_skipped():
    report = _report([("glove", "static"), ("m", "masked-lm")],
                     [_weat("glove", GLOVE_ROWS, GLOVE_SIG), _crows("m", "skipped")])
    blocks = page(report)
    at = next(i for i, b in enumerate(blocks) if b.get("text") == "What ran on which model")
    table = blocks[at + 1]
    rows = {r[0]: r[1:] for r in table["rows"]}
    assert table["columns"] == ["method", "glove", "m"]
    assert rows["WEAT 1-10 and the b variants"] == ["run", "not applicable (masked-lm)"]
    assert rows["CrowS-Pairs"] == ["not applicable (static)",
                                   "skipped: \u2068no CrowS-Pairs file: give --crows-pairs\u2069"]
    same_kind = _report([("a", "static"), ("b", "static")], [])
    assert not any(b.get("text") == "What ran on which model" for b in page(same_kind))


def test_two_models_of_one_kind_share_one_table_with_a_column_each():
    b_rows = [("weat1", 0.5, _iv(0.1, 0.9), 0.01), ("weat6", -0.25, None, 0.5)]
    report = _report([("a", "static"), ("b", "static")],
                     [_weat("a", GLOVE_ROWS, GLOVE_SIG), _weat("b", b_rows, {"weat1": (0.01, 0.1, False),
                                                                             "weat6": (0.5, 1.0, False)})])
    blocks = page(report)
    at = next(i for i, b in enumerate(blocks) if b.get("text") == "Models side by side")
    assert blocks[at + 1]["text"] == "WEAT 1-10 and the b variants"
    table = blocks[at + 2]
    assert table["columns"] == ["test", "a: effect size d", "a: interval", "b: effect size d", "b: interval"]
    rows = {r[0]: r[1:] for r in table["rows"]}
    assert rows["weat6"] == [1.707777596585637, _iv(1.5, 1.85), -0.25, None]
    assert rows["weat9"] == [1.1368, _iv(-0.86, 1.76), None, None]
    assert blocks[at + 3]["t"] == "figure" and blocks[at + 3]["svg"].count("bars_marks") == 1
    orders = model_orders(report)
    assert [m for m, _ in orders["WEAT 1-10 and the b variants"]] == ["a", "b"]  # |1.71| > |0.5|
    assert kendall_taus(orders) == []  # one method only: no pair to compare
    orders = {"m1": [("a", 3.0), ("b", 2.0), ("c", 1.0)], "m2": [("a", 1.0), ("c", 0.5), ("b", 0.2)]}
    from scipy.stats import kendalltau

    assert kendall_taus(orders) == [["m1", "m2", 3, pytest.approx(kendalltau([3, 2, 1], [1, 0.2, 0.5]).statistic)]]


def test_agreement_table_maps_rows_to_social_dimensions(one_model):
    table = dimension_table(one_model, "glove")
    assert table["columns"] == ["dimension", "WEAT 1-10 and the b variants"]
    rows = {r[0]: r[1] for r in table["rows"]}
    assert rows == {"gender": "weat6 > 0: 1.71 [1.50, 1.85], Holm: yes",
                    "disability (mental vs physical illness)": "weat9 interval holds 0: 1.14 [-0.86, 1.76], Holm: no"}
    # weat1 (flowers/insects) names no social group and is left out


def test_every_validity_note_has_a_source_and_reaches_its_sections(mixed):
    notes = json.loads(VALIDITY.read_text())["notes"]
    assert {n["id"] for n in notes} >= {"benchmark-item-validity", "ss-50-with-low-lms", "weat-beside-ripa"}
    for n in notes:
        assert n["text"] and all(n["source"][k] for k in ("paper", "venue", "where")) and n["methods"]
    crows = next(b for b in page(mixed) if b["t"] == "details" and "CrowS" in b["summary"])
    items = next(c for c in crows["children"] if c["t"] == "ul")["items"]
    assert any("Blodgett" in i and "Norwegian Salmon" in i for i in items)


def test_section_table_carries_holm_beside_p_and_html_has_no_second_significance_table(one_model):
    result = ReportResult(one_model)
    text = report_html(result)
    # findings has none; the section's, the models' and the coverage table of the methods that ran (calibration.json)
    assert "Significance (Holm" not in text and text.count("<table>") == 2 + 1 + 1
    assert "calibration suite" in text
    details = next(b for b in page(one_model) if b["t"] == "details")
    table = next(c for c in details["children"] if c["t"] == "table")
    assert table["columns"] == ["test", "effect size d", IV, "p", "p (Holm)", "significant"]
    assert table["kinds"] == ["number", "effect", "effect", "p", "p", "number"]
    assert "<td class='num'>1.71</td><td class='num'>[1.50, 1.85]</td><td class='num'>0.0002</td>" in text


def test_user_text_is_isolated_in_bdi():
    evil = "m\u202eodel/evil<b>.txt"
    report = _report([(evil, "static")], [_weat(evil, GLOVE_ROWS, GLOVE_SIG)])
    text = report_html(ReportResult(report))
    assert "<bdi>m\u202eodel/evil&lt;b&gt;.txt</bdi>" in text and "<b>" not in text
    summary = re.search(r"<summary>(.*?)</summary>", text).group(1)
    assert summary.endswith("</bdi> <span class='done'>[done]</span>")  # the status is outside the isolate


def test_figure_style_title_whiskers_marks_zero_line_and_300_dpi(one_model, tmp_path):
    import vl_convert as vlc

    spec = section_spec(one_model["sections"][0], alpha=0.01)
    svg = vlc.vegalite_to_svg(spec)
    assert "WEAT 1-10 and the b variants" in svg and ">glove<" in svg  # title and model
    assert svg.count('role-mark whiskers_marks') == 1 and len(re.findall(r'whiskers_marks.*?</g>', svg)) == 1
    whiskers = re.search(r'whiskers_marks"[^>]*>(.*?)</g>', svg).group(1)
    assert whiskers.count("<line") == 3  # one per row with an interval
    marks = re.search(r'sigmarks_marks"[^>]*>(.*?)</g>', svg).group(1)
    assert marks.count(">*</text>") == 2  # weat1 and weat6 survive Holm
    assert "alpha 0.01" in svg and "* significant" in svg and "not significant" in svg
    assert 'layer_0_marks' in svg  # the no-bias line at 0
    sizes = [float(s) for s in re.findall(r'font-size="(\d+(?:\.\d+)?)px"', svg)]
    assert sizes and min(sizes) >= 11
    png = vlc.vegalite_to_png(spec, scale=PNG_SCALE, ppi=PPI)
    width = int.from_bytes(png[16:20], "big")
    assert width == pytest.approx(int(re.search(r'width="(\d+)"', svg).group(1)) * 300 / 96, abs=2)
    phys = png[png.index(b"pHYs") + 4:][:9]
    assert round(int.from_bytes(phys[:4], "big") * 0.0254) == 300  # pixels per metre -> dpi
    no_interval = chart_spec([{"label": "a", "value": 1.0, "model": "m", "low": None, "high": None, "group": None,
                               "significant": None}], "d", "t", title="T")
    assert "whiskers" not in json.dumps(no_interval) and "sigmarks" not in json.dumps(no_interval)


def test_model_card_is_valid_hub_metadata(mixed):
    from huggingface_hub import ModelCard

    text = model_card(mixed, "glove")
    card = ModelCard(text)
    assert card.data.model_name == "glove"
    results = card.data.eval_results
    assert [(r.dataset_name, r.metric_value) for r in results] == [
        ("WEAT 1-10 and the b variants: weat1", 1.0804478), ("WEAT 1-10 and the b variants: weat6", 1.707777596585637),
        ("WEAT 1-10 and the b variants: weat9", 1.1368)]  # full precision
    assert {r.task_type for r in results} == {"feature-extraction"} and results[0].metric_type == "weat_effect_size_d"
    assert "## Bias evaluation" in text
    assert "| WEAT | weat6 | effect size d | 1.71 | [1.50, 1.85] | 0.004 | yes |" in text
    assert "Ethayarajh, Duvenaud & Hirst (2019)" in text and "Caliskan, Bryson & Narayanan (2017)" in text
    lm = ModelCard(model_card(mixed, "embias-demo-mlm"))
    assert lm.data.eval_results[0].dataset_type == "nyu-mll/crows_pairs"
    assert "> DEMO masked LM" in model_card(mixed, "embias-demo-mlm")


def test_demo_warnings_are_told_from_notes_naming_a_demo_model():
    from embias_widgets.analysis.publish.findings import is_demo_note

    assert is_demo_note("demo model: a small offline MLM for trying the method; its scores say nothing ...")
    assert is_demo_note("DEMO NLI model: a small offline head")
    assert not is_demo_note("model embias-demo-mlm: 8 pairs scored") and not is_demo_note("democratic party")


def test_robustness_line_of_groups_and_templates():
    """Likelihood sections: the lowest and highest group and the groups whose interval excludes the no-bias
    value, read from the table (issue 28, section 5); NLI sections quote their per-template note."""
    iv = lambda lo, hi: {"low": lo, "high": hi, "level": 0.95, "method": "Wilson"}  # noqa: E731
    section = {"method": "crows-pairs", "notes": [], "chart": {"x": "CPS %", "y": "bias type",
                                                               "interval": "95% interval", "ref": 50},
               "table": {"columns": ["bias type", "n", "CPS %", "95% interval"],
                         "rows": [["all", 30, 60.0, iv(41.0, 76.0)], ["race", 10, 80.0, iv(55.0, 93.0)],
                                  ["age", 10, 40.0, iv(17.0, 69.0)], ["gender", 10, 60.04, iv(31.0, 83.0)],
                                  ["direction: stereo", 20, 99.0, iv(80.0, 100.0)]]}}
    assert robustness_line(section) == ("Robustness across its 3 bias types: CPS % from 40.0 (age) to 80.0 (race); "
                                        "the interval excludes 50.0 for 1 of them (race).")
    nli = {"method": "nli-religion-polarity", "notes": ["per template: NN ranges from 0.2 to 0.4"],
           "table": {"columns": ["measure", "value", "95% interval"], "rows": []}, "chart": None}
    assert robustness_line(nli) == "Robustness to the templates: NN ranges from 0.2 to 0.4."
