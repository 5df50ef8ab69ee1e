"""WordNet 3.0 lookups for picking senses: what a sense picker shows, read in the kernel.

The sense selector widget types a lemma and picks senses; every lookup it needs (a lemma's senses,
close matches for an unknown lemma, what a picked item stands for, the text of a chip) is answered here,
against :func:`~embias_widgets.stimuli.wordnet.load_wordnet`, so the widget holds only its traits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...models.errors import MissingSenseError
from ...stimuli.wordnet import Sense, UnknownSenseError, WordNet, load_wordnet
from .resolve import SenseInputError

POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective satellite", "r": "adverb"}
SHORT_GLOSS = 48
USER_ERRORS = (SenseInputError, MissingSenseError, UnknownSenseError)
"""Failures caused by what was picked (shown as they are; others are internal errors)."""

__all__ = [
    "POS_NAMES",
    "SHORT_GLOSS",
    "USER_ERRORS",
    "Lookup",
    "Sense",
    "UnknownSenseError",
    "WordNet",
    "describe",
    "item_chip",
    "item_senses",
    "load_wordnet",
    "look_up",
    "sense_record",
    "short_gloss",
]


def short_gloss(gloss: str, limit: int = SHORT_GLOSS) -> str:
    """The first ``limit`` characters of a gloss, cut at a word boundary with an ellipsis."""
    gloss = " ".join(gloss.split())
    if len(gloss) <= limit:
        return gloss
    cut = gloss[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def sense_record(sense: Sense) -> dict[str, Any]:
    """What a picker draws for one sense (all of it text)."""
    return {
        "key": sense.key,
        "lemma": sense.lemma,
        "pos": sense.pos,
        "pos_name": POS_NAMES.get(sense.pos, sense.pos),
        "lexname": sense.lexname,
        "gloss": sense.gloss,
        "short_gloss": short_gloss(sense.gloss),
        "example": sense.examples[0] if sense.examples else "",
        "synonyms": [s for s in sense.synonyms if s != sense.lemma],
        "sense_number": sense.sense_number,
    }


@dataclass(frozen=True)
class Lookup:
    """The answer to a typed query: its senses, or close matches and why there are none."""

    senses: tuple[Sense, ...] = ()
    suggestions: tuple[str, ...] = ()
    message: str = ""

    def records(self) -> list[dict[str, Any]]:
        """:func:`sense_record` of each sense."""
        return [sense_record(s) for s in self.senses]


def look_up(wordnet: Any, query: str, pos: str = "") -> Lookup:
    """The senses of ``query`` (a lemma, optionally of part of speech ``pos``, or a sense key)."""
    text = " ".join(query.split())
    if not text:
        return Lookup()
    try:
        senses = [wordnet.sense(text)] if wordnet.is_key(text) else wordnet.senses(text, pos=pos or None)
    except UnknownSenseError as err:
        return Lookup(suggestions=tuple(err.suggestions), message=str(err.args[0]) if err.args else str(err))
    return Lookup(tuple(senses))


def item_senses(wordnet: Any, item: str, *, allow_lemmas: bool) -> list[Sense]:
    """The senses an item stands for: one for a key, all of a lemma's when lemmas are allowed.

    A lemma where a key is needed raises :class:`UnknownSenseError` listing the lemma's keys.
    """
    if wordnet.is_key(item):
        return [wordnet.sense(item)]
    if not allow_lemmas:
        senses = wordnet.senses(item)
        raise UnknownSenseError(
            f"{item!r} is a lemma, not a WordNet 3.0 sense key: pick one of its senses",
            suggestions=tuple(s.key for s in senses),
        )
    return wordnet.senses(item)


def item_chip(wordnet: Any, item: str) -> dict[str, Any]:
    """What a picker's chip shows for a picked item: ``{"item", "kind", "lemma", "key", "short_gloss", "gloss"}``."""
    if wordnet.is_key(item):
        sense = wordnet.sense(item)
        return {"item": item, "kind": "sense", "lemma": sense.lemma, "key": sense.key,
                "short_gloss": short_gloss(sense.gloss, 32), "gloss": sense.gloss}
    n = len(wordnet.senses(item))
    return {"item": item, "kind": "lemma", "lemma": item, "key": "",
            "short_gloss": f"any of {n} sense{'s' if n != 1 else ''} (max)",
            "gloss": f"{item}: every WordNet sense; a test takes the max over sense pairs"}


def describe(err: Exception) -> str:
    """An error's message with its suggestions (for :class:`UnknownSenseError`)."""
    text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
    suggestions = getattr(err, "suggestions", ())
    if suggestions and not all(s in text for s in suggestions[:3]):
        text += f" (did you mean: {', '.join(suggestions[:8])}?)"
    return text
