"""The report's CEAT section: planned for sentence encoders and masked LMs at the stated sizes, and its row is
the study's own numbers (run on the tiny masked LM's directory)."""

from __future__ import annotations

import json

import pytest
from _tiny_lm import tiny_mlm_dir

from embias_widgets.analysis.ceat import ContextualAssociationTest
from embias_widgets.analysis.publish.page import sizes_line
from embias_widgets.analysis.report.plan import ModelSpec, plan_sections, sizes
from embias_widgets.analysis.report.runner import run_section
from embias_widgets.analysis.report.sections import TITLES, WHAT


def test_planned_for_sentence_encoders_and_masked_lms_only():
    models = [ModelSpec(n, k) for n, k in (("glove-6b-50d", "static"), ("all-MiniLM-L6-v2", "sentence"),
                                           ("embias-demo-mlm", "masked-lm"), ("embias-demo-nli", "nli"))]
    quick = [s for s in plan_sections(models, {"crows-pairs": None, "stereoset": None}, quick=True, seed=5)
             if s.method == "ceat"]
    assert [s.model.name for s in quick] == ["all-MiniLM-L6-v2", "embias-demo-mlm"]
    assert quick[0].options == {"seed": 5, "ceat_tests": ("weat6",), "ceat_samples": 200}
    full = sizes(False)
    assert full["ceat_samples"] == 10_000 and full["ceat_tests"][-4:] == ("ceat11", "ceat12", "ceat13", "ceat14")
    assert "CEAT tests: weat6; CEAT samples: 200" in sizes_line({"quick": True, "sections": [{"method": "ceat"}]})
    assert "ceat" in TITLES and "Guo & Caliskan" in WHAT["ceat"]


def test_section_row_is_the_studys_result():
    spec = next(s for s in plan_sections([ModelSpec(str(tiny_mlm_dir()), "masked-lm")],
                                         {"crows-pairs": None, "stereoset": None}, quick=True, seed=2)
                if s.method == "ceat")
    outcome, _ = run_section(spec)
    outcome = json.loads(json.dumps(outcome))
    columns = outcome["table"]["columns"]
    row = dict(zip(columns, outcome["table"]["rows"][0], strict=True))
    direct = ContextualAssociationTest("weat6", model=str(tiny_mlm_dir()), contexts="templates",
                                       device="cpu").run(200, seed=2)
    assert row["test"] == "weat6" and row["n samples"] == 200
    assert row["effect size d"] == pytest.approx(direct.effect_size, rel=1e-9)
    assert (row["95% interval"]["low"], row["95% interval"]["high"]) == pytest.approx(direct.interval, rel=1e-9)
    assert "two-stage bootstrap" in row["95% interval"]["method"]
    assert row["paper's CES"] == pytest.approx(direct.combined_effect_size, rel=1e-9)
    assert row["paper's I^2"] == pytest.approx(direct.meta.i_squared) and row["words without contexts"] == 0
    assert outcome["tests"] == [{"label": "weat6", "p": direct.p_value}] and row["p"] == direct.p_value
    assert direct.p_value >= 1 / 12_870  # the permutation p: never the paper's underflowing 1 - Phi(ES / SE)
    assert any(n.startswith("paper's CES and I^2: Guo & Caliskan's") and "not valid" in n for n in outcome["notes"])
    assert outcome["chart"] == {"x": "effect size d", "y": "test", "interval": "95% interval", "ref": 0}
    assert any("bleached templates" in n for n in outcome["notes"])
