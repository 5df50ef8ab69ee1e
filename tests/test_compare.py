"""``embias compare`` / ``Compare`` / ``Report(..., baseline=...)`` on word vectors: a model and its debiased copy
(the seeds' projection debiasing, given as an object), paired item by item; the numbers equal the metric core on
the same cosines; the CI gate's exit codes on a planted regression and on none."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _cli_inprocess import embias_inprocess
from _report_stand_in import write_vectors

from embias_widgets.analysis.compare import Compare, parse_rule
from embias_widgets.analysis.relation import RelationProjection
from embias_widgets.analysis.report import Report, ReportInputError
from embias_widgets.metrics.paired_association import effect_size_change
from embias_widgets.models import load_model
from embias_widgets.stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS


@pytest.fixture(scope="module")
def models(glove, tmp_path_factory):
    """A small vectors file of GloVe's words and its debiased copy saved by the comparison (an object)."""
    folder = tmp_path_factory.mktemp("vectors")
    vectors = write_vectors(glove, folder / "vec.txt")
    debiased = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, model=str(vectors)).debiased_model()
    return str(vectors), debiased


@pytest.fixture(scope="module")
def debiasing(models, tmp_path_factory):
    original, debiased = models
    out = tmp_path_factory.mktemp("compare")
    return Compare(original, debiased, out=out, methods=["weat", "ripa"], quick=True, progress=False,
                   resamples=500).run()


def test_debiased_object_is_saved_and_compared(debiasing):
    c = debiasing.comparison
    assert c["schema"] == "embias-comparison/1"
    assert c["after"]["name"].endswith(".bin") and "models" in c["after"]["name"]
    weat = {r["row"]: r for r in c["rows"] if r["method"] == "weat"}
    assert set(weat) >= {"weat6", "weat7", "weat8"}
    assert all(r["gated"] and r["p_value"] is not None and r["change_interval"] for r in weat.values())
    # the gender direction is gone: WEAT 6's d falls, and the verdict says the bias shrank
    assert abs(weat["weat6"]["after"]) < abs(weat["weat6"]["before"])
    assert {r["verdict"] for r in weat.values()} <= {"bias shrank", "no significant change", "changed", "bias grew"}
    assert c["holm"]["n_tests"] == len(weat)
    ripa = [r for r in c["rows"] if r["method"] == "ripa"]
    assert ripa and not any(r["gated"] for r in ripa)
    assert {n["method"] for n in c["not_compared"]} == set()  # debias and the rest were not run (methods=)
    assert (debiasing.out_dir / "comparison.json").is_file()
    report = json.loads((debiasing.out_dir / "report.json").read_text())
    assert report["comparisons"][0]["rows"] == json.loads(json.dumps(c["rows"]))


def test_change_equals_the_metric_core_on_the_same_cosines(debiasing, models):
    from embias_widgets.analysis.association import AssociationTest

    row = next(r for r in debiasing.comparison["rows"] if r["row"] == "weat7")
    results = [AssociationTest("weat7", model=load_model(m) if isinstance(m, str) else m, n_samples=100).run()
               for m in models]
    assert row["before"] == pytest.approx(results[0].effect_size, abs=1e-12)
    assert row["after"] == pytest.approx(results[1].effect_size, abs=1e-6)  # saved as float32, read back exactly
    direct = effect_size_change(results[0].cosines, results[1].cosines, len(results[0].items["targ1"]),
                                n_resamples=500, rng=np.random.default_rng(0))
    assert row["change"] == pytest.approx(direct.change, abs=1e-6)


def test_gate_exit_codes_on_a_planted_regression_and_none(models, tmp_path):
    original, debiased = models
    debiased_path = Compare(original, debiased, out=tmp_path / "tmp", methods=["weat"], quick=True,
                            progress=False).after
    # debiasing undone: from the debiased model back to the original, WEAT's gender bias grows
    worse = embias_inprocess(*["compare", "--model", debiased_path, "--model", original, "--methods", "weat",
                              "--quick", "--no-progress", "--no-html", "--out", str(tmp_path / "back"),
                              "--fail-if", "worse", "--resamples", "500"])
    assert worse.returncode == 1, worse.stderr
    breaches = [line for line in worse.stderr.splitlines() if "breach:" in line]
    assert breaches and all("worse: " in line and "[effect size d]" in line for line in breaches)
    assert any("weat6" in line or "weat8" in line for line in breaches)
    fine = embias_inprocess(*["compare", "--model", original, "--model", debiased_path, "--methods", "weat",
                             "--quick", "--no-progress", "--no-html", "--out", str(tmp_path / "forth"),
                             "--fail-if", "worse", "--resamples", "500", "--format", "json"])
    assert fine.returncode == 0, fine.stderr
    assert json.loads(fine.stdout)["schema"] == "embias-comparison/1"
    bad = embias_inprocess(*["compare", "--model", original, "--model", debiased_path, "--fail-if", "worst"])
    assert bad.returncode == 2 and "is not a rule" in bad.stderr and "Traceback" not in bad.stderr
    one = embias_inprocess(*["compare", "--model", original])
    assert one.returncode == 2 and "exactly twice" in one.stderr


def test_rules_parse_and_refuse():
    assert parse_rule("worse:0.2@weat,seat").threshold == 0.2
    assert parse_rule("worse@nli").applies("nli-gender-occupation")
    assert not parse_rule("worse@weat").applies("seat")
    for bad in ("grows", "changed:1", "worse:-1", "worse:x", "better"):
        with pytest.raises(ValueError, match="--fail-if"):
            parse_rule(bad)


def test_report_with_a_baseline_folder(models, tmp_path, debiasing):
    original, _ = models
    result = Report([original], out=tmp_path / "again", quick=True, progress=False, methods=["weat"],
                    baseline=debiasing.out_dir).run()
    comparisons = result.to_dict()["comparisons"]
    assert len(comparisons) == 1 and comparisons[0]["before"]["name"] == original
    rows = {r["row"]: r for r in comparisons[0]["rows"] if r["method"] == "weat"}
    assert all(r["change"] == pytest.approx(0.0, abs=1e-12) for r in rows.values())  # the same model again
    with pytest.raises(ReportInputError, match="--baseline"):
        Report([original], out=tmp_path / "x", quick=True, methods=["weat"], baseline=tmp_path / "nothing")


def test_report_json_validates_against_its_schema_and_holds_the_blocks(debiasing):
    import jsonschema

    from embias_widgets.analysis.publish.page import page
    from embias_widgets.analysis.report import ReportResult
    from embias_widgets.analysis.report.result import SCHEMA_FILE

    d = json.loads((debiasing.out_dir / "report.json").read_text())
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.validate(d, schema)
    assert d["schema"] == "embias-report/2"
    assert {f["model"] for f in d["findings"]} == {m["name"] for m in d["models"]}
    survive = [r for f in d["findings"] for r in f["survive"]]
    assert survive and all(r["significant"] and r["p_holm"] <= d["holm"]["alpha"] for r in survive)
    assert d["agreement"]["taus"]["rows"] and all(-1 <= r[3] <= 1 for r in d["agreement"]["taus"]["rows"])
    # the page is built from the same objects: the comparison's table, change column in models side by side
    blocks = page(d)
    tables = [b for b in blocks if b["t"] == "table"]
    change = next(t for t in tables if "verdict" in t["columns"])
    weat6 = next(r for r in change["rows"] if r[1] == "weat6")
    row = next(r for r in d["comparisons"][0]["rows"] if r["row"] == "weat6")
    assert weat6[5] == row["change"] and weat6[6] == row["change_interval"]
    side = next(t for t in tables if t["columns"][0] == "test" and "paired test" in t["columns"])
    assert any(r[0] == "weat6" and r[-3] == row["change"] for r in side["rows"])
    # a report.json of schema 1 is still read (and written back as 2)
    old = {k: v for k, v in d.items() if k not in ("findings", "agreement", "methods_run", "coverage",
                                                  "comparisons")}
    old["schema"] = "embias-report/1"
    (debiasing.out_dir / "old.json").write_text(json.dumps(old))
    again = ReportResult.load(debiasing.out_dir / "old.json").to_dict()
    jsonschema.validate(again, schema)
    broken = dict(d, comparisons=[{"schema": "embias-comparison/1"}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_nli_model_with_projected_input_embeddings_compares_as_it_is(tmp_path):
    """Dev et al.'s debiasing of an NLI model's input embeddings: the object goes to Compare unchanged."""
    from _tiny_nli import tiny_nli_dir

    from embias_widgets.models.nli_classifiers import load_nli_model
    from embias_widgets.models.nli_classifiers.debias import debias_input_embeddings

    original = str(tiny_nli_dir())
    debiased = debias_input_embeddings(load_nli_model(original))
    result = Compare(original, debiased, out=tmp_path, methods=["nli"], quick=True, progress=False,
                     resamples=300).run()
    c = result.comparison
    assert c["after"]["name"].startswith(str(tmp_path / "models"))
    probes = {r["method"] for r in c["rows"]}
    assert probes == {"nli-gender-occupation", "nli-nationality-polarity", "nli-religion-polarity"}
    nn = [r for r in c["rows"] if r["row"] == "NN (pairs)"]
    assert len(nn) == 3 and all(r["gated"] and r["n"] == 48 for r in nn)
    assert all("templates" in r["change_interval"]["method"] and r["counts"]["templates"] >= 2 for r in nn)
    # the numbers are the sections' own: before and after equal each model's NN over the same sampled pairs
    sections = {(s["method"], s["model"]): s for s in result.report.to_dict()["sections"]}
    for r in nn:
        for side in ("before", "after"):
            table = sections[(r["method"], c[side]["name"])]["table"]
            value = next(row[1] for row in table["rows"] if row[0] == "NN (pairs)")
            assert r[side] == pytest.approx(value, abs=1e-12)


def test_report_cli_refuses_a_baseline_that_is_not_a_report(models, tmp_path):
    original, _ = models
    (tmp_path / "notes.json").write_text('{"schema": "something"}')
    for baseline in (tmp_path / "absent", tmp_path / "notes.json"):
        run = embias_inprocess("report", "--model", original, "--quick", "--out", str(tmp_path / "r"), "--baseline",
                               str(baseline))
        assert run.returncode == 2 and "--baseline" in run.stderr and "Traceback" not in run.stderr, run.stderr
