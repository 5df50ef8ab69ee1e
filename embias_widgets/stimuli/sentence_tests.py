"""Sentence-level association tests (SEAT; May et al. 2019) as words + template kinds.

A :class:`SentenceTestSpec` keeps, for each of its four sets, the *words* and
the template kind of each word; its sentences are generated from them
(:mod:`embias_widgets.stimuli.templates`), so editing a word regenerates its
sentences. The bundled tests (``sentence_tests.json``) take their words from
the bundled word tests and reproduce May et al.'s published files: every
``sent-`` test, the unbleached ``heilman_double_bind_*_one_sentence`` tests and
the multi-sentence ``_1``, ``_1+3-``, ``_1-`` versions (appendix B.3).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from .association_tests import SET_KEYS, AssociationTestSpec, WordSet, load_bundled_test
from .templates import PART_OF_SPEECH_KINDS, TEMPLATE_KINDS, generate_sentences, sentences_by_word


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    text = (
        resources.files(__package__)
        .joinpath("data/sentence_tests.json")
        .read_text(encoding="utf-8")
    )
    return json.loads(text)


def lexicon() -> dict[str, str]:
    """Template kinds of words that differ from their set's kind in May et al.'s
    tests ("freedom": mass noun, "kill": verb, "happy": adjective, ...)."""
    return dict(_data()["lexicon"])


def _check_kind(kind: str, word: str = "") -> str:
    if kind not in TEMPLATE_KINDS:
        what = f" for {word!r}" if word else ""
        raise ValueError(
            f"unknown template kind {kind!r}{what}: use one of {', '.join(TEMPLATE_KINDS)}"
        )
    return kind


@dataclass(frozen=True)
class SentenceSet:
    """One set of a sentence test: words, and how each becomes sentences.

    ``kind`` is the set's template kind; a word's own kind comes from
    ``kinds``, else (when ``kind`` is a part of speech) the shared
    :func:`lexicon`, else ``kind``. ``pronoun``
    ("he"/"she") fills the Heilman scripts; ``plurals`` gives irregular plurals;
    ``omit`` drops generated sentences (published subsets).
    """

    category: str
    words: tuple[str, ...]
    kind: str
    kinds: Mapping[str, str] = field(default_factory=dict)
    pronoun: str | None = None
    plurals: Mapping[str, str] = field(default_factory=dict)
    omit: tuple[str, ...] = ()

    def kind_of(self, word: str) -> str:
        if word in self.kinds:
            return self.kinds[word]
        if self.kind in PART_OF_SPEECH_KINDS:
            return _data()["lexicon"].get(word, self.kind)
        return self.kind  # a context template ("The engineer is W.") takes any word

    def word_kinds(self) -> dict[str, str]:
        return {w: self.kind_of(w) for w in self.words}

    def sentences(self) -> tuple[str, ...]:
        """Every word's sentences, in word order, less ``omit``."""
        return generate_sentences(
            self.words,
            self.word_kinds(),
            pronoun=self.pronoun,
            plurals=self.plurals,
            omit=self.omit,
        )

    def sentences_by_word(self) -> dict[str, tuple[str, ...]]:
        omitted = set(self.omit)
        by_word = sentences_by_word(
            self.words, self.word_kinds(), pronoun=self.pronoun, plurals=self.plurals
        )
        return {w: tuple(s for s in ss if s not in omitted) for w, ss in by_word.items()}

    def with_words(self, words: Iterable[str]) -> SentenceSet:
        return replace(self, words=tuple(words))

    def with_kind(self, word: str, kind: str) -> SentenceSet:
        return replace(self, kinds={**self.kinds, word: _check_kind(kind, word)})

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "category": self.category,
            "examples": list(self.words),
            "kind": self.kind,
        }
        own = {w: k for w, k in self.word_kinds().items() if k != self.kind}
        if own:
            out["kinds"] = own
        if self.pronoun:
            out["pronoun"] = self.pronoun
        plurals = {w: p for w, p in self.plurals.items() if w in self.words}
        if plurals:
            out["plurals"] = plurals
        if self.omit:
            out["omit"] = list(self.omit)
        return out


@dataclass(frozen=True)
class SentenceTestSpec:
    """A SEAT test: four :class:`SentenceSet` (targets X, Y; attributes A, B)."""

    __test__ = False  # not a pytest class

    name: str
    targ1: SentenceSet
    targ2: SentenceSet
    attr1: SentenceSet
    attr2: SentenceSet
    description: str = ""
    citation: str = ""
    source: str = ""

    def sets(self) -> dict[str, SentenceSet]:
        return {k: getattr(self, k) for k in SET_KEYS}

    def with_set(self, key: str, sentence_set: SentenceSet) -> SentenceTestSpec:
        if key not in SET_KEYS:
            raise KeyError(f"unknown set {key!r}: use one of {SET_KEYS}")
        return replace(self, **{key: sentence_set})

    def word_spec(self) -> AssociationTestSpec:
        """The words (what a person edits)."""
        sets = {k: WordSet(s.category, s.words) for k, s in self.sets().items()}
        return AssociationTestSpec(
            self.name, description=self.description, citation=self.citation, **sets
        )

    def sentence_spec(self) -> AssociationTestSpec:
        """The generated sentences, as a sent-bias test (write it with ``write_test_file``)."""
        sets = {k: WordSet(s.category, s.sentences()) for k, s in self.sets().items()}
        return AssociationTestSpec(
            self.name, description=self.description, citation=self.citation, **sets
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "citation": self.citation,
            "from": self.source,
            **{k: s.to_json() for k, s in self.sets().items()},
        }


def sentence_test_from_words(
    words: AssociationTestSpec | str,
    kinds: Mapping[str, str] | str,
    *,
    name: str | None = None,
    pronouns: Mapping[str, str] | None = None,
) -> SentenceTestSpec:
    """Make a sentence test from a word test (May et al.'s ``sent-`` construction).

    ``kinds`` is one template kind for every set, or set key -> kind
    (e.g. ``{"targ1": "name", "targ2": "name", "attr1": "noun", "attr2": "noun"}``);
    words listed in :func:`lexicon` keep their own kind.
    """
    spec = load_bundled_test(words) if isinstance(words, str) else words
    pronouns = pronouns or {}
    sets = {}
    for key in SET_KEYS:
        kind = kinds if isinstance(kinds, str) else kinds.get(key)
        if kind is None:
            raise ValueError(f"no template kind for {key}: give one of {', '.join(TEMPLATE_KINDS)}")
        ws = getattr(spec, key)
        sets[key] = SentenceSet(
            ws.category, ws.examples, _check_kind(kind), pronoun=pronouns.get(key)
        )
    return SentenceTestSpec(
        name or f"sent-{spec.name}",
        description=spec.description,
        citation=spec.citation,
        source=spec.name,
        **sets,
    )


def sentence_test_names() -> list[str]:
    """Names of the bundled sentence tests (May et al.'s: sent-weat1, ..., heilman_..._1-)."""
    return list(_data()["tests"])


def is_sentence_test(name: object) -> bool:
    return isinstance(name, str) and name in _data()["tests"]


def load_sentence_test(name: str) -> SentenceTestSpec:
    """A bundled sentence test by its published name; unknown names list the choices."""
    data = _data()
    tests = data["tests"]
    if name not in tests:
        raise KeyError(
            f"unknown sentence test {name!r}: bundled sentence tests are {', '.join(tests)}"
        )
    entry = tests[name]
    words = load_bundled_test(entry["from"])
    sets = {}
    for key in SET_KEYS:
        info = entry["sets"][key]
        ws = getattr(words, key)
        sets[key] = SentenceSet(
            ws.category,
            ws.examples,
            info["kind"],
            pronoun=info.get("pronoun"),
            plurals=dict(data["plurals"]),
            omit=tuple(info.get("omit", ())),
        )
    return SentenceTestSpec(
        name,
        description=entry["description"],
        citation=entry["citation"],
        source=entry["from"],
        **sets,
    )
