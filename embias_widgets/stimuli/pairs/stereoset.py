"""StereoSet (Nadeem et al. 2021): the official nested dev JSON (``data.intrasentence[].sentences[]`` with
``gold_label``) or a flat JSON Lines file with ``stereotype``, ``anti-stereotype`` and ``unrelated`` fields."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import PairFileError
from ..text_files import read_utf8
from .download import local_path
from .sentence_pair import SentencePair

__all__ = ["STEREOSET_KINDS", "read_stereoset"]

STEREOSET_KINDS = ("intrasentence", "intersentence")
_GOLD = {"stereotype": "stereo", "anti-stereotype": "anti", "unrelated": "unrelated"}


def _stereoset_text(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PairFileError(f"{where}: {key!r} must be a sentence (a string), got {type(value).__name__} {value!r}")
    return value.strip()


def _stereoset_pair(item: Mapping[str, Any], kind: str, where: str) -> SentencePair:
    sentences = {
        role: _stereoset_text(item, key, where)
        for key, role in (
            ("stereotype", "stereo"),
            ("anti-stereotype", "anti"),
            ("unrelated", "unrelated"),
        )
    }
    missing = [role for role, text in sentences.items() if not text]
    if missing:
        raise PairFileError(f"{where}: no {'/'.join(missing)} sentence; each item needs all three")
    if kind == "intersentence":  # score the context and its continuation as one text
        context = _stereoset_text(item, "context", where)
        sentences = {role: f"{context} {text}".strip() for role, text in sentences.items()}
    return SentencePair(
        stereo=sentences["stereo"],
        anti=sentences["anti"],
        unrelated=sentences["unrelated"],
        bias_type=str(item.get("bias_type", "")),
        target=str(item.get("target", "")),
        pair_id=str(item.get("id", "")),
        source=where.rsplit(": ", 1)[-1],
    )


def _official_items(data: Mapping[str, Any], path: Path, kind: str) -> Iterable[tuple[dict, str]]:
    if not isinstance(data.get("data"), Mapping) or kind not in data["data"]:
        raise PairFileError(
            f"{path}: not the official StereoSet layout (expected data.{kind}[]); "
            "give the official dev.json or the flat jsonl"
        )
    items = data["data"][kind]
    if not isinstance(items, list):
        raise PairFileError(f"{path}: data.{kind} must be a list of items, got {type(items).__name__}")
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise PairFileError(f"{path}: data.{kind}[{i}] must be an object, got {type(item).__name__} {item!r:.60}")
        where = f"{path}: data.{kind}[{i}] (id {item.get('id', '?')})"
        flat: dict[str, Any] = {k: item.get(k) for k in ("id", "target", "bias_type", "context")}
        sentences = item.get("sentences", ())
        if not isinstance(sentences, list) or not all(isinstance(s, Mapping) for s in sentences):
            raise PairFileError(f"{where}: 'sentences' must be a list of objects with 'sentence' and 'gold_label'")
        for sentence in sentences:
            label = sentence.get("gold_label")
            if label not in _GOLD:
                raise PairFileError(f"{where}: gold_label {label!r} is not one of {sorted(_GOLD)}")
            field = {"stereo": "stereotype", "anti": "anti-stereotype"}.get(_GOLD[label], "unrelated")
            if field in flat:
                raise PairFileError(
                    f"{where}: two sentences with gold_label {label!r} ({flat[field]!r:.60} and "
                    f"{sentence.get('sentence')!r:.60}); an item has one stereotype, one anti-stereotype and one "
                    "unrelated sentence: keep one"
                )
            flat[field] = sentence.get("sentence")
        yield flat, where


def read_stereoset(path: str | Path, *, kind: str = "intrasentence") -> list[SentencePair]:
    """StereoSet items as pairs (with ``unrelated``), from the official JSON or the flat jsonl.

    ``kind="intersentence"`` joins each context and its candidate continuation
    into one text to score (StereoSet itself scores those with a next-sentence
    head, which masked-LM likelihood does not use).
    """
    if kind not in STEREOSET_KINDS:
        raise ValueError(f"`kind` must be one of {STEREOSET_KINDS}, got {kind!r}")
    path = local_path(path, None)
    text = read_utf8(path, what="StereoSet file")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    pairs: list[SentencePair] = []
    _stereoset_iv(whole, text, path)
    if isinstance(whole, Mapping) and "data" in whole:
        for item, where in _official_items(whole, path, kind):
            pairs.append(_stereoset_pair(item, kind, where))
        return _unique_ids(pairs)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as err:
            raise PairFileError(f"{where}: not JSON ({err.msg} at column {err.colno})") from None
        if not isinstance(item, Mapping):
            raise PairFileError(f"{where}: expected a JSON object per line")
        if item.get("type", kind) not in STEREOSET_KINDS:
            raise PairFileError(f"{where}: type {item['type']!r} is not one of {STEREOSET_KINDS}")
        if item.get("type", kind) != kind:
            continue
        pairs.append(_stereoset_pair(item, kind, where))
    return _unique_ids(pairs)


def _stereoset_iv(whole: Any, text: str, path: Path) -> None:
    """A StereoSet file is the official object with ``data`` or JSON Lines; name any other JSON shape."""
    fix = "give the official dev.json (an object with data.intrasentence[]) or JSON Lines (one item per line)"
    if isinstance(whole, list):
        raise PairFileError(f"{path}: a JSON array, not a StereoSet file; {fix}")
    if isinstance(whole, Mapping) and "data" not in whole and len(text.strip().splitlines()) > 1:
        raise PairFileError(f"{path}: a JSON object without the top-level key 'data' (keys {sorted(whole)[:8]}); {fix}")


def _unique_ids(pairs: list[SentencePair]) -> list[SentencePair]:
    """``pairs``, unless two items share an id (a file joined twice, or items merged by hand): named, never kept."""
    first: dict[str, str] = {}
    for pair in pairs:
        if pair.pair_id and pair.pair_id in first:
            raise PairFileError(
                f"{pair.source}: id {pair.pair_id!r} again (first at {first[pair.pair_id]}); each StereoSet item "
                "once: remove the repeat"
            )
        first.setdefault(pair.pair_id, pair.source)
    return pairs
