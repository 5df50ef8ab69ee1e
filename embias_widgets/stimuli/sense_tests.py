"""Sense-annotated WEAT tests: Caliskan et al.'s tests 1-10 (and May et al.'s ``b`` variants)
with one WordNet 3.0 sense key per word (Zhou, Kaneko & Bollegala 2022, section 3).

``data/sense_tests.json`` keeps, for every word, the chosen key, that key's gloss
and how it was chosen, so a reader can review each choice (``sense_test_table``).
A word with no fitting sense (first names, pronouns, most hyphenated
"X American" terms) has key ``null`` and is left out; a test whose set is left
empty by that (the name tests 3, 4, 5, 6, 10 and 7b, 8b) cannot run and says so.
Bundled names: ``sense-weat1``, ``sense-weat2``, ...
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .association_tests import SET_KEYS, AssociationTestSpec, WordSet

PREFIX = "sense-"
CITATION = (
    "Caliskan et al. (2017); May et al. (2019); sense keys after Zhou, Kaneko & Bollegala (2022), "
    "chosen for this package"
)


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("data/sense_tests.json").read_text(encoding="utf-8")
    return json.loads(text)["tests"]


def _runnable(entry: dict[str, Any]) -> bool:
    return all(any(i["key"] for i in entry[k]["items"]) for k in SET_KEYS)


def sense_test_names(*, include_unrunnable: bool = False) -> list[str]:
    """Bundled sense test names (``sense-weat1``, ...); by default only those with every set non-empty."""
    return [PREFIX + name for name, entry in _data().items() if include_unrunnable or _runnable(entry)]


def is_sense_test(name: str) -> bool:
    """Whether ``name`` is a bundled sense-level test (``"sense-weat1"``, ...)."""
    return isinstance(name, str) and name.startswith(PREFIX) and name[len(PREFIX) :] in _data()


def sense_test_table(name: str) -> list[dict[str, Any]]:
    """Every word of the test with its set, key (or None), gloss and how the key was chosen."""
    entry = _entry(name)
    return [
        {"set": key, "category": entry[key]["category"], **item} for key in SET_KEYS for item in entry[key]["items"]
    ]


def _entry(name: str) -> dict[str, Any]:
    base = name[len(PREFIX) :] if name.startswith(PREFIX) else name
    if base not in _data():
        raise KeyError(f"unknown sense test {name!r}: bundled sense tests are {', '.join(sense_test_names())}")
    return _data()[base]


def load_sense_test(name: str) -> AssociationTestSpec:
    """A bundled sense test as a spec whose items are sense keys; words without a key are listed in ``notes``.

    Raises ``ValueError`` for a test left with an empty set (its words have no WordNet sense).
    """
    entry = _entry(name)
    full = name if name.startswith(PREFIX) else PREFIX + name
    sets, notes = {}, []
    for key in SET_KEYS:
        items = entry[key]["items"]
        dropped = [i["word"] for i in items if not i["key"]]
        if dropped:
            notes.append(f"{key}: no fitting WordNet 3.0 sense, left out: {', '.join(dropped)}")
        kept = tuple(dict.fromkeys(i["key"] for i in items if i["key"]))
        if not kept:
            raise ValueError(
                f"sense test {full!r} cannot run: every word of {key} ({entry[key]['category']}) lacks a WordNet "
                f"sense ({', '.join(dropped[:5])}...); runnable sense tests are {', '.join(sense_test_names())}"
            )
        sets[key] = WordSet(entry[key]["category"], kept)
    return AssociationTestSpec(name=full, citation=CITATION, notes=tuple(notes), **sets)
