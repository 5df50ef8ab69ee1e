"""Shared by the report's hostile-user tests: a small word-vector file, a stand-in section and ``embias report``
run in this process.

The models are small word-vector files written from the embedded GloVe vectors (the words of WEAT 1-10, their b
variants and the definitional pairs). Where what is under test is the report's bookkeeping (ids, file names, saved
sections, locks, reading report.json back, a model that fails to load), the sections are replaced by
:func:`first_number`, which reads the model's own file: each section's number is its model's and nothing else's.
The analyses themselves run in tests/test_report.py and tests/test_report_cli.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_inprocess import Run, embias_inprocess

from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.plan import WEAT_TESTS
from embias_widgets.analysis.report.sections import outcome


def write_vectors(glove, path: Path) -> Path:
    """A word-vector file of every word the static sections need (395 of GloVe's words, 50 dimensions)."""
    from embias_widgets.stimuli import load_bundled_test
    from embias_widgets.stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS

    words = {w for pair in BOLUKBASI_DEFINITIONAL_PAIRS for w in pair}
    for test in WEAT_TESTS:
        words |= {w for s in load_bundled_test(test).sets().values() for i in s.examples for w in i.lower().split()}
    path.write_text("".join(f"{w} {' '.join(f'{x:.6f}' for x in glove.vector(w))}\n"
                            for w in sorted(words) if w in glove.index))
    return path


def copy_vectors(vectors: Path, dest: Path, *, scale: float = 1.0) -> str:
    """``vectors`` at ``dest`` (its numbers times ``scale``, so two copies can differ): the path as a string."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    lines = [line.split() for line in vectors.read_text().splitlines()]
    dest.write_text("".join(f"{w[0]} {' '.join(f'{float(x) * scale:.6f}' for x in w[1:])}\n" for w in lines))
    return str(dest)


def first_number(spec, chart: bool = False) -> dict:
    """A stand-in section: the first number of the model's file and its own test; a chart for the weat section."""
    value = float(Path(spec.model.name).read_text().split()[1])
    xy = {"x": "value", "y": "row"} if chart and spec.method == "weat" else {}
    return outcome(["row", "value"], [["first number", value]], tests=[{"label": spec.method, "p": 0.5}], **xy)


@pytest.fixture(scope="module")
def vectors_fixture(glove, tmp_path_factory) -> Path:
    """:func:`write_vectors` once per module (``vectors = vectors_fixture`` in a test module)."""
    return write_vectors(glove, tmp_path_factory.mktemp("vectors") / "vec.txt")


@pytest.fixture
def stand_in_fixture(monkeypatch):
    """Every section is :func:`first_number` (``stand_in = stand_in_fixture`` in a test module)."""
    monkeypatch.setattr(report_runner, "run_section", lambda spec: (first_number(spec), 0.01))


def report_json(out: Path) -> dict:
    return json.loads((out / "report.json").read_text())


def report_ok(*argv: str) -> Run:
    """``embias report --quick --no-progress ARGV``: exit status 0, no internal error."""
    run = embias_inprocess("report", "--quick", "--no-progress", *argv)
    assert run.returncode == 0, run.stderr
    assert "internal error" not in run.stderr and "Traceback" not in run.stderr
    return run


def report_refused(*argv: str) -> str:
    """``embias report --quick --no-progress ARGV``: exit status 2 and its one error line."""
    run = embias_inprocess("report", "--quick", "--no-progress", *argv)
    err = run.stderr.strip().splitlines()
    assert run.returncode == 2 and err[-1].startswith("embias report: error: "), run.stderr
    assert "Traceback" not in run.stderr
    return err[-1]
