"""Reading one BBQ line into checked fields, finding the files of a folder, and reading the authors' metadata file
(:func:`~embias_widgets.stimuli.bbq.load_bbq` is the public entry point)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .text_files import read_utf8

__all__ = ["BbqFileError", "collect_files", "item_row", "numbered_lines", "read_metadata"]

POLARITIES = ("neg", "nonneg")
CONDITIONS = ("ambig", "disambig")
_LAYOUT = ("each line is one JSON object with example_id, question_index, question_polarity, context_condition, "
           "category, context, question, ans0, ans1, ans2, label, answer_info and "
           "additional_metadata.stereotyped_groups, as in BBQ's data/<Category>.jsonl")


class BbqFileError(ValueError):
    """A BBQ file that cannot be read: names the file, the line, the field and the fix."""


def _text(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        got = "nothing" if key not in obj else f"{type(value).__name__} {value!r}"
        raise BbqFileError(f"{where}: field {key!r} must be a string, got {got}; {_LAYOUT}")
    return value


def _whole(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool):
        value = None
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    if isinstance(value, int):
        return value
    raise BbqFileError(f"{where}: field {key!r} must be a whole number (or a string of one), got {value!r}")


def _answer_info(obj: dict[str, Any], where: str) -> tuple[list[str], list[str]]:
    info = obj.get("answer_info")
    if not isinstance(info, dict):
        raise BbqFileError(f"{where}: field 'answer_info' must be an object "
                           '{"ans0": [text, group], "ans1": [...], "ans2": [...]}, got ' f"{info!r}")
    texts, groups = [], []
    for k in range(3):
        pair = info.get(f"ans{k}")
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise BbqFileError(f"{where}: answer_info.ans{k} must be a list [text, group] of two strings, "
                               f"got {pair!r}")
        texts.append(pair[0])
        groups.append(pair[1])
    return texts, groups


def _stereotyped(obj: dict[str, Any], where: str) -> list[str]:
    meta = obj.get("additional_metadata")
    groups = meta.get("stereotyped_groups") if isinstance(meta, dict) else None
    if not (isinstance(groups, list) and all(isinstance(g, str) for g in groups)):
        raise BbqFileError(f"{where}: additional_metadata.stereotyped_groups must be a list of group names "
                           f"(an empty list if none), got {groups!r}")
    return groups


def item_row(line: str, file: Path, number: int) -> dict[str, Any]:
    """One BBQ line as a dict of checked fields (``where`` is ``"<file>: line <n>"``)."""
    where = f"{file}: line {number}"
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        raise BbqFileError(f"{where}: not JSON ({err.msg} at column {err.colno}); {_LAYOUT}") from None
    if not isinstance(obj, dict):
        raise BbqFileError(f"{where}: a JSON {type(obj).__name__}, not an object; {_LAYOUT}")
    row: dict[str, Any] = {"where": where}
    for key in ("category", "context", "question"):
        row[key] = _text(obj, key, where)
    row["answers"] = [_text(obj, f"ans{k}", where) for k in range(3)]
    row["example_id"] = _whole(obj.get("example_id"), "example_id", where)
    row["question_index"] = _whole(obj.get("question_index"), "question_index", where)
    for key, allowed in (("question_polarity", POLARITIES), ("context_condition", CONDITIONS)):
        value = obj.get(key)
        if value not in allowed:
            raise BbqFileError(f"{where}: field {key!r} must be one of {allowed}, got {value!r}")
        row[key] = value
    label = obj.get("label")
    if isinstance(label, bool) or label not in (0, 1, 2):
        raise BbqFileError(f"{where}: field 'label' must be 0, 1 or 2 (the index of the correct answer), "
                           f"got {label!r}")
    row["label"] = int(label)
    row["answer_text"], row["answer_info"] = _answer_info(obj, where)
    unknown = [k for k, g in enumerate(row["answer_info"]) if g == "unknown"]
    if len(unknown) != 1:
        raise BbqFileError(f"{where}: answer_info must mark exactly one answer's group as 'unknown' (the "
                           f"'cannot be determined' answer), found {len(unknown)}: {row['answer_info']}")
    row["unknown_loc"] = unknown[0]
    row["stereotyped_groups"] = _stereotyped(obj, where)
    meta = obj.get("additional_metadata")
    row["subcategory"] = str(meta.get("subcategory", "")) if isinstance(meta, dict) else ""
    return row


def collect_files(path: Path, wanted: tuple[str, ...] | None, known: tuple[str, ...]) -> list[Path]:
    """The ``.jsonl`` files to read: ``path`` itself, or the folder's (its ``data/`` subfolder when the folder
    has none of its own), sorted; files named after a known category not in ``wanted`` are skipped unread."""
    if path.is_file():
        return [path]
    files = sorted(path.glob("*.jsonl"))
    if not files and (path / "data").is_dir():
        files = sorted((path / "data").glob("*.jsonl"))
    if not files:
        raise BbqFileError(f"{path}: no .jsonl files here (nor in {path / 'data'}); give a folder holding BBQ's "
                           "<Category>.jsonl files (embias data fetch bbq) or one such file")
    if wanted is None:
        return files
    stem = lambda f: f.stem.removeprefix("preds_")  # noqa: E731 - a one-line name rule
    return [f for f in files if stem(f) not in known or stem(f) in wanted]


def read_metadata(path: Path) -> dict[tuple[str, int, int], tuple[int, str]]:
    """The authors' ``additional_metadata.csv``: ``{(category, question_index, example_id): (target_loc,
    label_type)}``, ``target_loc`` ``-1`` where the file leaves it empty (``NA``)."""
    out: dict[tuple[str, int, int], tuple[int, str]] = {}
    with io.StringIO(read_utf8(path, what="metadata .csv file"), newline="") as fh:
        reader = csv.DictReader(fh)
        need = {"category", "question_index", "example_id", "target_loc", "label_type"}
        lacking = sorted(need - set(reader.fieldnames or ()))
        if lacking:
            raise BbqFileError(f"{path}: line 1 (header) lacks column(s) {lacking}; give the authors' "
                               "analysis_scripts/additional_metadata.csv")
        for number, rec in enumerate(reader, start=2):
            try:
                key = (rec["category"], int(rec["question_index"]), int(rec["example_id"]))
                raw = rec["target_loc"].strip()
                target = -1 if raw in ("", "NA") else int(float(raw))
            except ValueError as err:
                raise BbqFileError(f"{path}: line {number}: {err}; question_index, example_id and target_loc "
                                   "must be whole numbers (target_loc may be empty)") from None
            out[key] = (target, rec["label_type"] or "label")
    return out


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a JSON Lines file read as UTF-8 (a byte-order mark dropped; bytes that are not
    UTF-8 named with their line by :func:`~.text_files.read_utf8`), split on newlines only (JSON allows U+2028
    inside strings)."""
    return enumerate(read_utf8(path, what="JSON Lines (.jsonl) file").split("\n"), start=1)
