"""A damaged ``report.json`` read back, and a model that cannot be loaded in a report (issue 31, items 12 and 13):
``ReportResult.load`` raises one ``ReportFileError`` naming the file and what is wrong; a model whose files a
library cannot read (a cut-short safetensors file, a tokenizer.json of no known model, a config of other shapes)
fails its own sections with the reason through ``embias report`` and the other models' sections are kept. The
word-vector model's sections are stand-ins reading its own file (tests/_report_stand_in.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _report_stand_in import copy_vectors, first_number, report_json, report_ok, stand_in_fixture, vectors_fixture

from embias_widgets.analysis.report import ReportFileError, ReportResult
from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.plan import model_id

vectors, stand_in = vectors_fixture, stand_in_fixture  # the fixtures of tests/_report_stand_in.py


@pytest.fixture
def written(vectors, tmp_path, stand_in) -> Path:
    out = tmp_path / "r"
    report_ok("--model", copy_vectors(vectors, tmp_path / "vec.txt"), "--out", str(out), "--no-html")
    return out / "report.json"


@pytest.mark.parametrize(("damage", "problem"), [
    (lambda d: b"\xff\xfe" + json.dumps(d).encode(), "is not UTF-8 text"),
    (lambda d: json.dumps(d).encode()[:-40], "is not valid JSON"),
    (lambda d: b"[1, 2]", "it is a list, not an object"),
    (lambda d: json.dumps({**d, "schema": "other/1"}).encode(), "schema 'other/1'"),
    (lambda d: json.dumps({**d, "holm": None}).encode(), "'holm' is not {alpha, n_tests} (it is null)"),
    (lambda d: json.dumps({**d, "sections": [*d["sections"][:1], "a string"]}).encode(),
     "section 2: it is a string, not an object"),
    (lambda d: json.dumps({**d, "sections": [{k: v for k, v in s.items() if k != "table"} for s in d["sections"]]}
                          ).encode(), "section 1 ('weat--vec_txt-"),
])
def test_a_damaged_report_json_is_one_error_naming_the_file(written, damage, problem):
    report = json.loads(written.read_text())
    assert ReportResult.load(written).to_dict() == report
    written.write_bytes(damage(report))
    with pytest.raises(ReportFileError) as caught:
        ReportResult.load(written)
    message = str(caught.value)
    assert message.startswith(f"{written}: ") and problem in message and "embias report" in message
    assert isinstance(caught.value, ValueError)


def _unloadable(kind: str, folder: Path) -> Path:
    """A masked LM directory that cannot be loaded: its weights file cut short, a tokenizer.json of no known
    model, or a config of other shapes."""
    from _tiny_lm import tiny_mlm_dir

    shutil.copytree(tiny_mlm_dir(), folder)
    if kind == "cut weights":
        weights = folder / "model.safetensors"
        weights.write_bytes(weights.read_bytes()[:300])
    elif kind == "unknown tokenizer":
        (folder / "tokenizer.json").write_text(json.dumps({"version": "1.0", "model": {"type": "Nope"}}))
    else:
        config = json.loads((folder / "config.json").read_text())
        (folder / "config.json").write_text(json.dumps({**config, "hidden_size": 64, "intermediate_size": 128}))
    return folder


@pytest.mark.parametrize(("kind", "reason"), [
    ("cut weights", "(SafetensorError: "),
    ("unknown tokenizer", "("),  # the library's own words (a KeyError today): the file is named by the hint
    ("other shapes", "(RuntimeError: weights whose shapes differ from what config.json gives"),
])
def test_a_model_that_cannot_be_loaded_fails_its_sections_and_keeps_the_rest(vectors, tmp_path, monkeypatch, kind,
                                                                             reason):
    monkeypatch.setenv("EMBIAS_DATA", str(tmp_path / "no-data"))  # CrowS-Pairs and StereoSet: skipped
    real = report_runner.run_section  # the masked LM's sections load it; the vectors' are stand-ins
    monkeypatch.setattr(report_runner, "run_section",
                        lambda spec: real(spec) if spec.model.kind != "static" else (first_number(spec), 0.01))
    broken, model = _unloadable(kind, tmp_path / "broken-mlm"), copy_vectors(vectors, tmp_path / "vec.txt")
    run = report_ok("--model", model, "--model", str(broken), "--out", str(tmp_path / "r"))
    d = report_json(tmp_path / "r")
    mine = {s["method"]: s for s in d["sections"] if s["model"] == model}
    theirs = [s for s in d["sections"] if s["model"] == str(broken) and s["status"] != "skipped"]
    assert [s["status"] for s in mine.values()] == ["done"] * 3
    assert theirs and all(s["status"] == "failed" for s in theirs)
    for s in theirs:
        assert s["reason"].startswith(f"model {str(broken)!r} could not be loaded {reason}"), s["reason"]
        assert s["reason"].endswith("check its files: a damaged or partly copied weights or tokenizer file, or a "
                                    "config.json of another model")
    assert f"could not be loaded {reason}" in run.stdout  # the summary says it too


def test_only_a_library_failing_to_read_a_models_files_is_a_load_failure(monkeypatch):
    from embias_widgets.analysis.report.plan import ModelSpec, SectionSpec

    def from_pretrained():  # a library's loader (this module is not the package)
        raise RuntimeError("Error(s) in loading state_dict\nsize mismatch for bert.embeddings")

    def caught(fn) -> BaseException:
        try:
            fn()
        except Exception as err:  # the error is what is tested
            return err
        raise AssertionError("no error")

    assert report_runner.load_failure(caught(from_pretrained)) == "RuntimeError: Error(s) in loading state_dict"
    assert report_runner.load_failure(caught(lambda: model_id(None))) is None  # this package's bug: not hidden
    assert report_runner.load_failure(caught(lambda: 1 / 0)) is None  # not while loading
    spec = SectionSpec("weat", ModelSpec("vec.txt", "static"))
    monkeypatch.setattr(report_runner, "runner", lambda method: lambda s: model_id(None))
    with pytest.raises(AttributeError):  # a bug still stops the run (exit status 1, "internal error")
        report_runner.run_section(spec)
    monkeypatch.setattr(report_runner, "runner", lambda method: lambda s: from_pretrained())
    with pytest.raises(report_runner.ModelLoadError, match=r"^model 'vec.txt' could not be loaded \(RuntimeError"):
        report_runner.run_section(spec)
