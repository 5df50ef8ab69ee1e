"""Two models in one report: each model card is named after its model (file and command output), and a method
that turns out not to apply to one of them (CEAT on the CBoW encoder, which has no token vectors) is skipped with
its reason, not failed: the README's two-model example compares two sentence encoders."""

from __future__ import annotations

import pytest
from _report_stand_in import copy_vectors, first_number, report_json, report_ok, vectors_fixture

from embias_widgets.analysis.publish.model_card import card_file_name
from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.plan import ModelSpec, NotApplicableError, SectionSpec, model_id
from embias_widgets.analysis.report.sections_ceat import run_ceat

vectors = vectors_fixture


def test_each_model_card_names_its_model_in_its_file_name_and_the_output(vectors, tmp_path, monkeypatch):
    monkeypatch.setattr(report_runner, "run_section", lambda spec: (first_number(spec), 0.01))
    one, two = copy_vectors(vectors, tmp_path / "a.txt"), copy_vectors(vectors, tmp_path / "m" / "a.txt", scale=2.0)
    out = tmp_path / "r"
    run = report_ok("--model", one, "--model", two, "--out", str(out), "--model-card")
    for name in (one, two):
        path = out / f"MODEL_CARD_BIAS.{model_id(name)}.md"
        assert f"model card of {name}: {path.resolve()}" in run.stdout
        assert f'- name: "{name}"' in path.read_text(encoding="utf-8")  # the card inside is that model's
    assert model_id(one) != model_id(two) and not (out / "MODEL_CARD_BIAS.1.md").exists()
    report = report_json(out)
    assert card_file_name(report, one) == f"MODEL_CARD_BIAS.{model_id(one)}.md"
    with pytest.raises(ValueError, match="not one of the report's models"):
        card_file_name(report, "elsewhere")


def test_ceat_on_an_encoder_without_token_vectors_is_not_applicable():
    spec = SectionSpec("ceat", ModelSpec("cbow-glove-6b-50d", "sentence"),
                       {"ceat_tests": ("weat6",), "ceat_samples": 10, "seed": 0})
    with pytest.raises(NotApplicableError, match="no token vectors"):
        run_ceat(spec)


def test_a_section_that_does_not_apply_is_skipped_with_its_reason(vectors, tmp_path, monkeypatch):
    def ripa_does_not_apply(spec):
        if spec.method == "ripa":
            raise NotApplicableError("this model has no relation pairs")
        return first_number(spec), 0.01

    monkeypatch.setattr(report_runner, "run_section", ripa_does_not_apply)
    out = tmp_path / "r"
    run = report_ok("--model", copy_vectors(vectors, tmp_path / "a.txt"), "--out", str(out))
    ripa = next(s for s in report_json(out)["sections"] if s["method"] == "ripa")
    assert (ripa["status"], ripa["reason"]) == ("skipped", "not applicable: this model has no relation pairs")
    assert "skipped: not applicable: this model has no relation pairs" in run.stdout
