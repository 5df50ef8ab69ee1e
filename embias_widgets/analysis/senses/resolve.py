"""Reading a sense test's items: sense keys or lemmas (Zhou, Kaneko & Bollegala 2022, section 3).

A sense key (``"violet%1:20:00::"``) is one sense vector; a lemma (``"violet"``) stands for all its senses.
An inflected form WordNet does not list (``"equations"``) is read as its WordNet lemma, with a note. At the
word level every item is replaced by its lemma, so two senses of one lemma in one set are one word
(:func:`one_item_per_lemma`), counted once as a word test merges spellings the model maps to one vector.
"""

from __future__ import annotations

from typing import Any

from ...stimuli import SET_KEYS, AssociationTestSpec
from ...stimuli.wordnet import UnknownSenseError, WordNet
from ..association import MergedItems
from .result import ResolvedItem

Resolved = dict[str, tuple[ResolvedItem, ...]]


class SenseInputError(ValueError):
    """A sense test that cannot run as given: names the set, the item and the fix."""


def _keys_of(model: Any, lemma: str) -> tuple[str, ...]:
    try:
        return tuple(model.keys_of(lemma))
    except UnknownSenseError:  # gloss models ask WordNet, which knows no such lemma
        return ()


def resolve_item(
    model: Any, wordnet: WordNet, item: str, *, key: str, category: str
) -> tuple[ResolvedItem, str | None]:
    """Read ``item`` of set ``key`` as a sense key or a lemma of ``model``; returns it and a note (or ``None``).

    Errors name the set (``"targ1 ('male')"``). A key WordNet 3.0 lacks, an unknown lemma
    (with close matches) and a lemma none of whose senses the model has raise :class:`SenseInputError`.
    """
    label = f"{key} ({category!r})"
    try:
        if wordnet.is_key(item):
            sense = wordnet.sense(item)  # a key WordNet 3.0 lacks is named as such, never a zero vector
            return ResolvedItem(item, sense.lemma, (sense.key,), True), None
        lemma = "_".join(item.lower().split())
        keys = _keys_of(model, lemma)
        if keys:
            return ResolvedItem(item, lemma, keys, False), None
        bases = [b for b in wordnet.base_forms(lemma) if _keys_of(model, b)]
        if len(bases) == 1:  # an inflected form ("equations"): its WordNet lemma, said in the notes
            note = f"{key}: {item!r} read as the WordNet lemma {bases[0]!r}"
            return ResolvedItem(item, bases[0], _keys_of(model, bases[0]), False), note
        wordnet.senses(lemma)  # unknown lemma: UnknownSenseError with close matches
        raise SenseInputError(f"{label}: {model.name} has no vector for any sense of {item!r}")
    except UnknownSenseError as err:
        raise SenseInputError(f"{label}: {err}") from None


def resolve_sets(
    spec: AssociationTestSpec, model: Any, wordnet: WordNet, *, drop_unknown_lemmas: bool = False
) -> tuple[Resolved, dict[str, str]]:
    """Every item of the four sets read by :func:`resolve_item`; returns them and the notes per item.

    With ``drop_unknown_lemmas`` a lemma that cannot be read is left out with a note (as word tests leave out
    out-of-vocabulary words); a sense key that cannot be read is always an error, as is an empty set.
    """
    resolved: Resolved = {}
    notes: dict[str, str] = {}
    for key in SET_KEYS:
        category, items = getattr(spec, key).category, getattr(spec, key).examples
        if not items:
            raise SenseInputError(f"{key} ({category!r}) is empty: add at least one sense key or lemma")
        kept, dropped = [], []
        for item in items:
            try:
                read, note = resolve_item(model, wordnet, item, key=key, category=category)
            except SenseInputError as err:
                if not drop_unknown_lemmas or wordnet.is_key(item):
                    raise
                notes[item] = f"left out: {err}"
                dropped.append(str(err))
                continue
            kept.append(read)
            if note:
                notes[item] = note
        if not kept:
            raise SenseInputError(f"no item of {key} can be used: " + " | ".join(dropped))
        resolved[key] = tuple(kept)
    return resolved, notes


def lemma_keys(model: Any, resolved: Resolved) -> dict[str, tuple[str, ...]]:
    """Every lemma of the items with all the sense keys ``model`` has for it (the rows of its word groups)."""
    out: dict[str, tuple[str, ...]] = {}
    for r in (r for key in SET_KEYS for r in resolved[key]):
        if r.lemma not in out:
            keys = tuple(model.keys_of(r.lemma))
            out[r.lemma] = keys if keys else r.keys
    return out


def one_item_per_lemma(resolved: Resolved) -> tuple[Resolved, tuple[MergedItems, ...]]:
    """The word-level items of each set: one per lemma (the first item of it), and what was merged.

    At the word level every item is replaced by its lemma, so two senses of one lemma in one set
    are one word with one vector; counted twice they would weigh that word double (with two such
    items per set, eq. 7's d came out +-sqrt(3) whatever the vectors). As a word test merges
    spellings the model maps to one vector (:class:`MergedItems`), the first item stands for the lemma.
    """
    word_items: Resolved = {}
    merged: list[MergedItems] = []
    for key in SET_KEYS:
        first: dict[str, ResolvedItem] = {}
        same: dict[str, list[str]] = {}
        for r in resolved[key]:
            if r.lemma in first:
                same.setdefault(r.lemma, []).append(r.item)
            else:
                first[r.lemma] = r
        word_items[key] = tuple(first.values())
        merged += [MergedItems(key, first[lemma].item, tuple(items)) for lemma, items in same.items()]
    return word_items, tuple(merged)
