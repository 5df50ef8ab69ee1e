"""Static word vectors: lookup with case handling, out-of-vocabulary reports
and multi-word items.

A multi-word item ("european american", "black woman" in May et al.'s ``b``
tests) is the mean of its words' vectors by default (``multiword="mean"``),
and every encode says which items were averaged.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

MULTIWORD_MODES = ("mean", "error")


@dataclass(frozen=True)
class OutOfVocabulary:
    """An item the model could not encode, with the closest known words."""

    item: str
    missing: tuple[str, ...]
    suggestions: tuple[str, ...]

    def message(self) -> str:
        miss = ", ".join(repr(w) for w in self.missing)
        hint = f"; close matches: {', '.join(self.suggestions)}" if self.suggestions else ""
        part = "" if self.missing == (self.item,) else f" (missing word {miss})"
        return f"{self.item!r} is not in the vocabulary{part}{hint}"


@dataclass(frozen=True)
class Encoding:
    """Vectors for the items that could be encoded, and a report of the rest.

    ``vectors[i]`` belongs to ``items[i]``; ``oov`` lists the dropped items;
    ``averaged`` the multi-word items encoded as the mean of their words.
    """

    items: tuple[str, ...]
    vectors: np.ndarray
    oov: tuple[OutOfVocabulary, ...] = ()
    averaged: tuple[str, ...] = field(default=())


class StaticVectors:
    """A word -> vector table.

    Parameters
    ----------
    words
        Vocabulary, in row order.
    vectors
        ``(len(words), dim)`` array.
    name
        Shown in results (``"glove-6b-50d"``, a path, ...).
    lowercase
        Look items up lowercased. ``None`` (default) lowercases only when the
        vocabulary itself has no uppercase letters (GloVe 6B is all lowercase).
    multiword
        ``"mean"``: an item with spaces is the mean of its words' vectors
        (unless the vocabulary has the phrase itself); ``"error"``: it is OOV.
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: np.ndarray,
        *,
        name: str = "vectors",
        lowercase: bool | None = None,
        multiword: str = "mean",
    ) -> None:
        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[0] != len(words):
            raise ValueError(
                f"vectors must be (len(words), dim) = ({len(words)}, dim), got shape {vectors.shape}"
            )
        if multiword not in MULTIWORD_MODES:
            raise ValueError(f"`multiword` must be in {MULTIWORD_MODES}, got {multiword!r}")
        self.words = list(words)
        self.vectors = vectors
        self.name = name
        self.index = {w: i for i, w in reversed(list(enumerate(self.words)))}  # first occurrence wins
        if lowercase is None:
            lowercase = not any(w != w.lower() for w in self.words[:50_000])
        self.lowercase = lowercase
        self.multiword = multiword
        self._by_prefix: dict[str, list[str]] | None = None

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def options(self) -> str:
        """Options string for result tables (May et al.'s ``options`` column)."""
        return f"lowercase={self.lowercase},multiword={self.multiword}"

    def __contains__(self, word: str) -> bool:
        return self._key(word) in self.index

    def __len__(self) -> int:
        return len(self.words)

    def _key(self, word: str) -> str:
        return word.lower() if self.lowercase else word

    def suggestions(self, word: str, n: int = 3) -> tuple[str, ...]:
        """Close vocabulary matches for ``word`` (other casing first, then spelling)."""
        key = self._key(word)
        out: list[str] = []
        for variant in (key.lower(), key.capitalize(), key.upper()):
            if variant != key and variant in self.index and variant not in out:
                out.append(variant)
        # One edit away (Damerau: delete, transpose, replace, insert), most frequent first
        # (vocabularies such as GloVe are sorted by frequency).
        one_edit = sorted((w for w in _one_edit_away(key) if w in self.index), key=self.index.__getitem__)
        for w in one_edit:
            if w not in out:
                out.append(w)
        if self._by_prefix is None:
            groups: dict[str, list[str]] = {}
            for w in self.words:
                groups.setdefault(w[:1].lower(), []).append(w)
            self._by_prefix = groups
        pool = self._by_prefix.get(key[:1].lower(), [])
        pool = [w for w in pool if abs(len(w) - len(key)) <= 2]
        for w in difflib.get_close_matches(key, pool, n=n, cutoff=0.75):
            if w not in out:
                out.append(w)
        return tuple(out[:n])

    def vector(self, item: str) -> np.ndarray | None:
        """The vector of one item, or ``None`` if any of its words is unknown."""
        key = self._key(item.strip())
        if key in self.index:
            return self.vectors[self.index[key]]
        parts = key.split()
        if len(parts) > 1 and self.multiword == "mean" and all(p in self.index for p in parts):
            return np.mean([self.vectors[self.index[p]] for p in parts], axis=0)
        return None

    def encode(self, items: Iterable[str]) -> Encoding:
        """Vectors for ``items``; unknown items are reported (never silently dropped)."""
        kept, rows, oov, averaged = [], [], [], []
        for item in items:
            vec = self.vector(item)
            if vec is None:
                parts = self._key(item.strip()).split() or [item]
                if len(parts) > 1 and self.multiword == "mean":
                    missing = tuple(p for p in parts if p not in self.index)
                else:
                    missing = (item,)
                sugg = self.suggestions(missing[0]) if missing else ()
                oov.append(OutOfVocabulary(item, missing, sugg))
                continue
            if self._key(item.strip()) not in self.index:
                averaged.append(item)
            kept.append(item)
            rows.append(np.asarray(vec, dtype=np.float64))
        vectors = np.vstack(rows) if rows else np.zeros((0, self.dim))
        return Encoding(tuple(kept), vectors, tuple(oov), tuple(averaged))

    @classmethod
    def from_keyed_vectors(cls, kv: object, *, name: str | None = None, **kwargs: object) -> StaticVectors:
        """Wrap a gensim ``KeyedVectors`` (anything with ``index_to_key`` and ``vectors``)."""
        words = list(kv.index_to_key)  # type: ignore[attr-defined]
        return cls(words, np.asarray(kv.vectors), name=name or "gensim-keyedvectors", **kwargs)  # type: ignore[attr-defined]


_LETTERS = "abcdefghijklmnopqrstuvwxyz-'"


def _one_edit_away(word: str) -> set[str]:
    """Strings one delete, transposition, replacement or insertion from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    transposes = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    inserts = {a + c + b for a, b in splits for c in _LETTERS}
    return (deletes | transposes | replaces | inserts) - {word}
