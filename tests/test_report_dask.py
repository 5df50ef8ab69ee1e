"""``Report(workers=N)`` / ``--workers N`` / ``--scheduler``: the sections on a Dask cluster give the in-process
report's numbers exactly; a bad scheduler address, a scheduler that does not answer and ``--workers 0`` are one
line each, exit status 2."""

from __future__ import annotations

import json
import socket
import time

import pytest

from embias_widgets.analysis.report import Report, ReportInputError
from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.plan import section_id
from embias_widgets.cli import main


def _numbers(out) -> dict:
    d = json.loads((out / "report.json").read_text())
    return {s["id"]: (s["status"], s["table"], s["significance"], s["notes"], s["published"]) for s in d["sections"]}


@pytest.mark.slow
def test_a_local_dask_cluster_gives_the_in_process_numbers_exactly(tmp_path):
    pytest.importorskip("distributed")
    local, dask = tmp_path / "local", tmp_path / "dask"
    Report(["glove-6b-50d"], out=local, quick=True, progress=False, html=False).run()
    Report(["glove-6b-50d"], out=dask, quick=True, workers=2, progress=False, html=False).run()
    a, b = _numbers(local), _numbers(dask)
    assert set(a) == {section_id(m, "glove-6b-50d") for m in ("weat", "ripa", "debias")}
    assert all(v[0] == "done" for v in b.values())
    assert a == b  # exactly: the same seeds, the same tests, the same Holm-Bonferroni over them
    options = json.loads((dask / "report.json").read_text())["provenance"]["options"]
    assert options["workers"] == 2 and options["scheduler"] is None


def _one_line_exit_2(argv, capsys) -> str:
    """The error: one line, the last on stderr (after at most the sizes line), no traceback; exit status 2."""
    assert main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(lines) and len(lines) <= 2
    assert lines[-1].startswith("embias report: error: ") and all("error" not in line for line in lines[:-1])
    return lines[-1]


@pytest.mark.parametrize("address", ["not an address", "tcp://host:port", "tcp://a/b:1"])
def test_a_malformed_scheduler_address_is_one_line(tmp_path, capsys, address):
    err = _one_line_exit_2(["report", "--model", "glove-6b-50d", "--quick", "--out", str(tmp_path),
                            "--scheduler", address], capsys)
    assert "--scheduler" in err and "tcp://host:8786" in err
    with pytest.raises(ReportInputError, match="not of the form"):
        Report(["glove-6b-50d"], out=tmp_path, scheduler=address)


def test_a_scheduler_that_does_not_answer_is_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(report_runner, "CONNECT_TIMEOUT", 2.0)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    err = _one_line_exit_2(["report", "--model", "glove-6b-50d", "--quick", "--out", str(tmp_path / "r"),
                            "--no-progress", "--scheduler", f"tcp://127.0.0.1:{port}"], capsys)
    assert time.perf_counter() - t0 < 30
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port} within 2 s" in err and "--workers N" in err
    assert not (tmp_path / "r" / "report.json").exists()


@pytest.mark.parametrize("workers", ["0", "-1"])
def test_workers_below_one_is_one_line(tmp_path, capsys, workers):
    err = _one_line_exit_2(["report", "--model", "glove-6b-50d", "--quick", "--out", str(tmp_path), "--workers",
                            workers], capsys)
    assert f"--workers must be a whole number >= 1, got {workers}" in err
