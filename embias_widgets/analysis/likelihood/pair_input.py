"""Pairs as a user gives them (tuples, dicts, :class:`SentencePair`, a widget's typed records) made into
:class:`~embias_widgets.stimuli.pairs.SentencePair` objects, with errors that name the pair."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ...stimuli.pairs import SentencePair
from ...stimuli.text_files import read_utf8

__all__ = ["as_pair", "as_pairs", "is_pairs_json", "pair_from_record", "pair_record", "read_pairs_json"]


def check_pairs(pairs: Any) -> Iterable[Any]:
    """``pairs`` must be a collection of pairs: not None, not one sentence, not a single pair's dict."""
    if pairs is None or isinstance(pairs, str | bytes | dict | SentencePair) or not isinstance(pairs, Iterable):
        raise TypeError(
            f"pairs must be a list of (stereo, anti[, bias_type]) tuples, dicts or SentencePairs, "
            f"not {type(pairs).__name__}{'' if pairs is None else ' ' + repr(pairs)[:60]}: wrap one pair "
            "in a list, or read a file with stimuli.read_pairs"
        )
    return pairs


def as_pair(value: Any, *, where: str = "pair") -> SentencePair:
    """A :class:`SentencePair` from a pair, a tuple or a dict; ``ValueError`` names ``where``."""
    if isinstance(value, SentencePair):
        value.check(where)
        return value
    if isinstance(value, dict):
        return SentencePair.from_dict(value, where=where)
    if isinstance(value, tuple | list) and len(value) in (2, 3) and all(isinstance(v, str) for v in value):
        pair = SentencePair(value[0], value[1], value[2] if len(value) == 3 else "")
        pair.check(where)
        return pair
    raise ValueError(f"{where}: give (stereo, anti[, bias_type]), a dict or a SentencePair, not {value!r}")


def as_pairs(pairs: Any) -> list[SentencePair]:
    """Every pair of ``pairs`` checked (:func:`as_pair`), named ``pair 0``, ``pair 1``, ... in errors."""
    return [as_pair(p, where=f"pair {i}") for i, p in enumerate(check_pairs(pairs))]


def pair_record(pair: SentencePair) -> dict[str, str]:
    """What a user typed for ``pair``: ``{"stereo", "anti", "bias_type"[, "sense_key", "direction"]}``."""
    record = {"stereo": pair.stereo, "anti": pair.anti, "bias_type": pair.bias_type}
    if pair.sense_key:
        record["sense_key"] = pair.sense_key
    if pair.direction != "stereo":
        record["direction"] = pair.direction
    return record


def pair_from_record(record: Mapping[str, Any]) -> SentencePair:
    """A pair as typed: empty sentences are kept (and reported on their row when scored), not raised."""
    return SentencePair(
        stereo=str(record.get("stereo", "")),
        anti=str(record.get("anti", "")),
        bias_type=str(record.get("bias_type", "")).strip(),
        sense_key=str(record.get("sense_key", "") or "").strip(),
        direction=str(record.get("direction", "stereo")).strip() or "stereo",
    )


def is_pairs_json(path: str | Path) -> bool:
    """Whether ``path`` is a local JSON file holding an array: the likelihood table's "Pairs JSON" export
    (a StereoSet file is an object or JSON Lines)."""
    p = Path(path)
    if p.suffix.lower() != ".json" or not p.is_file():
        return False
    with open(p, "rb") as handle:  # a peek only: the reader that follows names bytes that are not UTF-8
        head = handle.read(4096).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    return head.startswith("[")


def read_pairs_json(path: str | Path, *, limit: int | None = None) -> list[SentencePair]:
    """The pairs of a "Pairs JSON" export (``[{"stereo", "anti", "bias_type"[, "sense_key", "direction"]}]``,
    :func:`pair_record`'s layout, or CrowS-Pairs names), each checked and named by its position in the file;
    at most ``limit`` (at least 1) of them."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"`limit` must be at least 1, got {limit}")  # -1 would silently drop the last pair
    text = read_utf8(path, what='"Pairs JSON" file')
    try:
        records = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ValueError(f"{path}: a pairs file is a JSON array of objects "
                         '({"stereo": ..., "anti": ..., "bias_type": ...}), as the table\'s "Pairs JSON" export')
    if not records:
        raise ValueError(f"{path}: the array holds no pair; add at least one")
    pairs = [SentencePair.from_dict(r, where=f"{path}: pair {i}") for i, r in enumerate(records)]
    return pairs if limit is None else pairs[:limit]
