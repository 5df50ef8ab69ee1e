"""CEAT's stimuli: Guo & Caliskan (2021)'s intersectional tests 11-14, and the sentences (contexts) of each word.

Tests: ``ceat11`` .. ``ceat14`` (``data/ceat_tests.json``: IBD and EIBD for African American and Mexican American
females against European American males, word lists from the authors' ``code/ceat.py``), beside every WEAT
test by name or file (:func:`~embias_widgets.stimuli.resolve_test`).

Contexts: a word's contexts are the sentences holding it as a *whole word*: not preceded or followed by a
letter, digit or underscore (``(?<!\\w)word(?!\\w)``), so "home" is found in "home-made" and "at home." but not
in "homes"; a test item of several words matches with any white space between them. The word's span in a
sentence is its **first** such occurrence (the authors' ``.index``). Case: a user's file is matched as
written (``case_sensitive=True``, the authors' ``" " + wd + " " in comment``: the names are capitalised and
"Bill" is not "bill"), or ignoring case on request. Sources:

- a user's text file, one sentence per line (:func:`read_context_file`), or any sentences
  (:func:`contexts_from_sentences`);
- ``"templates"`` (the bundled default): SEAT's semantically bleached templates (May et al. 2019,
  :mod:`.templates`) filled with the word, its kind from the bundled sentence test ``sent-<test>`` or, for
  ceat11-14, from ``data/ceat_tests.json``; only the sentences holding the word as written are kept (not the
  plural forms), matched ignoring case (the templates capitalise a sentence's first letter);
- ``"wordnet"``: every WordNet 3.0 gloss and example sentence holding the word (:mod:`.wordnet`; takes
  ~20 s once per process to read every synset; names and rare words have few or none);
- ``"templates+wordnet"``: both.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .association_tests import SET_KEYS, AssociationTestSpec, spec_from_json
from .catalog import resolve_test

CONTEXT_SOURCES = ("templates", "wordnet", "templates+wordnet")
"""The bundled context sources (see the module docstring)."""
Span = tuple[int, int]


@dataclass(frozen=True)
class WordContexts:
    """Each word's contexts: ``contexts[word]`` is a tuple of ``(sentence, (start, end))``, the word's span.

    ``source`` says in words where the sentences came from and how they were matched.
    """

    source: str
    contexts: Mapping[str, tuple[tuple[str, Span], ...]]

    def count(self, word: str) -> int:
        """How many contexts ``word`` has (0 when none)."""
        return len(self.contexts.get(word, ()))


@functools.lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(resources.files(__package__).joinpath("data/ceat_tests.json").read_text(encoding="utf-8"))


def ceat_test_names() -> list[str]:
    """The bundled CEAT tests (Guo & Caliskan's tests 11-14: ``ceat11`` .. ``ceat14``)."""
    return list(_data()["tests"])


def resolve_ceat_test(name_or_path: str | Path | AssociationTestSpec) -> AssociationTestSpec:
    """``ceat11`` .. ``ceat14``, any bundled WEAT test name, a sent-bias test file, or a spec (returned as is)."""
    if isinstance(name_or_path, AssociationTestSpec):
        return name_or_path
    tests = _data()["tests"]
    if str(name_or_path) in tests:
        return spec_from_json(tests[str(name_or_path)], name=str(name_or_path), source=f"bundled test {name_or_path}")
    try:
        return resolve_test(name_or_path)
    except KeyError as err:
        raise KeyError(f"{err.args[0]}; CEAT's own tests are {', '.join(tests)}") from None


def word_pattern(word: str, *, case_sensitive: bool = True) -> re.Pattern[str]:
    """The whole-word pattern of ``word`` (see the module docstring)."""
    body = r"\s+".join(re.escape(part) for part in word.split())
    return re.compile(rf"(?<!\w){body}(?!\w)", 0 if case_sensitive else re.IGNORECASE)


def contexts_from_sentences(sentences: Iterable[str], words: Sequence[str], *, case_sensitive: bool = True,
                            source: str = "the given sentences") -> WordContexts:
    """Each word's sentences among ``sentences`` (whole-word match; blank lines and repeats skipped)."""
    patterns = {w: word_pattern(w, case_sensitive=case_sensitive) for w in dict.fromkeys(words)}
    found: dict[str, list[tuple[str, Span]]] = {w: [] for w in patterns}
    for sentence in dict.fromkeys(s.strip() for s in sentences):
        if not sentence:
            continue
        for word, pattern in patterns.items():
            match = pattern.search(sentence)
            if match:
                found[word].append((sentence, match.span()))
    case = "as written" if case_sensitive else "ignoring case"
    return WordContexts(f"{source} (whole-word match, {case})", {w: tuple(c) for w, c in found.items()})


def read_context_file(path: str | Path, words: Sequence[str], *, case_sensitive: bool = True) -> WordContexts:
    """The sentences of a UTF-8 text file, one per line, that hold each word (see the module docstring)."""
    from .text_files import read_utf8

    text = read_utf8(Path(path), what="context file (one sentence per line)")
    return contexts_from_sentences(text.splitlines(), words, case_sensitive=case_sensitive,
                                   source=f"file {Path(path).name}")


def _template_sets(spec: AssociationTestSpec) -> dict[str, object]:
    """The sentence sets whose templates fill ``spec``'s words: ``sent-<name>`` or ceat11-14's kinds."""
    from .sentence_tests import SentenceSet, is_sentence_test, load_sentence_test

    if spec.name in _data()["tests"]:
        entry, own = _data()["tests"][spec.name], _data()["word_kinds"]
        sets = {}
        for key in SET_KEYS:
            words = getattr(spec, key).examples
            sets[key] = SentenceSet(entry[key]["category"], words, entry[key]["kind"],
                                    kinds={w: own[w] for w in words if w in own})
        return sets
    if is_sentence_test(f"sent-{spec.name}"):
        sentence_spec = load_sentence_test(f"sent-{spec.name}")
        return {key: getattr(sentence_spec, key).with_words(getattr(spec, key).examples) for key in SET_KEYS}
    raise ValueError(
        f"test {spec.name!r} has no template kinds, so the bundled template contexts cannot fill it: give "
        "contexts=<a text file, one sentence per line> (CLI --contexts FILE) or contexts='wordnet'")


@functools.lru_cache(maxsize=32)
def template_contexts(spec: AssociationTestSpec) -> WordContexts:
    """Each word's SEAT template sentences that hold it (May et al. 2019; see the module docstring); cached."""
    found: dict[str, tuple[tuple[str, Span], ...]] = {}
    for sentence_set in _template_sets(spec).values():
        for word, sentences in sentence_set.sentences_by_word().items():  # type: ignore[attr-defined]
            found[word] = contexts_from_sentences(sentences, [word], case_sensitive=False).contexts[word]
    return WordContexts("SEAT's bleached templates (May et al. 2019) holding the word as written, ignoring case",
                        found)


@functools.lru_cache(maxsize=1)
def wordnet_sentences() -> tuple[str, ...]:
    """Every gloss and example sentence of WordNet 3.0, in synset order (read once per process)."""
    from .wordnet import load_wordnet

    reader = load_wordnet()._reader
    out: list[str] = []
    for synset in reader.all_synsets():
        out.append(synset.definition())
        out.extend(synset.examples())
    return tuple(out)


def bundled_contexts(spec: AssociationTestSpec, source: str = "templates", *,
                     case_sensitive: bool = True) -> WordContexts:
    """Contexts from a bundled source (:data:`CONTEXT_SOURCES`) for every word of ``spec``."""
    if source not in CONTEXT_SOURCES:
        raise ValueError(f"unknown context source {source!r}: use a file path or one of {', '.join(CONTEXT_SOURCES)}")
    words = [w for key in SET_KEYS for w in getattr(spec, key).examples]
    parts = []
    if "templates" in source:
        parts.append(template_contexts(spec))
    if "wordnet" in source:
        parts.append(contexts_from_sentences(wordnet_sentences(), words, case_sensitive=case_sensitive,
                                             source="WordNet 3.0 glosses and examples"))
    if len(parts) == 1:
        return parts[0]
    merged = {w: tuple(dict.fromkeys(c for p in parts for c in p.contexts.get(w, ()))) for w in words}
    return WordContexts(" + ".join(p.source for p in parts), merged)
