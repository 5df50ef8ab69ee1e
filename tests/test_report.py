"""``Report``: one --quick report over the four embedded models; its numbers equal the single analyses on the
same inputs; the JSON schema's keys are pinned; published figures carry sources; the files are whole."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from embias_widgets.analysis.report import SECTION_KEYS, Report, ReportResult
from embias_widgets.analysis.report.plan import QUICK_SIZES, WEAT_TESTS, section_id
from embias_widgets.analysis.report.published import published_figures
from embias_widgets.analysis.report.sections_lm import SampledPairs
from embias_widgets.metrics.neutrality import nli_intervals

EMBEDDED = ["glove-6b-50d", "all-MiniLM-L6-v2", "embias-demo-mlm", "embias-demo-nli"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory, shared_data):
    """The --quick report over the embedded models (run once for the module)."""
    out = tmp_path_factory.mktemp("quick")
    result = Report(EMBEDDED, out=out, quick=True, progress=False,
                    crows_pairs=str(shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"),
                    stereoset=str(shared_data / "stereoset" / "stereoset_dev_flat.jsonl")).run()
    return result, out


def _section(result: ReportResult, wanted: str) -> dict:
    return next(s for s in result.to_dict()["sections"] if s["id"] == wanted)


def _rows(section: dict) -> dict:
    """Row label -> {column name: cell} (columns by name: an interval column may sit between them)."""
    cols = section["table"]["columns"]
    return {str(r[0]): dict(zip(cols, r, strict=True)) for r in section["table"]["rows"]}


def test_every_section_of_every_kind_ran(quick):
    result, _ = quick
    ids = {s["id"]: s["status"] for s in result.to_dict()["sections"]}
    expected = {section_id(method, model) for method, model in (
        ("weat", "glove-6b-50d"), ("ripa", "glove-6b-50d"), ("debias", "glove-6b-50d"), ("seat", "all-MiniLM-L6-v2"),
        ("sense-weat", "all-MiniLM-L6-v2"), ("crows-pairs", "embias-demo-mlm"), ("stereoset", "embias-demo-mlm"),
        ("sense-pairs", "embias-demo-mlm"), ("nli-gender-occupation", "embias-demo-nli"),
        ("ceat", "all-MiniLM-L6-v2"), ("ceat", "embias-demo-mlm"),
        ("nli-nationality-polarity", "embias-demo-nli"), ("nli-religion-polarity", "embias-demo-nli"))}
    assert set(ids) == expected
    assert {i: s for i, s in ids.items() if s != "done"} == {}


def test_json_keys_are_pinned(quick):
    _, out = quick
    d = json.loads((out / "report.json").read_text())
    assert set(d) == {"schema", "title", "created", "quick", "provenance", "models", "data_files", "sections", "holm",
                      "findings", "agreement", "methods_run", "coverage", "comparisons"}
    assert d["schema"] == "embias-report/2" and d["quick"] is True
    import jsonschema

    from embias_widgets.analysis.report.result import SCHEMA_FILE

    jsonschema.validate(d, json.loads(SCHEMA_FILE.read_text()))
    assert set(d["provenance"]) == {"package_version", "python", "platform", "seconds", "options"}
    assert all(set(m) == {"name", "kind", "fingerprint"} for m in d["models"])
    assert [m["kind"] for m in d["models"]] == ["static", "sentence", "masked-lm", "nli"]
    assert set(d["data_files"]) == {"crows-pairs", "stereoset"}
    assert all(set(f) == {"source", "sha256"} and len(f["sha256"]) == 64 for f in d["data_files"].values())
    assert set(d["holm"]) == {"alpha", "n_tests"}
    for s in d["sections"]:
        assert tuple(s) == SECTION_KEYS
        assert s["status"] in ("done", "skipped", "failed")
        assert set(s["table"]) == {"columns", "rows"}
        assert set(s["figure"]) == {"svg", "svg_path", "png_path"}
        assert all(set(t) == {"label", "p", "p_holm", "significant"} for t in s["significance"])
        assert all(set(p) == {"label", "value", "ours", "source"} for p in s["published"])
        assert all(len(r) == len(s["table"]["columns"]) for r in s["table"]["rows"])
        assert s["what"].count(". ") >= 1 and s["seconds"] > 0


def test_weat_numbers_equal_run_suite(quick):
    from embias_widgets.analysis import run_suite

    result, _ = quick
    rows = _rows(_section(result, section_id("weat", "glove-6b-50d")))
    suite = run_suite(list(WEAT_TESTS), ["glove-6b-50d"], n_samples=QUICK_SIZES["permutations"], seed=0,
                      progress=False)
    for r in suite.records():
        assert rows[r["test"]]["effect size d"] == r["effect_size"]  # full precision: report.json rounds nothing
        assert rows[r["test"]]["p"] == r["p_value"]


def test_seat_and_sense_numbers_equal_the_analyses(quick):
    from embias_widgets.analysis import run_suite
    from embias_widgets.analysis.senses import run_sense_suite

    result, _ = quick
    seat = _rows(_section(result, section_id("seat", "all-MiniLM-L6-v2")))
    record = run_suite(["sent-weat6"], ["all-MiniLM-L6-v2"], n_samples=100_000, seed=0, progress=False).records()[0]
    assert seat["sent-weat6"]["effect size d"] == record["effect_size"]
    assert seat["sent-weat6"]["p"] == record["p_value"]
    sense = _rows(_section(result, section_id("sense-weat", "all-MiniLM-L6-v2")))
    rec = run_sense_suite(["sense-weat1"], ["gloss:all-MiniLM-L6-v2"], n_samples=100_000, seed=0)[0]
    assert sense["sense-weat1"]["sense d"] == rec["effect_size"]
    assert sense["sense-weat1"]["p"] == rec["p_value"]


def test_nli_numbers_equal_nli_probe_and_the_interval_is_hand_computed(quick):
    from embias_widgets.analysis import NliProbe
    from embias_widgets.stimuli.nli_probes import load_probe

    result, _ = quick
    section = _section(result, section_id("nli-religion-polarity", "embias-demo-nli"))
    rows = _rows(section)
    source = SampledPairs(load_probe("religion-polarity"), QUICK_SIZES["nli_pairs"], 0)
    assert len(source) == QUICK_SIZES["nli_pairs"] and np.all(np.diff(source.indices) > 0)
    run = NliProbe(source, model="embias-demo-nli").run(per_pair=True)
    t = run.templates()  # the robustness line quotes the section's template note: the sampled templates' NN range
    assert any(n.startswith("per template: ") and f"over {t['n_templates']:,} templates" in n
               and repr(t["most_neutral"]["template"]) in n for n in section["notes"])
    scores = run.to_dict()["pairs"]
    assert rows["NN (pairs)"]["value"] == scores["net_neutral"]
    assert rows["FN (pairs)"]["value"] == scores["fraction_neutral"]
    interval = rows["NN (pairs)"]["95% interval"]
    want = scores["net_neutral_interval"]  # the study's own two-way bootstrap (hand-checked in test_trust_nli)
    assert (interval["low"], interval["high"]) == (want["low"], want["high"])
    assert interval["level"] == 0.95 and "templates" in interval["method"] and "word pairs" in interval["method"]


def test_wilson_interval_by_hand():
    k, n, z = 7, 20, stats.norm.ppf(0.975)
    p = k / n
    centre, half = (p + z * z / (2 * n)) / (1 + z * z / n), z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n
                                                                                          + z * z / (4 * n * n))
    got = nli_intervals(np.full(n, 0.5) + np.arange(n) / 100, np.arange(n) < k)["fn"]
    assert got == pytest.approx((centre - half, centre + half), abs=1e-9)


def test_crows_numbers_equal_paired_likelihood(quick, shared_data):
    from embias_widgets.analysis import PairedLikelihood
    from embias_widgets.stimuli.pairs import read_pairs

    result, _ = quick
    rows = _rows(_section(result, section_id("crows-pairs", "embias-demo-mlm")))
    pairs = read_pairs(shared_data / "crows_pairs" / "crows_pairs_anonymized.csv", format_in="crows",
                       limit=QUICK_SIZES["crows_pairs"])
    cps = PairedLikelihood(pairs, model="embias-demo-mlm", metric="cps", progress=False).run()
    assert rows["all"]["n"] == len(pairs)
    assert rows["all"]["CPS %"] == cps.score and rows["all"]["ties"] == cps.bias.n_ties
    assert rows["all"]["CPS % of decided pairs"] == cps.bias.percent_of_decided
    assert rows["all"]["p (sign test)"] == cps.bias.p_value  # the sign test of the decided pairs
    section = _section(result, section_id("crows-pairs", "embias-demo-mlm"))
    assert section["chart"]["x"] == "CPS % of decided pairs" and section["chart"]["ref"] == 50
    assert {t["label"] for t in section["significance"]} == {"all", *cps.bias.by_bias_type}


def test_holm_runs_once_over_every_p_value(quick):
    from embias_widgets.metrics import holm_bonferroni

    d = quick[0].to_dict()
    tests = [t for s in d["sections"] for t in s["significance"]]
    assert d["holm"]["n_tests"] == len(tests) > 15
    holm = holm_bonferroni([t["p"] for t in tests], alpha=0.01)
    assert [t["p_holm"] for t in tests] == pytest.approx(list(holm.adjusted))
    assert [t["significant"] for t in tests] == [bool(r) for r in holm.reject]


def test_files_are_whole_and_figures_exist(quick):
    result, out = quick
    assert not list(out.rglob("*.tmp"))
    for s in result.to_dict()["sections"]:
        if s["table"]["rows"] and s["figure"]["svg"]:
            assert (out / s["figure"]["svg_path"]).read_text().startswith("<svg")
            assert (out / s["figure"]["png_path"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert ReportResult.load(out / "report.json").to_dict() == json.loads((out / "report.json").read_text())
    page = (out / "report.html").read_text()
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org", "")
    assert page.count("<details") == len(result.sections)
    assert "Models side by side" in page and "no published figure" in page


def test_result_answers_the_study_result_questions(quick):
    from embias_widgets.analysis import StudyResult

    result = quick[0]
    assert isinstance(result, StudyResult)
    frame = result.frame()
    assert list(frame.columns) == ["section", "method", "model", "row", "column", "value"]
    assert len(frame) == sum(len(r) - 1 for s in result.sections for r in s["table"]["rows"])
    assert "Holm-Bonferroni" in result.summary()
    assert result.chart().to_dict()["vconcat"]


def test_every_published_figure_has_a_source():
    figures = published_figures()
    assert figures
    for f in figures:
        assert all(isinstance(f["source"][k], str) and f["source"][k].strip() for k in ("paper", "table", "row"))
        assert isinstance(f["value"], int | float) and f["models"] and f["method"]


def test_mixed_kinds_get_a_coverage_table_and_say_which_model_each_method_covers(quick):
    """GloVe + MiniLM + the demo MLM + the demo NLI model (four kinds): the coverage table on top says, per method
    and model, run or not applicable; a method of one kind says which model it covers (issue 30)."""
    import re

    from embias_widgets.analysis.publish.page import page

    result, out = quick
    blocks = page(result.to_dict())
    at = next(i for i, b in enumerate(blocks) if b.get("text") == "What ran on which model")
    table = blocks[at + 1]
    assert table["columns"] == ["method", *EMBEDDED]
    rows = {r[0]: r[1:] for r in table["rows"]}
    assert rows["WEAT 1-10 and the b variants"] == ["run", "not applicable (sentence)", "not applicable (masked-lm)",
                                                     "not applicable (nli)"]
    assert rows["CrowS-Pairs"] == ["not applicable (static)", "not applicable (sentence)", "run",
                                   "not applicable (nli)"]
    html = (out / "report.html").read_text()
    assert "What ran on which model" in html and html.index("Findings") < html.index("What ran on which model")
    assert re.search(r"CrowS-Pairs: covers <bdi>embias-demo-mlm</bdi> only", html)
    assert html.index("DEMO") < html.index("<h2>Findings")  # the demo warning at the top


def test_one_default_per_number_on_every_surface(quick, glove):
    """weat6's p on GloVe read 0.0002 in the quick report (10,000 sampled splits) and < 0.0001 in embias weat and
    the widget (exact over 12,870 splits), and the report tested at alpha 0.01 where the widgets did at 0.05:
    now every surface computes p over the same splits and tests at one level."""
    from _cli_inprocess import embias_inprocess

    from embias_widgets.cli.entry import build_parser
    from embias_widgets.metrics import DEFAULT_ALPHA
    from embias_widgets.widgets import WeatExplorer

    result, _ = quick
    section = _section(result, section_id("weat", "glove-6b-50d"))
    rows = _rows(section)
    run = embias_inprocess("weat", "weat1", "weat6", "--format", "json")
    cli = {r["test"]: r for r in json.loads(run.stdout)}
    widget = WeatExplorer("weat6", model=glove).bars
    assert not widget.p_provisional
    assert cli["weat6"]["method"] == "exact" and rows["weat6"]["p"] == cli["weat6"]["p_value"] == widget.p_value
    assert cli["weat1"]["method"] == "sampled" and rows["weat1"]["p"] == cli["weat1"]["p_value"]  # the same splits
    parser = build_parser()
    assert result.to_dict()["holm"]["alpha"] == widget.alpha == DEFAULT_ALPHA == 0.01
    assert parser.parse_args(["weat", "weat6"]).alpha == parser.parse_args(["report", "--model", "m"]).alpha == 0.01
    notes = [n for n in section["notes"] if n.startswith("p-values of ")]
    assert any("weat6" in n and "exact permutation test over all 12,870 splits" in n for n in notes), notes
    assert any("weat1" in n and "sampled permutation test over 100,000 splits" in n for n in notes), notes
