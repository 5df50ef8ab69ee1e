"""``embias report``'s BBQ section for language models: a full report on a tiny GPT-2 over the shared BBQ data gives
the numbers of ``BbqStudy(...).run()`` on the same items (bias score, interval, accuracy per category and context),
states the size and the interval's method, and lists the headline among the findings; a ``--quick`` report leaves
BBQ out; without BBQ data the section is skipped saying how to get it."""

from __future__ import annotations

import pytest
import torch  # noqa: F401  (the models extra: a missing one fails here, never skips)
from _cli_inprocess import embias_inprocess
from _tiny_causal import save_gpt2
from _tiny_lm import one_thread

from embias_widgets.analysis.bbq import BbqStudy
from embias_widgets.analysis.publish.findings import findings
from embias_widgets.analysis.report import Report
from embias_widgets.analysis.report import plan as report_plan
from embias_widgets.stimuli.bbq import load_bbq

_single_thread = pytest.fixture(autouse=True)(one_thread)
PER_CATEGORY = 6


@pytest.fixture(scope="module")
def bbq_dir(shared_data):
    return shared_data / "bbq"


@pytest.fixture(scope="module")
def causal_dir(bbq_dir, tmp_path_factory):
    items = load_bbq(bbq_dir, limit=30)
    texts = [f"{c} {q} {' '.join(a)}" for c, q, a in zip(items.context, items.question, items.answers.tolist(),
                                                           strict=True)]
    return save_gpt2(tmp_path_factory.mktemp("gpt2-bbq"), texts, positions=512, vocab_size=1500)


@pytest.fixture
def no_default_data(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBIAS_DATA", str(tmp_path / "no-data"))  # CrowS-Pairs and StereoSet: skipped
    monkeypatch.setitem(report_plan.FULL_SIZES, "bbq_items", PER_CATEGORY)


def _bbq(report: dict) -> dict:
    return next(s for s in report["sections"] if s["method"] == "bbq")


def test_a_full_report_has_bbq_with_the_studys_numbers(bbq_dir, causal_dir, tmp_path, no_default_data) -> None:
    d = Report([str(causal_dir)], out=tmp_path / "r", bbq=str(bbq_dir), progress=False, html=False).run().to_dict()
    section = _bbq(d)
    assert section["status"] == "done", section["reason"]
    assert section["table"]["columns"] == ["category, context", "n", "accuracy", "bias score", "95% interval"]
    items = load_bbq(bbq_dir, limit=PER_CATEGORY)
    expected = BbqStudy(str(causal_dir), items, model_options={"progress": False}).run(seed=0).to_dict()
    words = {"ambig": "ambiguous", "disambig": "disambiguated"}
    rows = {r[0]: r for r in section["table"]["rows"]}
    assert len(rows) == len(expected["cells"])
    for cell in expected["cells"]:
        row = rows[f"{cell['category']}, {words[cell['context_condition']]}"]
        assert row[1] == cell["n_items"] and row[2] == cell["accuracy"] and row[3] == cell["bias_score"]
        iv = cell["bias_score_interval"]
        assert (row[4] is None) == (iv is None)
        if iv is not None:
            assert (row[4]["low"], row[4]["high"]) == (iv["low"], iv["high"])
    notes = " ".join(section["notes"])
    assert f"{len(items):,} BBQ items of 6 categories (at most {PER_CATEGORY} items per category" in notes
    assert "templates (question_index)" in notes and "no p-value is defined" in notes
    assert section["chart"] == {"x": "bias score", "y": "category, context", "interval": "95% interval", "ref": 0}
    mine = next(f for f in findings(d) if f["model"] == str(causal_dir))
    assert any(line.startswith("BBQ: largest: ") for line in mine["descriptive"])
    assert "BBQ items per category: 6" in d["provenance"]["options"]["sizes"]


def test_a_quick_report_leaves_bbq_out(bbq_dir, causal_dir, tmp_path, no_default_data) -> None:
    report = Report([str(causal_dir)], out=tmp_path / "q", quick=True, bbq=str(bbq_dir), progress=False)
    assert "bbq" not in [s.method for s in report.sections]
    assert "bbq" in [s.method for s in Report([str(causal_dir)], out=tmp_path / "f", bbq=str(bbq_dir),
                                              progress=False).sections]


def test_without_bbq_data_the_section_says_how_to_get_it(causal_dir, tmp_path, no_default_data, monkeypatch) -> None:
    from embias_widgets.analysis.report import runner

    monkeypatch.setattr(runner, "run_section", lambda spec: ({"table": {"columns": [], "rows": []}, "tests": [],
                                                             "notes": [], "chart": None}, 0.1))
    d = Report([str(causal_dir)], out=tmp_path / "r", progress=False, html=False).run().to_dict()
    section = _bbq(d)
    assert section["status"] == "skipped" and "embias data fetch bbq" in section["reason"]


def test_the_cli_takes_bbq_and_refuses_what_is_not_bbq(causal_dir, tmp_path, no_default_data) -> None:
    fake = tmp_path / "Age.jsonl"
    fake.write_text('{"not": "bbq"}\n')
    run = embias_inprocess("report", "--model", str(causal_dir), "--bbq", str(fake), "--out", str(tmp_path / "r"))
    assert run.returncode == 2 and "BBQ data" in run.stderr and "cannot be read" in run.stderr
