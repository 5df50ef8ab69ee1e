"""The report folder's lock (``.embias-report.lock``): gone after a finished or a failed run, and still one run at
a time when a run ends (and deletes the file) just as another opens it."""

from __future__ import annotations

import os

import pytest
from _report_stand_in import copy_vectors, report_ok, report_refused, stand_in_fixture, vectors_fixture

from embias_widgets.analysis.report import lock as lock_module
from embias_widgets.analysis.report.lock import LOCK_NAME, folder_lock
from embias_widgets.analysis.report.store import ReportRunError

vectors, stand_in = vectors_fixture, stand_in_fixture  # the fixtures of tests/_report_stand_in.py

fcntl = pytest.importorskip("fcntl", reason="the race below is checked with POSIX flock")


def test_a_finished_report_leaves_no_lock_file(vectors, tmp_path, stand_in):
    model, out = copy_vectors(vectors, tmp_path / "vec.txt"), tmp_path / "r"
    report_ok("--model", model, "--out", str(out))
    assert (out / "report.json").exists() and not (out / LOCK_NAME).exists()
    report_ok("--model", model, "--out", str(out))  # a resume: the same
    assert not (out / LOCK_NAME).exists()


def test_a_refused_or_failed_run_leaves_no_lock_file(vectors, tmp_path, stand_in):
    model, out = copy_vectors(vectors, tmp_path / "vec.txt"), tmp_path / "r"
    report_ok("--model", model, "--out", str(out))
    assert "differs in options" in report_refused("--model", model, "--out", str(out), "--seed", "9")
    assert not (out / LOCK_NAME).exists()
    with pytest.raises(RuntimeError, match="inside"), folder_lock(out):
        raise RuntimeError("inside")
    assert not (out / LOCK_NAME).exists()


def test_a_held_lock_still_refuses_a_second_run_and_keeps_its_file(tmp_path):
    with folder_lock(tmp_path):
        with pytest.raises(ReportRunError, match="is being written by another report"), folder_lock(tmp_path):
            pass
        assert (tmp_path / LOCK_NAME).exists()  # the refused run deleted nothing it did not hold
    assert not (tmp_path / LOCK_NAME).exists()


def _locked_by_someone(path) -> bool:
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_lock_taken_on_a_file_deleted_meanwhile_is_taken_again_on_the_new_file(tmp_path, monkeypatch):
    """The race the deletion opens: this run opens the file, the holder deletes it and ends, a third run creates a
    new one; this run's lock on the deleted file would guard nothing, so it must lock the file at the path."""
    path = tmp_path / LOCK_NAME
    real, calls = lock_module._try_lock, []

    def holder_ends_meanwhile(fd: int) -> bool:
        calls.append(fd)
        if len(calls) == 1:
            path.unlink()
            path.write_text("")  # a third run's new file (not locked yet)
        return real(fd)

    monkeypatch.setattr(lock_module, "_try_lock", holder_ends_meanwhile)
    with folder_lock(tmp_path):
        assert len(calls) == 2
        assert _locked_by_someone(path)  # the file at the path is the locked one: a third run is refused
    assert not path.exists()
