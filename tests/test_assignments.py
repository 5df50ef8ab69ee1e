"""Classroom assignments: one source -> instructor + student notebooks; the self-checks pass on the
instructor's solutions and fail on the blank student version; nbgrader releases the same student version."""

from __future__ import annotations

import copy
import math
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from test_notebooks import SHUTDOWN

from embias_widgets.classroom import CHECKS, check
from embias_widgets.classroom.build import SourceError, build, parse, stub_solution

ROOT = Path(__file__).resolve().parent.parent
ASSIGNMENTS = ROOT / "notebooks" / "assignments"
SOURCES = sorted((ASSIGNMENTS / "src").glob("*.nbsrc"))
STEMS = [p.stem for p in SOURCES]
RESULT = re.compile(r"^([✔✘]) \[([\w-]+)\]", re.M)


def _check_ids(nb) -> list[str]:
    """Ids of the self-checks the notebook's graded cells call."""
    return [m for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade") and c.cell_type == "code"
            for m in re.findall(r'check\("([\w-]+)"', c.source)]


def _execute(path: Path, tmp_path: Path, *, allow_errors: bool) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=allow_errors,
                   resources={"metadata": {"path": str(tmp_path)}}, shutdown_kernel=SHUTDOWN).execute()
    return nb


def _results(nb) -> dict[str, str]:
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    return {cid: mark for mark, cid in RESULT.findall(text)}


def test_there_are_three_to_five_assignments():
    assert 3 <= len(SOURCES) <= 5
    for stem in STEMS:
        assert (ASSIGNMENTS / f"{stem}.ipynb").is_file() and (ASSIGNMENTS / "instructor" / f"{stem}.ipynb").is_file()


def test_built_notebooks_are_in_sync_with_their_source(tmp_path):
    shutil.copytree(ASSIGNMENTS / "src", tmp_path / "src")
    written = build(tmp_path)
    assert len(written) == 2 * len(SOURCES)
    for path in written:
        committed = ASSIGNMENTS / path.relative_to(tmp_path)
        assert nbformat.read(path, as_version=4) == nbformat.read(committed, as_version=4), (
            f"{committed.relative_to(ROOT)} is stale: run python -m embias_widgets.classroom.build")


@pytest.mark.parametrize("stem", STEMS)
def test_every_check_cell_names_a_known_check_and_ids_are_unique(stem):
    nb = nbformat.read(ASSIGNMENTS / "instructor" / f"{stem}.ipynb", as_version=4)
    ids = _check_ids(nb)
    assert ids and all(i in CHECKS for i in ids)
    grade_ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells]
    assert len(set(grade_ids)) == len(grade_ids)


@pytest.mark.parametrize("stem", STEMS)
def test_nbgrader_release_of_instructor_version_is_the_student_version(stem):
    """nbgrader's own preprocessors (as in ``generate_assignment``) turn the instructor notebook into ours."""
    from nbgrader.preprocessors import CheckCellMetadata, ClearOutput, ClearSolutions

    instructor = nbformat.read(ASSIGNMENTS / "instructor" / f"{stem}.ipynb", as_version=4)
    student = nbformat.read(ASSIGNMENTS / f"{stem}.ipynb", as_version=4)
    released = copy.deepcopy(instructor)
    for pre in (CheckCellMetadata(), ClearSolutions(), ClearOutput()):
        released, _ = pre.preprocess(released, {})
    assert [(c.cell_type, c.source) for c in released.cells] == [(c.cell_type, c.source) for c in student.cells]
    assert [c.metadata["nbgrader"] for c in released.cells] == [c.metadata["nbgrader"] for c in student.cells]
    assert "BEGIN SOLUTION" not in "".join(c.source for c in student.cells)
    points = [c.metadata["nbgrader"].get("points") for c in student.cells if c.metadata["nbgrader"]["grade"]]
    assert points and all(p > 0 for p in points)


@pytest.mark.notebook
@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_instructor_solutions_pass_every_self_check(stem, tmp_path):
    nb = _execute(ASSIGNMENTS / "instructor" / f"{stem}.ipynb", tmp_path, allow_errors=False)
    results = _results(nb)
    ids = _check_ids(nb)
    assert results == dict.fromkeys(ids, "✔"), results


@pytest.mark.notebook
@pytest.mark.parametrize("stem", STEMS)
def test_blank_student_version_fails_every_self_check(stem, tmp_path):
    nb = _execute(ASSIGNMENTS / f"{stem}.ipynb", tmp_path, allow_errors=True)
    results = _results(nb)
    ids = _check_ids(nb)
    assert results == dict.fromkeys(ids, "✘"), results
    errors = [o.ename for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.output_type == "error"]
    assert errors and set(errors) == {"NotImplementedError"}  # the stubs, nothing else


# -- the check function itself -----------------------------------------------------------------


def test_single_word_check_against_ethayarajh_proposition_2(capsys):
    """With one word per set and ddof=1, |d| = sqrt(2) whatever the words (hand-derived, not the library)."""
    assert check("weat-6", math.sqrt(2))
    assert "✔ [weat-6]" in capsys.readouterr().out
    wrong = check("weat-6", 2.0)  # the ddof=0 value
    assert not wrong and "Hint:" in wrong.message and "2 is not it" in wrong.message


def test_wrong_kinds_of_answer_say_what_was_expected(capsys):
    assert "expected a number" in check("weat-6", "sqrt 2").message
    assert "no answer yet" in check("weat-1", None).message
    assert "expected True or False" in check("ripa-6", "yes").message
    with pytest.raises(KeyError, match="weat-1"):
        check("no-such-check", 1)


def test_autograder_raises_on_a_wrong_answer(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(AssertionError, match=r"weat-6"):
        check("weat-6", 1.0)
    assert check("weat-6", math.sqrt(2))


def test_source_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "x.nbsrc"
    bad.write_text("%% markdown\n# hi\n%% solution\nx = 1\n")
    with pytest.raises(SourceError, match=r"x\.nbsrc:3: a solution cell needs id"):
        parse(bad)
    bad.write_text("%% solution id=a\nx = 1\n")
    with pytest.raises(SourceError, match="BEGIN SOLUTION"):
        parse(bad)
    bad.write_text("%% check id=a\ncheck('a', x)\n")
    with pytest.raises(SourceError, match="points"):
        parse(bad)


def test_stub_keeps_code_outside_the_solution_region():
    src = "x = None\n### BEGIN SOLUTION\nx = 42\n### END SOLUTION\nprint(x)"
    assert stub_solution(src) == "x = None\n# YOUR CODE HERE\nraise NotImplementedError()\nprint(x)"
