"""``SentenceAssociationTest``: SEAT (May et al. 2019) with editable words.

SEAT is WEAT on sentence vectors: each word of a set is slotted into the
templates of its kind and the sentences are encoded, so
``s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b)`` runs over sentences
and ``d`` and ``p`` are computed as in :mod:`embias_widgets.metrics.association`.

The sets hold *words* (``test.spec`` shows them, :meth:`set_items` edits them);
sentences are generated at encode time, so an edited word re-encodes only its
own sentences. Any widget that takes an :class:`AssociationTest` takes this.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ...models import StaticVectors
from ...models.sentence_encoders import CBoWEncoder
from ...stimuli import SET_KEYS, AssociationTestSpec, resolve_test
from ...stimuli.sentence_tests import (
    SentenceTestSpec,
    is_sentence_test,
    load_sentence_test,
    sentence_test_from_words,
)
from ...stimuli.templates import TEMPLATES, fill
from .result import AssociationTestResult
from .study import AssociationTest


def resolve_sentence_test(
    test: str | SentenceTestSpec | AssociationTestSpec,
    kinds: Mapping[str, str] | str | None = None,
) -> SentenceTestSpec:
    """A bundled sentence test name (``"sent-weat1"``), a :class:`SentenceTestSpec`,
    or a word test (name, path or spec) plus template ``kinds`` to slot its words into."""
    if isinstance(test, SentenceTestSpec):
        return test
    if isinstance(test, str) and is_sentence_test(test) and kinds is None:
        return load_sentence_test(test)
    if kinds is None:
        raise ValueError(
            f"{getattr(test, 'name', test)!r} is not a bundled sentence test: give template "
            "kinds for its sets, e.g. kinds={'targ1': 'name', 'targ2': 'name', "
            "'attr1': 'noun', 'attr2': 'noun'}, or a kind for all of them"
        )
    spec = test if isinstance(test, AssociationTestSpec) else resolve_test(test)
    return sentence_test_from_words(spec, kinds)


class SentenceAssociationTest(AssociationTest):
    """A SEAT study whose sets are words + template kinds.

    Parameters
    ----------
    test
        A bundled sentence test (``"sent-weat3"``, ``"heilman_double_bind_competent_1-"``),
        a :class:`SentenceTestSpec`, or a word test with ``kinds``.
    kinds
        Template kind for every set, or set key -> kind, when ``test`` is a
        word test (see :data:`embias_widgets.stimuli.templates.TEMPLATE_KINDS`).
    model
        A sentence encoder (default ``"all-MiniLM-L6-v2"``) or any model with
        ``encode``; static word vectors encode a sentence as the mean of its
        words' vectors (May et al.'s CBoW baseline).
    **kwargs
        As for :class:`AssociationTest` (word sets ``targ1=...``, ``n_samples``,
        ``seed``, model options).
    """

    def __init__(
        self,
        test: str | SentenceTestSpec | AssociationTestSpec,
        *,
        kinds: Mapping[str, str] | str | None = None,
        model: Any = "all-MiniLM-L6-v2",
        **kwargs: Any,
    ) -> None:
        self.sentence_spec = resolve_sentence_test(test, kinds)
        super().__init__(self.sentence_spec.word_spec(), model=model, **kwargs)
        if isinstance(self.model, StaticVectors):  # May et al.'s CBoW baseline
            self.model = CBoWEncoder(self.model)

    # -- editing -----------------------------------------------------------
    def set_items(self, key: str, items: Iterable[str]) -> tuple[str, ...]:
        """Replace a set's words; their sentences are regenerated (a new word
        takes its kind from the lexicon, else the set's kind)."""
        dups = super().set_items(key, items)
        words = getattr(self.spec, key).examples
        current = getattr(self.sentence_spec, key)
        self.sentence_spec = self.sentence_spec.with_set(key, current.with_words(words))
        return dups

    def set_kind(self, key: str, word: str, kind: str) -> None:
        """Use template ``kind`` for ``word`` in set ``key`` (e.g. ``"mass"`` for "freedom")."""
        current = getattr(self.sentence_spec, key)
        self.sentence_spec = self.sentence_spec.with_set(key, current.with_kind(word, kind))

    def rename(self, key: str, category: str) -> None:
        super().rename(key, category)
        current = getattr(self.sentence_spec, key)
        self.sentence_spec = self.sentence_spec.with_set(key, replace(current, category=category))

    # -- sentences ---------------------------------------------------------
    def sentences(self, key: str) -> tuple[str, ...]:
        """The sentences of set ``key``, as they will be encoded."""
        return getattr(self.sentence_spec, key).sentences()

    def sentences_by_word(self, key: str) -> dict[str, tuple[str, ...]]:
        """word -> its sentences in set ``key``."""
        return getattr(self.sentence_spec, key).sentences_by_word()

    def to_sentence_spec(self) -> AssociationTestSpec:
        """The current sentences as a sent-bias test (``write_test_file`` writes it)."""
        return self.sentence_spec.sentence_spec()

    # -- running -----------------------------------------------------------
    def run(self, **kwargs: Any) -> AssociationTestResult:
        """Run as :meth:`AssociationTest.run`; the result also says which word each sentence slots
        (``item_words``), so it can be read per word (:meth:`AssociationTestResult.word_groups`), and which
        template made it (``item_templates``, for :meth:`AssociationTestResult.templates`)."""
        result = super().run(**kwargs)
        words, templates = {}, {}
        for key in SET_KEYS:
            of = {sentence: word for word, ss in self.sentences_by_word(key).items() for sentence in ss}
            words[key] = tuple(of.get(item, item) for item in result.items[key])
            made_from = self.sentence_templates(key)
            templates[key] = tuple(made_from.get(item, "___") for item in result.items[key])
        return replace(result, item_words=words, item_templates=templates)

    def sentence_templates(self, key: str) -> dict[str, str]:
        """sentence -> the template frame it was made from (``"This is ___."``, :func:`frame_of`), for set ``key``."""
        current = getattr(self.sentence_spec, key)
        out: dict[str, str] = {}
        for word in current.words:
            kind = current.kind_of(word)
            made = fill(word, kind, pronoun=current.pronoun, plural_form=current.plurals.get(word))
            for sentence, template in zip(made, TEMPLATES[kind], strict=True):
                out.setdefault(sentence, frame_of(template))
        return out

    # -- encoding ----------------------------------------------------------
    def _items_to_encode(self, key: str) -> tuple[str, ...]:
        return self.sentences(key)

    def _degenerate_notes(self, enc: dict[str, Any], options: dict[str, Any]) -> list[str]:
        notes = super()._degenerate_notes(enc, options)
        if isinstance(self.model, CBoWEncoder):  # May et al.'s baseline: a sentence is the mean of its words
            missing = [w for key in SET_KEYS for w in getattr(self.spec, key).examples
                       if self.model.vectors.vector(w) is None]
            if missing:
                shown = ", ".join(repr(w) for w in missing[:8]) + (" ..." if len(missing) > 8 else "")
                notes.append(
                    f"CBoW: slot word(s) {shown} not in {self.model.vectors.name}'s vocabulary: their sentences "
                    "are the mean of the template words alone, the same vector for every such word"
                )
        return notes


def frame_of(template: str) -> str:
    """A template with its slot written ``___`` whatever the slot's form (``{w}``, ``{a}`` with its article,
    ``{p}`` plural), so "This is {a}." (nouns) and "This is {w}." (adjectives) are one frame."""
    for slot in ("{w}", "{a}", "{p}"):
        template = template.replace(slot, "___")
    return template
