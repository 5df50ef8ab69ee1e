"""``embias report`` on the command line, resumes and bad input (on the embedded GloVe vectors: seconds)."""

from __future__ import annotations

import json

import pytest

from embias_widgets.analysis.report import Report, ReportInputError, ReportRunError
from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.plan import section_id
from embias_widgets.cli import main


def _numbers(out) -> dict:
    d = json.loads((out / "report.json").read_text())
    return {s["id"]: (s["table"], s["significance"]) for s in d["sections"]}


def test_cli_writes_the_report_and_a_second_run_gives_the_same_numbers(tmp_path, capsys):
    first, second = tmp_path / "a", tmp_path / "b"
    assert main(["report", "--model", "glove-6b-50d", "--quick", "--out", str(first), "--no-progress"]) == 0
    printed = capsys.readouterr()
    start = next(line for line in printed.err.splitlines() if line.startswith("embias report: "))
    assert "quick sizes: permutations per test: 100,000" in start  # the sizes, stated before the run ...
    assert not any(w in start for w in ("CrowS-Pairs", "NLI", "SEAT tests", "CEAT"))  # ... of what applies
    assert f"report: {(first / 'report.html').resolve()}" in printed.out
    assert main(["report", "--model", "glove-6b-50d", "--quick", "--out", str(second), "--no-progress"]) == 0
    assert _numbers(first) == _numbers(second)
    assert set(_numbers(first)) == {section_id(m, "glove-6b-50d") for m in ("weat", "ripa", "debias")}


def test_resume_uses_saved_sections_and_refuses_changed_inputs(tmp_path, monkeypatch):
    out = tmp_path / "r"
    before = Report(["glove-6b-50d"], out=out, quick=True, progress=False).run().to_dict()

    def boom(spec):
        raise AssertionError(f"section {spec.id} was run again")

    monkeypatch.setattr(report_runner, "run_section", boom)
    again = Report(["glove-6b-50d"], out=out, quick=True, progress=False).run().to_dict()
    assert [s["table"] for s in again["sections"]] == [s["table"] for s in before["sections"]]
    written = {name: (out / name).read_bytes() for name in ("report.json", "report.html")}
    with pytest.raises(ReportRunError, match=r"differs in options.*--fresh"):
        Report(["glove-6b-50d"], out=out, quick=True, seed=1, progress=False).run()
    with pytest.raises(ReportRunError, match="differs in options"):
        Report(["glove-6b-50d"], out=out, quick=False, progress=False).run()
    assert {name: (out / name).read_bytes() for name in written} == written  # refused: the report is kept


def test_a_damaged_saved_section_is_run_again(tmp_path):
    out = tmp_path / "d"
    Report(["glove-6b-50d"], out=out, quick=True, progress=False).run()
    (out / "sections" / f"{section_id('ripa', 'glove-6b-50d')}.json").write_text("{truncated")
    result = Report(["glove-6b-50d"], out=out, quick=True, progress=False).run().to_dict()
    assert next(s for s in result["sections"] if s["method"] == "ripa")["status"] == "done"
    assert any("damaged" in n for n in result["provenance"]["options"]["notes"])


def _one_line_exit_2(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_bad_input_is_one_line_exit_2(tmp_path, capsys):
    err = _one_line_exit_2(["report", "--model", "no-such-model", "--out", str(tmp_path / "x")], capsys)
    assert "unknown model 'no-such-model'" in err
    blocker = tmp_path / "file"
    blocker.write_text("")
    err = _one_line_exit_2(["report", "--model", "glove-6b-50d", "--out", str(blocker / "sub")], capsys)
    assert "cannot write the report" in err and "--out" in err
    odd = tmp_path / "odd-model"
    odd.mkdir()
    (odd / "config.json").write_text(json.dumps({"architectures": ["BertForTokenClassification"]}))
    err = _one_line_exit_2(["report", "--model", str(odd), "--out", str(tmp_path / "y")], capsys)
    assert "unknown kind" in err
    fake = tmp_path / "crows.csv"
    fake.write_text("this is not\na CrowS-Pairs file\n")
    err = _one_line_exit_2(["report", "--model", "embias-demo-mlm", "--crows-pairs", str(fake), "--out",
                            str(tmp_path / "z")], capsys)
    assert "is not a crows-pairs file" in err
    assert not (tmp_path / "z" / "report.json").exists()


def test_missing_data_skips_the_section_saying_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBIAS_DATA", str(tmp_path / "empty"))
    report = Report(["embias-demo-mlm"], out=tmp_path / "m", quick=True, progress=False)
    assert [s.method for s in report.sections] == ["crows-pairs", "stereoset", "sense-pairs", "ceat"]  # no sssb
    monkeypatch.setattr(report_runner, "run_section", lambda spec: ({"table": {"columns": [], "rows": []},
                                                                     "tests": [], "notes": [], "chart": None}, 0.1))
    d = report.run().to_dict()
    skipped = {s["method"]: s["reason"] for s in d["sections"] if s["status"] == "skipped"}
    assert set(skipped) == {"crows-pairs", "stereoset"}
    assert "embias data fetch crows-pairs" in skipped["crows-pairs"] and "--stereoset" in skipped["stereoset"]


def test_report_validates_its_options(tmp_path):
    for kwargs, match in (({"quick": "yes"}, "quick"), ({"seed": -1}, "seed"), ({"alpha": 2.0}, "alpha"),
                          ({"workers": 0}, "workers"), ({"level": 95}, "level"), ({"level": True}, "level")):
        with pytest.raises(ReportInputError, match=match):
            Report(["glove-6b-50d"], out=tmp_path, **kwargs)
    with pytest.raises(ReportInputError, match="twice"):
        Report(["glove-6b-50d", "glove-6b-50d"], out=tmp_path)


@pytest.mark.slow  # a quick GloVe report (10-30 s on two loaded cores)
def test_report_json_keeps_embias_weats_numbers_and_the_model_card_is_hub_metadata(tmp_path, capsys):
    """report.json round-trips floats exactly: weat6's d and interval are `embias weat`'s to the last digit;
    --model-card writes MODEL_CARD_BIAS.md that huggingface_hub reads back as evaluation results (issue 30)."""
    from huggingface_hub import ModelCard

    out = tmp_path / "r"
    assert main(["report", "--model", "glove-6b-50d", "--quick", "--out", str(out), "--no-progress",
                 "--model-card"]) == 0
    assert f"model card of glove-6b-50d: {(out / 'MODEL_CARD_BIAS.md').resolve()}" in capsys.readouterr().out
    assert main(["weat", "weat6", "--model", "glove-6b-50d", "--format", "json"]) == 0  # its defaults: one p
    weat = json.loads(capsys.readouterr().out)
    section = next(s for s in json.loads((out / "report.json").read_text())["sections"] if s["method"] == "weat")
    row = dict(zip(section["table"]["columns"], next(r for r in section["table"]["rows"] if r[0] == "weat6"),
                   strict=True))
    assert row["effect size d"] == weat["effect_size"] == 1.707777596585637
    assert row["95% interval"] == weat["effect_size_interval"]
    assert row["p"] == weat["p_value"]
    card = ModelCard((out / "MODEL_CARD_BIAS.md").read_text())
    by_name = {r.dataset_name: r for r in card.data.eval_results}
    assert by_name["WEAT 1-10 and the b variants: weat6"].metric_value == weat["effect_size"]
    assert card.data.model_name == "glove-6b-50d" and "## Bias evaluation" in card.text


@pytest.mark.slow  # a quick GloVe report (10-30 s on two loaded cores)
def test_level_reaches_every_interval_and_equals_embias_weats(tmp_path, capsys):
    """--level 0.9: the start line says so, weat6's interval is `embias weat --level 0.9`'s, RIPA's intervals are
    at 90% too, and the level is part of every section's options (so a 95% run's sections are not reused)."""
    out = tmp_path / "r"
    assert main(["report", "--model", "glove-6b-50d", "--quick", "--out", str(out), "--no-progress",
                 "--level", "0.9"]) == 0
    assert "intervals at 90%" in capsys.readouterr().err
    assert main(["weat", "weat6", "--model", "glove-6b-50d", "--format", "json", "--permutations", "10000",
                 "--level", "0.9"]) == 0
    weat = json.loads(capsys.readouterr().out)
    report = json.loads((out / "report.json").read_text())
    sections = {s["method"]: s for s in report["sections"]}
    row = dict(zip(sections["weat"]["table"]["columns"],
                   next(r for r in sections["weat"]["table"]["rows"] if r[0] == "weat6"), strict=True))
    assert row["90% interval"] == weat["effect_size_interval"] and weat["effect_size_interval"]["level"] == 0.9
    ripa = sections["ripa"]["table"]
    assert "90% interval" in ripa["columns"]
    assert {r[ripa["columns"].index("90% interval")]["level"] for r in ripa["rows"]} == {0.9}
    with pytest.raises(ReportRunError, match="differs in options"):
        Report(["glove-6b-50d"], out=out, quick=True, progress=False).run()


def test_quick_report_tells_one_story_per_association_finding(tmp_path):
    """`embias report --model glove-6b-50d --quick`: every WEAT row's verdict is "stable" exactly when it
    survives the report's Holm and its interval excludes 0; every finding whose Holm decision and interval
    disagree carries the sentence that says so, in the findings and in the section's notes; no "stable" beside
    an interval that holds 0."""
    from embias_widgets.analysis.publish.findings import findings

    out = tmp_path / "q"
    assert main(["report", "--model", "glove-6b-50d", "--quick", "--out", str(out), "--no-progress"]) == 0
    report = json.loads((out / "report.json").read_text())
    weat = next(s for s in report["sections"] if s["method"] == "weat")
    cols = weat["table"]["columns"]
    d, iv, verdict = cols.index("effect size d"), cols.index("95% interval"), cols.index("stability")
    decided = {t["label"]: t["significant"] for t in weat["significance"]}
    survive = " ".join(findings(report)[0]["survive"])
    lost = " ".join(findings(report)[0]["not_significant"])
    disagree = 0
    for row in weat["table"]["rows"]:
        outside = row[iv]["low"] > 0 if row[d] > 0 else row[iv]["high"] < 0
        significant = decided[row[0]]
        assert row[verdict] == ("stable" if significant and outside else "fragile"), row[0]
        if significant and not outside:
            disagree += 1
            assert f"WEAT {row[0]}:" in survive
            text = next(t for t in findings(report)[0]["survive"] if t.startswith(f"WEAT {row[0]}:"))
            assert text.endswith("significant for these words; the interval over word choice includes 0")
        if not significant and outside:
            disagree += 1
            assert "the interval over word choice excludes 0 for" in lost and row[0] in lost.split("excludes 0 for")[1]
        if significant != outside:
            assert any(n.startswith("p and interval disagree") and f"{row[0]}: " in n for n in weat["notes"])
    assert disagree  # GloVe's quick report has such rows (weat3 survives Holm; weat5's interval excludes 0)
    assert any(n.startswith("stability: stable when the test survives Holm-Bonferroni over the report's 21")
               for n in weat["notes"])
    html = (out / "report.html").read_text()
    assert "significant for these words; the interval over word choice includes 0" in html
