"""What a report reads back from its folder is checked before it is used: a saved section and ``report.json``.

A file can be damaged (cut short, not UTF-8, not JSON) or edited into another shape (a key missing, a table that
is a string). :func:`section_problem` and :func:`report_problem` say in one phrase what is wrong (None when
nothing is), naming the key; :func:`read_report` raises one :class:`ReportFileError` naming the file and the
problem, where a bare ``JSONDecodeError``, ``KeyError`` or ``AttributeError`` would name neither.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCHEMA = "embias-report/2"
"""The ``schema`` of every ``report.json`` this version writes."""
READABLE_SCHEMAS = ("embias-report/1", SCHEMA)
"""Schemas a report is read at: /1 (before the findings, agreement, coverage and comparisons were data) and /2;
``ReportResult.to_dict`` always writes /2, computing the newer blocks from the sections."""
STATUSES = ("done", "skipped", "failed")


class ReportFileError(ValueError):
    """A ``report.json`` that cannot be read as a report (the message names the file and what is wrong)."""


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _bool(v: Any) -> bool:
    return isinstance(v, bool)


def _opt(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


def _list_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def _has(spec: dict[str, Callable[[Any], bool]]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, dict) and all(k in v and check(v[k]) for k, check in spec.items())


def _table(v: Any) -> bool:
    if not _has({"columns": _list_of(_str), "rows": _list_of(lambda r: isinstance(r, list))})(v):
        return False
    return all(len(r) == len(v["columns"]) for r in v["rows"])


Spec = dict[str, tuple[Callable[[Any], bool], str]]

_SECTION: Spec = {
    "id": (_str, "a string"), "title": (_str, "a string"), "method": (_str, "a string"),
    "model": (_str, "a string"), "what": (_str, "a string"),
    "status": (lambda v: v in STATUSES, f"one of {', '.join(STATUSES)}"), "reason": (_opt(_str), "a string or null"),
    "seconds": (_num, "a number"),
    "table": (_table, "a table ({columns: [names], rows: [[one cell per column], ...]})"),
    "published": (_list_of(lambda p: isinstance(p, dict)), "a list of objects"),
    "notes": (_list_of(_str), "a list of strings"),
}
_SAVED: Spec = {
    "tests": (_list_of(_has({"label": _str, "p": _opt(_num)})), "a list of {label, p}"),
    "chart": (_opt(_has({"x": _str, "y": _str})), "null or {x, y}"),
}
_WRITTEN: Spec = {
    "significance": (_list_of(_has({"label": _str, "p": _num, "p_holm": _num, "significant": _bool})),
                     "a list of {label, p, p_holm, significant}"),
    "figure": (_opt(lambda v: isinstance(v, dict) and all(_opt(_str)(v.get(k)) for k in ("svg_path", "png_path"))),
               "null or {svg, svg_path, png_path}"),
}
_OPTIONAL_WRITTEN: Spec = {"chart": _SAVED["chart"]}
_REPORT: Spec = {
    "schema": (_str, "a string"), "title": (_str, "a string"), "quick": (_bool, "true or false"),
    "provenance": (_has({"seconds": _num, "options": lambda v: isinstance(v, dict)}), "{seconds, options, ...}"),
    "models": (_list_of(_has({"name": _str, "kind": _str})), "a list of {name, kind, fingerprint}"),
    "data_files": (lambda v: isinstance(v, dict), "an object"),
    "holm": (_has({"alpha": _num, "n_tests": lambda v: isinstance(v, int)}), "{alpha, n_tests}"),
    "sections": (lambda v: isinstance(v, list), "a list"),
}


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(v), "a number" if _num(v) else type(v).__name__)


def _problem(obj: Any, spec: Spec, *, optional: Spec | None = None) -> str | None:
    if not isinstance(obj, dict):
        return f"it is {_kind(obj)}, not an object"
    for key, (check, what) in spec.items():
        if key not in obj:
            return f"{key!r} is missing"
        if not check(obj[key]):
            shown = "" if isinstance(obj[key], dict | list) else f" (it is {_kind(obj[key])})"
            return f"{key!r} is not {what}{shown}"
    for key, (check, what) in (optional or {}).items():
        if key in obj and not check(obj[key]):
            return f"{key!r} is not {what}"
    return None


def section_problem(section: Any, *, written: bool = False) -> str | None:
    """What is wrong with a section record, None when nothing: as saved under ``sections/`` (with ``tests`` and
    ``chart``), or as ``report.json`` holds it (``written``: with ``significance`` and ``figure``)."""
    problem = _problem(section, _SECTION)
    if problem is None:
        problem = _problem(section, _WRITTEN, optional=_OPTIONAL_WRITTEN) if written else _problem(section, _SAVED)
    return problem


def report_problem(report: Any, schema: str | tuple[str, ...]) -> str | None:
    """What is wrong with a ``report.json`` object of ``schema`` (one, or a tuple of those accepted; its keys and
    every section), None when nothing."""
    accepted = (schema,) if isinstance(schema, str) else tuple(schema)
    if isinstance(report, dict) and report.get("schema") not in accepted:
        return (f"it is not an embias report (schema {report.get('schema')!r}, expected "
                f"{' or '.join(map(repr, accepted))})")
    problem = _problem(report, _REPORT)
    if problem is not None:
        return problem
    for i, s in enumerate(report["sections"]):
        problem = section_problem(s, written=True)
        if problem is not None:
            label = f" ({s['id']!r})" if isinstance(s, dict) and _str(s.get("id")) else ""
            return f"section {i + 1}{label}: {problem}"
    return None


def read_report(path: Path, schema: str | tuple[str, ...]) -> dict[str, Any]:
    """``report.json`` at ``path`` as a dict, or one :class:`ReportFileError` naming the file and what is wrong."""
    fix = "run embias report again to write it, or give the report.json that embias report wrote"
    try:
        report = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as err:
        raise ReportFileError(f"{path}: cannot be read ({err.strerror or err}); {fix}") from None
    except UnicodeDecodeError as err:
        raise ReportFileError(f"{path}: is not UTF-8 text (byte {err.start}); {fix}") from None
    except ValueError as err:
        raise ReportFileError(f"{path}: is not valid JSON ({err}); {fix}") from None
    problem = report_problem(report, schema)
    if problem is not None:
        raise ReportFileError(f"{path}: is not a whole embias report: {problem}; {fix}")
    return report
