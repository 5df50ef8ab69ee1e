"""The word lists of the NLI probes (Dev et al. 2020), read from ``stimuli/data/nli_word_lists.json``.

Every list names its source (the paper's appendix "Word Lists", or the authors' released word lists);
this is the one place the package keeps them (the demo NLI model reads them from here too).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from importlib import resources
from typing import Any


class ProbeError(ValueError):
    """A probe that cannot be built (unknown name, empty or malformed word list)."""


@functools.lru_cache(maxsize=1)
def _word_list_table() -> dict[str, dict[str, Any]]:
    text = resources.files("embias_widgets.stimuli").joinpath("data/nli_word_lists.json").read_text(encoding="utf-8")
    return json.loads(text)["lists"]


def word_lists() -> dict[str, tuple[str, ...]]:
    """Every bundled list by name (occupations, gendered_words, demonyms, adherents, polarity, ...)."""
    return {name: tuple(entry["words"]) for name, entry in _word_list_table().items()}


def word_list(name: str) -> tuple[str, ...]:
    """One bundled list; :class:`ProbeError` naming the lists when ``name`` is unknown."""
    table = _word_list_table()
    if name not in table:
        raise ProbeError(f"unknown word list {name!r}: bundled lists are {', '.join(sorted(table))}")
    return tuple(table[name]["words"])


def word_list_source(name: str) -> str:
    """Where a bundled list comes from (paper appendix or the authors' word lists)."""
    word_list(name)
    return str(_word_list_table()[name]["source"])


def check_words(words: Iterable[str] | str, what: str) -> tuple[str, ...]:
    """Validate a slot-filler list: non-empty, strings, no blanks; duplicates dropped in order."""
    if isinstance(words, str):
        raise ProbeError(f"{what} must be a list of words, not the string {words!r}")
    out: list[str] = []
    for i, w in enumerate(words):
        if not isinstance(w, str) or not w.strip():
            raise ProbeError(f"{what} item {i} is {w!r}: every word must be a non-empty string")
        w = " ".join(w.split())
        if w not in out:
            out.append(w)
    if not out:
        raise ProbeError(f"{what} is empty: give at least one word")
    return tuple(out)
