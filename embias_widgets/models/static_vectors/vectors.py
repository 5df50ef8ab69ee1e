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
SUGGEST_LIMIT = 1000
"""Most out-of-vocabulary items of one encode that get close-match suggestions; the rest get none
(and the encode says so), so a file of 400,000 unknown items cannot run for minutes."""
SUGGEST_POOL = 600
"""Fuzzy matching looks at most this many of the most frequent words per length (same first letter,
length within 1 of the item's), so one suggestion costs about a millisecond whatever the vocabulary."""
PROGRESS_MIN = 200
"""Show a progress bar (stderr) when at least this many items need suggestions (``progress=None``)."""


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
    ``averaged`` the multi-word items encoded as the mean of their words; ``notes``
    what the encoder has to say about the whole encode, ``item_notes`` about single
    items (``(item, note)``, e.g. a sentence the encoder sees only as unknown tokens).
    """

    items: tuple[str, ...]
    vectors: np.ndarray
    oov: tuple[OutOfVocabulary, ...] = ()
    averaged: tuple[str, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())
    item_notes: tuple[tuple[str, str], ...] = field(default=())


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
        self._by_shape: dict[tuple[str, int], list[str]] | None = None
        self._shape_counts: dict[tuple[str, int], np.ndarray] = {}
        self.progress: bool | None = None
        self.repeated_words: dict[str, str] = {}
        """A file's repeated words -> the note an encode using one of them carries (set by the file reader)."""

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

    def _shape_index(self) -> dict[tuple[str, int], list[str]]:
        """(first letter, length) -> the :data:`SUGGEST_POOL` most frequent such words, built once."""
        if self._by_shape is None:
            groups: dict[tuple[str, int], list[str]] = {}
            for w in self.words:  # vocabularies such as GloVe are sorted by frequency
                group = groups.setdefault((w[:1].lower(), len(w)), [])
                if len(group) < SUGGEST_POOL:
                    group.append(w)
            self._by_shape = groups
        return self._by_shape

    def _fuzzy_pool(self, key: str, *, cutoff: float) -> list[str]:
        """Candidates whose character-count overlap with ``key`` allows a difflib ratio >= ``cutoff``.

        ``2 * overlap / (len(a) + len(b))`` bounds difflib's ratio from above (its
        ``quick_ratio``), so words below ``cutoff`` are dropped with one numpy
        operation per (first letter, length) group before difflib sees the rest.
        """
        shapes = self._shape_index()
        query = _char_counts(key)
        pool: list[str] = []
        for length in (len(key) - 1, len(key), len(key) + 1):
            shape = (key[:1].lower(), length)
            words = shapes.get(shape)
            if not words:
                continue
            counts = self._shape_counts.get(shape)
            if counts is None:
                counts = self._shape_counts[shape] = np.stack([_char_counts(w) for w in words])
            bound = 2.0 * np.minimum(counts, query).sum(axis=1) / (len(key) + length)
            pool.extend(words[i] for i in np.flatnonzero(bound >= cutoff))
        return pool

    def suggestions(self, word: str, n: int = 3) -> tuple[str, ...]:
        """Close vocabulary matches for ``word`` (other casing first, then spelling).

        Bounded work per word whatever the vocabulary's size: casing variants and
        words one edit away (Damerau) are dictionary lookups; the fuzzy pass
        (``difflib``) looks only at the most frequent words with the same first
        letter and a length within 1 (indexed once, :data:`SUGGEST_POOL` per length).
        """
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
        if len(out) >= n or len(key) > 40:
            return tuple(out[:n])
        pool = self._fuzzy_pool(key, cutoff=0.75)
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
        """Vectors for ``items``; unknown items are reported (never silently dropped).

        The first :data:`SUGGEST_LIMIT` unknown items get close-match suggestions
        (with a progress bar when there are many, see ``progress``); the rest are
        reported without, and the encoding's ``notes`` say so.
        """
        kept, rows, averaged = [], [], []
        missing_items: list[tuple[str, tuple[str, ...]]] = []
        for item in items:
            vec = self.vector(item)
            if vec is None:
                parts = self._key(item.strip()).split() or [item]
                if len(parts) > 1 and self.multiword == "mean":
                    missing = tuple(p for p in parts if p not in self.index)
                else:
                    missing = (item,)
                missing_items.append((item, missing))
                continue
            if self._key(item.strip()) not in self.index:
                averaged.append(item)
            kept.append(item)
            rows.append(np.asarray(vec, dtype=np.float64))
        oov, notes = self._report_missing(missing_items)
        if self.repeated_words:
            used = {w for item in kept for w in (self._key(item.strip()), *self._key(item.strip()).split())}
            notes += tuple(note for word, note in self.repeated_words.items() if word in used)
        vectors = np.vstack(rows) if rows else np.zeros((0, self.dim))
        return Encoding(tuple(kept), vectors, tuple(oov), tuple(averaged), notes=notes)

    def _report_missing(
        self, missing_items: list[tuple[str, tuple[str, ...]]]
    ) -> tuple[list[OutOfVocabulary], tuple[str, ...]]:
        from tqdm.auto import tqdm

        todo = min(len(missing_items), SUGGEST_LIMIT)
        show = self.progress if self.progress is not None else todo >= PROGRESS_MIN
        head = tqdm(missing_items[:todo], desc="suggesting close matches", unit="word", disable=not show)
        oov = [OutOfVocabulary(item, missing, self.suggestions(missing[0]) if missing else ())
               for item, missing in head]
        oov += [OutOfVocabulary(item, missing, ()) for item, missing in missing_items[todo:]]
        notes: tuple[str, ...] = ()
        if len(missing_items) > SUGGEST_LIMIT:
            notes = (
                f"{len(missing_items):,} items are not in the vocabulary; close matches are suggested for the "
                f"first {SUGGEST_LIMIT:,} only",
            )
        return oov, notes

    @classmethod
    def from_keyed_vectors(cls, kv: object, *, name: str | None = None, **kwargs: object) -> StaticVectors:
        """Wrap a gensim ``KeyedVectors`` (anything with ``index_to_key`` and ``vectors``)."""
        words = list(kv.index_to_key)  # type: ignore[attr-defined]
        return cls(words, np.asarray(kv.vectors), name=name or "gensim-keyedvectors", **kwargs)  # type: ignore[attr-defined]


def _char_counts(word: str) -> np.ndarray:
    """Counts of a word's characters in 64 buckets (merging characters only raises the overlap,
    so the bound stays an upper bound)."""
    counts = np.zeros(64, dtype=np.int16)
    for ch in word:
        counts[ord(ch) % 64] += 1
    return counts


_LETTERS = "abcdefghijklmnopqrstuvwxyz-'"


def _one_edit_away(word: str) -> set[str]:
    """Strings one delete, transposition, replacement or insertion from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    transposes = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    replaces = {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    inserts = {a + c + b for a, b in splits for c in _LETTERS}
    return (deletes | transposes | replaces | inserts) - {word}
