"""``embias report`` against a hostile user and a damaged folder (issue 31, items 1, 4, 9, 11, 12 and 14's
280-character path), each case through the command line in this process as a user runs it: ids and file names
of look-alike and very long model names, edited or damaged saved sections, a refused rerun, two runs on one
folder, interruptions. The sections are stand-ins reading the model's own file (tests/_report_stand_in.py);
figures are rendered by a stand-in for vl-convert (1-2 s each at 300 dpi) where only their file names are
under test.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from pathlib import Path

import pytest
from _cli_inprocess import embias_inprocess
from _report_stand_in import (
    copy_vectors,
    first_number,
    report_json,
    report_ok,
    report_refused,
    stand_in_fixture,
    vectors_fixture,
)

from embias_widgets.analysis.report import Report, ReportResult, ReportRunError
from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.lock import LOCK_NAME, folder_lock
from embias_widgets.analysis.report.plan import model_id, section_id
from embias_widgets.analysis.report.store import write_atomic

vectors, stand_in = vectors_fixture, stand_in_fixture  # the fixtures of tests/_report_stand_in.py


@pytest.fixture
def figures(monkeypatch):
    """Sections with a chart, rendered by a stand-in for vl-convert: render() names and writes the files."""
    import vl_convert

    monkeypatch.setattr(report_runner, "run_section", lambda spec: (first_number(spec, chart=True), 0.01))
    monkeypatch.setattr(vl_convert, "vegalite_to_svg", lambda spec, **kw: "<svg></svg>")
    monkeypatch.setattr(vl_convert, "vegalite_to_png", lambda spec, **kw: b"\x89PNG\r\n\x1a\n")


def test_ids_are_a_slug_and_a_hash_of_the_name():
    names = ["m/a b.txt", "m/a_b.txt", "Qwen2.5-0.5B", "Qwen2.5-0.5B-Instruct", "vec.txt", "Vec.txt", "x" * 280,
             "/models/" + "y" * 240 + "/vec.txt", "", "org/bert-base-uncased"]
    ids = [model_id(n) for n in names]
    assert len({i.casefold() for i in ids}) == len(names)  # unique even on a case-blind file system
    for name, got in zip(names, ids, strict=True):
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,40}-[0-9a-f]{8}", got), got  # no dot: no suffix to mistake
        assert got.endswith(hashlib.sha256(name.encode()).hexdigest()[:8])
    assert ids[0].startswith("a_b_txt-") and ids[2].startswith("Qwen2_5-0_5B-") and ids[-1].startswith("bert-base")
    assert section_id("weat", "vec.txt") == f"weat--{model_id('vec.txt')}"


def test_models_whose_names_look_alike_keep_their_own_sections_and_figures(vectors, tmp_path, figures):
    names = [tmp_path / "m" / "a b.txt", tmp_path / "m" / "a_b.txt", tmp_path / "Qwen2.5-0.5B",
             tmp_path / "Qwen2.5-0.5B-Instruct", tmp_path / "vec.txt"]
    models = [copy_vectors(vectors, n, scale=i + 1) for i, n in enumerate(names)]
    out = tmp_path / "r"
    report_ok(*[a for m in models for a in ("--model", m)], "--out", str(out))
    d = report_json(out)
    assert len({s["id"] for s in d["sections"]}) == len(d["sections"]) == 3 * len(models)
    assert d["holm"]["n_tests"] == 3 * len(models)  # each section's test once, never a model's twice
    for s in d["sections"]:
        assert s["table"]["rows"][0][1] == float(Path(s["model"]).read_text().split()[1])  # its own model's
        assert [t["label"] for t in s["significance"]] == [s["method"]]
    figures = [s["figure"] for s in d["sections"] if s["method"] == "weat"]
    written = {p.relative_to(out).as_posix() for p in (out / "figures").iterdir()}
    assert written == {f[k] for f in figures for k in ("svg_path", "png_path")}  # the JSON names the files written
    assert len(written) == 2 * len(models)
    assert (out / "sections").is_dir() and len(list((out / "sections").glob("*--*.json"))) == 3 * len(models)


@pytest.mark.parametrize("name", ["", "  "])
def test_an_empty_model_name_is_said_to_be_empty(tmp_path, name):
    err = report_refused("--model", name, "--out", str(tmp_path / "r"))
    assert err.startswith("embias report: error: the model name is empty: give a registered name (")
    assert not (tmp_path / "r" / "report.json").exists()


def test_a_model_path_of_280_characters(vectors, tmp_path, figures):
    deep = tmp_path.joinpath(*["d" * 60] * 5)
    model = copy_vectors(vectors, deep / "vectors.txt")
    assert len(model) > 280
    out = tmp_path / "r"
    report_ok("--model", model, "--out", str(out))
    d = report_json(out)
    assert [s["status"] for s in d["sections"]] == ["done"] * 3
    assert all(len(p.name) < 100 for p in out.rglob("*"))
    assert all((out / s["figure"]["svg_path"]).is_file() for s in d["sections"] if s["figure"]["svg_path"])


def _saved(out: Path, method: str) -> Path:
    return next((out / "sections").glob(f"{method}--*.json"))


def _rewrite(out: Path, method: str, change, *, manifest: bool) -> None:
    """Change a saved section's content; with ``manifest``, also its checksum (a consistent edit)."""
    path = _saved(out, method)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    if manifest:
        m = json.loads((out / "sections" / "manifest.json").read_text())
        m["sha256"][path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        (out / "sections" / "manifest.json").write_text(json.dumps(m))


def _tables(d: dict) -> dict:
    return {s["id"]: s["table"] for s in d["sections"]}


def test_edited_or_damaged_sections_are_run_again_and_said_so(vectors, tmp_path, stand_in):
    model, out = copy_vectors(vectors, tmp_path / "vec.txt"), tmp_path / "r"
    report_ok("--model", model, "--out", str(out))
    first = report_json(out)
    assert {Path(f).name for f in json.loads((out / "sections" / "manifest.json").read_text())["sha256"]} == {
        _saved(out, m).name for m in ("weat", "ripa", "debias")}

    def edit_d(data):
        data["record"]["table"]["rows"][0][1] = 9.99

    _rewrite(out, "weat", edit_d, manifest=False)  # d -> 9.99: the checksum no longer matches
    _rewrite(out, "ripa", lambda data: data["record"].pop("table"), manifest=True)  # valid JSON, no table
    _rewrite(out, "debias", lambda data: data.update(record="a string"), manifest=True)
    report_ok("--model", model, "--out", str(out))
    again = report_json(out)
    assert _tables(again) == _tables(first)  # recomputed: 9.99 is not published
    notes = {s["method"]: s["notes"][-1] for s in again["sections"]}
    weat, ripa, debias = (_saved(out, m).name for m in ("weat", "ripa", "debias"))
    assert notes["weat"] == (f"the saved section sections/{weat} does not match its sha256 in sections/manifest.json: "
                             "it was edited or damaged after it was written, so this section was run again")
    assert notes["ripa"] == (f"the saved section sections/{ripa} is damaged ('table' is missing), so this section was "
                             "run again")
    assert f"sections/{debias} is damaged ('record' is missing or not an object)" in notes["debias"]
    assert set(notes.values()) <= set(again["provenance"]["options"]["notes"])
    page = (out / "report.html").read_text()
    assert all(n.split(" so this")[0].replace("'", "&#x27;") in page for n in notes.values())  # shown, not only in JSON

    (out / "sections" / "manifest.json").write_text("{cut sh")  # the manifest itself
    report_ok("--model", model, "--out", str(out))
    third = report_json(out)
    assert _tables(third) == _tables(first)
    assert any("manifest.json is damaged" in n for n in third["provenance"]["options"]["notes"])
    assert all("is not listed in sections/manifest.json" in s["notes"][-1] for s in third["sections"])
    report_ok("--model", model, "--out", str(out))  # and a resume after that trusts what it just wrote
    assert report_json(out)["provenance"]["options"]["notes"] == []


def _files(out: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != LOCK_NAME}


def test_a_refused_rerun_keeps_the_previous_report(vectors, tmp_path, stand_in):
    model, out = copy_vectors(vectors, tmp_path / "vec.txt"), tmp_path / "r"
    report_ok("--model", model, "--out", str(out))
    kept = _files(out)
    err = report_refused("--model", model, "--out", str(out), "--seed", "9")
    assert "differs in options" in err and "--fresh" in err
    assert _files(out) == kept  # nothing deleted, nothing written (but the lock's holder)


def test_a_second_report_on_a_busy_folder_is_refused_naming_the_first(vectors, tmp_path, stand_in):
    model, out = copy_vectors(vectors, tmp_path / "vec.txt"), tmp_path / "r"
    out.mkdir()
    with folder_lock(out):
        err = report_refused("--model", model, "--out", str(out))
    assert f"{out} is being written by another report (process {os.getpid()} on " in err
    assert "wait until it ends, or give another folder (--out)" in err
    assert not (out / "report.json").exists()
    report_ok("--model", model, "--out", str(out))  # the lock ended with its holder


def test_two_reports_at_once_on_one_folder(vectors, tmp_path, monkeypatch):
    """Two runs in threads: one writes the report, the other is refused (never a lost temporary file)."""
    started, release = threading.Event(), threading.Event()

    def slow(spec):
        started.set()
        release.wait(30)
        return first_number(spec), 0.01

    monkeypatch.setattr(report_runner, "run_section", slow)
    model, out = copy_vectors(vectors, tmp_path / "vec.txt"), tmp_path / "r"
    errors: list[BaseException] = []
    first = threading.Thread(target=lambda: Report([model], out=out, quick=True, progress=False).run())
    first.start()
    assert started.wait(30)
    try:
        with pytest.raises(ReportRunError, match="is being written by another report"):
            Report([model], out=out, quick=True, progress=False).run()
    except BaseException as err:  # released below either way
        errors.append(err)
    release.set()
    first.join(60)
    assert not errors and not first.is_alive()
    assert [s["status"] for s in ReportResult.load(out / "report.json").sections] == ["done"] * 3
    assert not list(out.rglob("*.tmp"))


def test_writes_to_one_path_at_once_use_their_own_temporary_names(tmp_path):
    target, failures = tmp_path / "report.json", []

    def write(i: int) -> None:
        try:
            for _ in range(30):
                write_atomic(target, json.dumps({"writer": i}))
        except OSError as err:
            failures.append(err)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and json.loads(target.read_text())["writer"] in range(6)
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def _content(out: Path) -> list:
    return [(s["method"], s["status"], s["table"], s["significance"], s["notes"]) for s in report_json(out)["sections"]]


@pytest.mark.parametrize("where", ["in a section", "between the manifest and the section file"])
def test_a_run_interrupted_anywhere_resumes_to_the_uninterrupted_report(vectors, tmp_path, monkeypatch, where):
    from embias_widgets.analysis.report import store

    model = copy_vectors(vectors, tmp_path / "vec.txt")
    stand_in, write = (lambda spec: (first_number(spec), 0.01)), store.write_atomic

    def interrupt_section(spec):
        if spec.method == "ripa":
            raise KeyboardInterrupt
        return stand_in(spec)

    ripa_writes = []

    def interrupt_write(path, text):  # the second of the two files saving the ripa section writes
        if path.name.startswith("ripa--") or "ripa--" in str(text):
            ripa_writes.append(path.name)
            if len(ripa_writes) == 2:
                raise KeyboardInterrupt
        write(path, text)

    monkeypatch.setattr(report_runner, "run_section", stand_in)
    report_ok("--model", model, "--out", str(tmp_path / "whole"))
    if where == "in a section":
        monkeypatch.setattr(report_runner, "run_section", interrupt_section)
    else:
        monkeypatch.setattr(store, "write_atomic", interrupt_write)
    run = embias_inprocess("report", "--quick", "--no-progress", "--model", model, "--out", str(tmp_path / "r"))
    assert run.returncode == 130 and "interrupted" in run.stderr
    assert not (tmp_path / "r" / "report.json").exists()  # nothing looks complete
    assert len(ripa_writes) == (2 if where != "in a section" else 0)
    monkeypatch.setattr(report_runner, "run_section", stand_in)
    monkeypatch.setattr(store, "write_atomic", write)
    report_ok("--model", model, "--out", str(tmp_path / "r"))  # the lock ended with the interrupted run
    assert _content(tmp_path / "r") == _content(tmp_path / "whole")
    assert report_json(tmp_path / "r")["provenance"]["options"]["notes"] == []


def test_fresh_starts_over_without_notes_about_what_it_deletes(vectors, tmp_path, stand_in):
    model, out = copy_vectors(vectors, tmp_path / "vec.txt"), tmp_path / "r"
    report_ok("--model", model, "--out", str(out))
    (out / "sections" / "manifest.json").write_text("{cut sh")
    _saved(out, "weat").write_text("{truncated")
    report_ok("--model", model, "--out", str(out), "--seed", "9", "--fresh")  # another run's: deleted, not refused
    d = report_json(out)
    assert d["provenance"]["options"]["notes"] == [] and all(s["notes"] == [] for s in d["sections"])
    assert all(json.loads(p.read_text())["determines"]["options"]["seed"] == 9
               for p in (out / "sections").glob("*--*.json"))
