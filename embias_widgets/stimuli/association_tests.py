"""Association-test definitions: four named word (or sentence) sets.

The sent-bias test file (May et al. 2019) is one JSON object::

    {"targ1": {"category": "Flowers", "examples": ["aster", ...]},
     "targ2": {...}, "attr1": {...}, "attr2": {...}}

Files in the wild are pretty-printed over many lines (sent-bias ``tests/``)
or one object per line; both are read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

SET_KEYS = ("targ1", "targ2", "attr1", "attr2")


class TestFileError(ValueError):
    """A test file that cannot be read, with the line and what to fix."""

    __test__ = False  # not a pytest class


@dataclass(frozen=True)
class WordSet:
    """One category and its items, in order, without duplicates."""

    category: str
    examples: tuple[str, ...]

    @classmethod
    def of(cls, category: str, examples: Iterable[str]) -> WordSet:
        return cls(category, tuple(examples))

    def to_json(self) -> dict:
        return {"category": self.category, "examples": list(self.examples)}


@dataclass(frozen=True)
class AssociationTestSpec:
    """A WEAT/SEAT test: targets X (targ1), Y (targ2), attributes A (attr1), B (attr2)."""

    __test__ = False  # not a pytest class

    name: str
    targ1: WordSet
    targ2: WordSet
    attr1: WordSet
    attr2: WordSet
    description: str = ""
    citation: str = ""
    notes: tuple[str, ...] = field(default=())

    def sets(self) -> dict[str, WordSet]:
        return {k: getattr(self, k) for k in SET_KEYS}

    def with_set(self, key: str, word_set: WordSet) -> AssociationTestSpec:
        if key not in SET_KEYS:
            raise KeyError(f"unknown set {key!r}: use one of {SET_KEYS}")
        return replace(self, **{key: word_set})

    def to_json(self) -> dict:
        """The sent-bias layout."""
        return {k: getattr(self, k).to_json() for k in SET_KEYS}


def clean_items(items: Iterable[str], *, where: str = "set") -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Strip items, drop blanks, deduplicate keeping the first; return (kept, duplicates).

    A set is a list (or tuple, ...) of strings: a bare string is not split into
    letters and an item that is not a string (``None``, a number, a dict) is not
    turned into text; both raise ``ValueError`` naming ``where`` and the item.
    """
    if isinstance(items, str | bytes):
        raise ValueError(f"{where} is the string {items!r}, not a set: give a list of items, e.g. [{items!r}]")
    if isinstance(items, dict) or not isinstance(items, Iterable):
        raise ValueError(f"{where} must be a list of strings, got {type(items).__name__} {items!r}")
    kept: list[str] = []
    seen: set[str] = set()
    dups: list[str] = []
    for position, raw in enumerate(items):
        if not isinstance(raw, str):
            raise ValueError(
                f"{where} item {position} is {type(raw).__name__} {raw!r}, not a string: type the word as text"
            )
        item = " ".join(raw.split())
        if not item:
            continue
        if item in seen:
            dups.append(item)
            continue
        seen.add(item)
        kept.append(item)
    return tuple(kept), tuple(dups)


def duplicates_note(key: str, duplicates: Iterable[str]) -> str:
    """The note for items listed more than once in set ``key``: each is kept once, so it counts once in d, p
    and every robustness check (word influence, subset stability) and in the set's size."""
    return (f"{key}: removed duplicate item(s) {', '.join(repr(d) for d in duplicates)}: listed more than once, "
            "each counts once (in n, d, p and the robustness checks)")


def spec_from_json(obj: object, *, name: str, source: str = "<json>") -> AssociationTestSpec:
    """Validate a sent-bias JSON object; errors name the key and what to fix."""
    if not isinstance(obj, dict):
        raise TestFileError(f"{source}: expected a JSON object with keys {', '.join(SET_KEYS)}")
    missing = [k for k in SET_KEYS if k not in obj]
    if missing:
        raise TestFileError(f"{source}: missing {', '.join(missing)}; a test needs {', '.join(SET_KEYS)}")
    sets = {}
    notes = []
    for key in SET_KEYS:
        entry = obj[key]
        if not isinstance(entry, dict) or "examples" not in entry:
            raise TestFileError(f"{source}: {key} must be an object with 'category' and 'examples'")
        examples = entry["examples"]
        if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
            raise TestFileError(f"{source}: {key}.examples must be a list of strings")
        kept, dups = clean_items(examples)
        if dups:
            notes.append(duplicates_note(key, dups))
        sets[key] = WordSet(str(entry.get("category", key)), kept)
    return AssociationTestSpec(
        name=name,
        description=str(obj.get("description", "")),
        citation=str(obj.get("citation", "")),
        notes=tuple(notes),
        **sets,
    )


def parse_test_text(text: str, *, name: str, source: str = "<text>") -> AssociationTestSpec:
    """Parse a sent-bias test file's text (one JSON object, possibly pretty-printed)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise TestFileError(
            f"{source}: line {err.lineno}, column {err.colno}: {err.msg} "
            "(a test file is one JSON object with targ1, targ2, attr1, attr2)"
        ) from None
    return spec_from_json(obj, name=name, source=source)


def read_test_file(path: str | Path) -> AssociationTestSpec:
    """Read a sent-bias ``.jsonl`` test file; the test is named after the file."""
    from .text_files import read_utf8

    path = Path(path)
    try:
        text = read_utf8(path, what="sent-bias test file (.jsonl)")
    except FileNotFoundError:
        raise TestFileError(f"{path}: no such file") from None
    except ValueError as err:
        raise TestFileError(str(err)) from None
    return parse_test_text(text, name=path.name.removesuffix(".jsonl").removesuffix(".json"), source=str(path))


def write_test_file(spec: AssociationTestSpec, path: str | Path) -> None:
    """Write ``spec`` in the sent-bias layout (pretty-printed like sent-bias ``tests/``)."""
    Path(path).write_text(json.dumps(spec.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@lru_cache(maxsize=1)
def _bundled() -> dict[str, dict]:
    text = resources.files(__package__).joinpath("data/word_tests.json").read_text(encoding="utf-8")
    return json.loads(text)["tests"]


def bundled_test_names() -> list[str]:
    """Names of the bundled tests (May et al.'s names: weat1..weat10, weat3b, ...)."""
    return list(_bundled())


def load_bundled_test(name: str) -> AssociationTestSpec:
    """A bundled test by its published name; unknown names list the choices."""
    tests = _bundled()
    if name not in tests:
        raise KeyError(f"unknown test {name!r}: bundled tests are {', '.join(tests)}")
    return spec_from_json(tests[name], name=name, source=f"bundled test {name}")
