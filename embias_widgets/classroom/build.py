"""Build the instructor and student notebooks of an assignment from ONE source file.

Source format (``notebooks/assignments/src/*.nbsrc``): cells separated by header lines

``%% markdown`` / ``%% code``
    Given cells (read-only for nbgrader: ``locked``).
``%% solution id=ID``
    A code cell the student fills in; the solution lies between ``### BEGIN SOLUTION`` and
    ``### END SOLUTION`` (nbgrader's markers). The student version replaces it with nbgrader's
    default stub, ``# YOUR CODE HERE`` / ``raise NotImplementedError()``.
``%% check id=ID points=N``
    An autograded cell (nbgrader ``grade``): a self-check, ``check("weat-1", answer)``.
``%% answer id=ID points=N``
    A written answer (markdown, graded by hand); the student version holds ``YOUR ANSWER HERE``.

Outputs: ``instructor/NAME.ipynb`` (solutions, nbgrader cell metadata: what a course puts in
nbgrader's ``source/`` folder) and ``NAME.ipynb`` (what ``nbgrader generate_assignment`` would
release: solutions stubbed, same metadata). Run ``python -m embias_widgets.classroom.build``.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
KINDS = ("markdown", "code", "solution", "check", "answer")
HEADER = re.compile(r"^%% (\w+)((?: \w+=\S+)*)\s*$")
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "notebooks" / "assignments"


class SourceError(ValueError):
    """A malformed assignment source: names the file and line."""


def parse(path: Path) -> list[dict[str, Any]]:
    """The cells of a source file: ``{"kind", "source", "attrs", "line"}``."""
    cells: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = HEADER.match(line)
        if m:
            kind = m.group(1)
            if kind not in KINDS:
                raise SourceError(f"{path}:{number}: unknown cell kind {kind!r}; use one of {', '.join(KINDS)}")
            attrs = dict(a.split("=", 1) for a in m.group(2).split())
            if kind in ("solution", "check", "answer") and "id" not in attrs:
                raise SourceError(f"{path}:{number}: a {kind} cell needs id=...")
            if kind in ("check", "answer") and "points" not in attrs:
                raise SourceError(f"{path}:{number}: a {kind} cell needs points=N")
            cells.append({"kind": kind, "lines": [], "attrs": attrs, "line": number})
        elif cells:
            cells[-1]["lines"].append(line)
        elif line.strip():
            raise SourceError(f"{path}:{number}: text before the first '%% <kind>' header")
    for cell in cells:
        cell["source"] = "\n".join(cell.pop("lines")).strip("\n")
        if cell["kind"] == "solution" and (BEGIN not in cell["source"] or END not in cell["source"]):
            raise SourceError(f"{path}:{cell['line']}: a solution cell needs {BEGIN!r} ... {END!r}")
    return cells


def _meta(grade_id: str, *, grade: bool, solution: bool, locked: bool, points: float | None = None) -> dict:
    meta: dict[str, Any] = {
        "grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
        "task": False,
    }
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def stub_solution(source: str) -> str:
    """What nbgrader's ClearSolutions leaves of a solution cell: each region -> the code stub."""
    out, inside = [], False
    for line in source.splitlines():
        if line.strip() == BEGIN:
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + s for s in CODE_STUB.splitlines())
        elif line.strip() == END:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def build_notebooks(src: Path) -> tuple[Any, Any]:
    """(instructor, student) notebooks of one source file."""
    import nbformat

    v4 = nbformat.v4
    stem = src.stem
    instructor, student = [], []
    for i, cell in enumerate(parse(src)):
        kind, text, attrs = cell["kind"], cell["source"], cell["attrs"]
        if kind == "markdown":
            meta = _meta(f"{stem}-given-{i}", grade=False, solution=False, locked=True)
            pair = (v4.new_markdown_cell(text, metadata=meta), v4.new_markdown_cell(text, metadata=meta))
        elif kind == "code":
            meta = _meta(f"{stem}-given-{i}", grade=False, solution=False, locked=True)
            pair = (v4.new_code_cell(text, metadata=meta), v4.new_code_cell(text, metadata=meta))
        elif kind == "solution":
            meta = _meta(attrs["id"], grade=False, solution=True, locked=False)
            pair = (v4.new_code_cell(text, metadata=meta), v4.new_code_cell(stub_solution(text), metadata=meta))
        elif kind == "check":
            meta = _meta(attrs["id"], grade=True, solution=False, locked=True, points=float(attrs["points"]))
            pair = (v4.new_code_cell(text, metadata=meta), v4.new_code_cell(text, metadata=meta))
        else:  # answer
            meta = _meta(attrs["id"], grade=True, solution=True, locked=False, points=float(attrs["points"]))
            pair = (v4.new_markdown_cell(text, metadata=meta), v4.new_markdown_cell(TEXT_STUB, metadata=meta))
        instructor.append(pair[0])
        student.append(pair[1])
    out = []
    for cells in (instructor, student):
        nb = v4.new_notebook(cells=cells)
        nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
        nb.metadata["language_info"] = {"name": "python"}
        for n, c in enumerate(nb.cells):  # stable ids: rebuilding gives identical files
            c["id"] = f"{stem[:40]}-{n}".replace("_", "-")
        out.append(nb)
    return out[0], out[1]


def build(directory: Path = DEFAULT_DIR, out: Path | None = None) -> list[Path]:
    """Write ``instructor/NAME.ipynb`` and ``NAME.ipynb`` for every ``src/*.nbsrc``; returns the paths."""
    import nbformat

    out = out or directory
    written = []
    for src in sorted((directory / "src").glob("*.nbsrc")):
        instructor, student = build_notebooks(src)
        (out / "instructor").mkdir(parents=True, exist_ok=True)
        for nb, path in ((instructor, out / "instructor" / f"{src.stem}.ipynb"), (student, out / f"{src.stem}.ipynb")):
            nbformat.validate(nb)
            nbformat.write(nb, path)
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR,
                    help="folder with src/*.nbsrc (default: notebooks/assignments)")
    args = ap.parse_args(argv)
    try:
        for path in build(args.directory):
            print(path)
    except SourceError as err:
        print(f"error: {err}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
