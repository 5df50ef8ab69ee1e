"""``SenseSelector``: type a lemma, see its WordNet 3.0 senses, pick one or more.

The front end (``js/sense_selector.js``) only sends what the user typed (the
``query`` trait) and what they picked (``selected``); every lookup happens here,
in the kernel, against :func:`~embias_widgets.stimuli.wordnet.load_wordnet`.
Python answers a query by filling ``senses`` (or ``suggestions`` for an
unknown lemma) and names the query it answered in ``answered``, so the front
end never draws a stale answer to an earlier keystroke.

What the user picked lives in the synced ``selected`` trait (saved with the
notebook's widget state) and exports/imports as JSON.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

import traitlets

from ..stimuli.wordnet import Sense, UnknownSenseError, load_wordnet
from ._base import EmbiasWidget, bundle

POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective satellite", "r": "adverb"}
SHORT_GLOSS = 48


def short_gloss(gloss: str, limit: int = SHORT_GLOSS) -> str:
    """The first ``limit`` characters of a gloss, cut at a word boundary with an ellipsis."""
    gloss = " ".join(gloss.split())
    if len(gloss) <= limit:
        return gloss
    cut = gloss[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def sense_record(sense: Sense) -> dict[str, Any]:
    """What the front end draws for one sense (all of it text)."""
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


class RefusedSenseError(UnknownSenseError, traitlets.TraitError):
    """An item refused at ``selected``'s trait boundary: a ``TraitError`` (the widget rule) that is
    still an :class:`UnknownSenseError` with its ``suggestions``."""


class SenseSelector(EmbiasWidget):
    """Pick WordNet 3.0 senses by typing a lemma.

    Parameters
    ----------
    selected
        Initial selection: sense keys (``"nurse%1:18:00::"``), or lemmas when
        ``allow_lemmas`` is on.
    label
        A heading (e.g. the category of a WEAT set).
    multiple
        Allow more than one pick (default); otherwise a pick replaces the last.
    allow_lemmas
        Offer "any sense of <lemma>" at the top of the list: the item is then
        the lemma itself, which a sense WEAT resolves over all its senses.
    wordnet
        A loaded WordNet (default :func:`load_wordnet`); anything with
        ``senses(lemma, pos)``, ``sense(key)`` and ``is_key(text)``.
    """

    _esm = bundle("sense_selector.js")
    _css = bundle("sense_selector.css")

    label = traitlets.Unicode("").tag(sync=True)
    """Heading shown above the chips."""
    query = traitlets.Unicode("").tag(sync=True)
    """What the user typed: a lemma (``nurse``), or a sense key."""
    pos = traitlets.Unicode("").tag(sync=True)
    """Part-of-speech filter: ``""`` (all), ``n``, ``v``, ``a`` or ``r``."""
    answered = traitlets.Unicode("").tag(sync=True)
    """The ``query`` (and ``pos``) that ``senses``/``suggestions`` answer, as ``"query|pos"``."""
    senses = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The senses of ``query``: ``[{"key", "lemma", "pos", "pos_name", "lexname", "gloss",
    "short_gloss", "example", "synonyms", "sense_number"}]``."""
    suggestions = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """Close matches when ``query`` is not a WordNet lemma or key."""
    message = traitlets.Unicode("").tag(sync=True)
    """Why ``senses`` is empty (unknown lemma, no sense in the chosen part of speech)."""
    selected = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """The picked items: sense keys (and lemmas, meaning "any sense", when ``allow_lemmas``)."""
    chips = traitlets.List(traitlets.Dict()).tag(sync=True)
    """One per selected item: ``{"item", "kind": "sense"|"lemma", "lemma", "key", "short_gloss", "gloss"}``."""
    multiple = traitlets.Bool(True).tag(sync=True)
    allow_lemmas = traitlets.Bool(False).tag(sync=True)
    import_text = traitlets.Unicode("").tag(sync=True)
    """JSON pasted by the user for import; cleared once imported."""
    export_text = traitlets.Unicode("").tag(sync=True)
    """The selection as JSON (see :meth:`export_json`)."""
    source = traitlets.Unicode("").tag(sync=True)
    """Which WordNet files answer the lookups."""
    lookup_ms = traitlets.Float(0.0).tag(sync=True)
    """How long the last lookup took in the kernel."""

    def __init__(
        self,
        selected: Iterable[str] = (),
        *,
        label: str = "",
        multiple: bool = True,
        allow_lemmas: bool = False,
        wordnet: Any = None,
        **kwargs: Any,
    ) -> None:
        self.wordnet = wordnet if wordnet is not None else load_wordnet()
        super().__init__(label=label, multiple=multiple, allow_lemmas=allow_lemmas, **kwargs)
        self.source = str(getattr(self.wordnet, "source", ""))
        self.selected = list(selected)
        self._update_chips()

    # -- validation at the trait boundary ----------------------------------------------------------
    @traitlets.validate("selected")
    def _valid_selected(self, proposal: dict) -> list[str]:
        out: list[str] = []
        for item in proposal["value"]:
            item = str(item).strip()
            if item and item not in out:
                try:
                    self.resolve_item(item)
                except UnknownSenseError as err:  # names the item; the message lists close matches
                    raise RefusedSenseError(describe(err), item=item, suggestions=err.suggestions) from None
                out.append(item)
        if not self.multiple and len(out) > 1:
            out = out[-1:]
        return out

    @traitlets.validate("pos")
    def _valid_pos(self, proposal: dict) -> str:
        value = proposal["value"]
        if value not in ("", *POS_NAMES):
            raise traitlets.TraitError(f"pos must be '' (all) or one of {sorted(POS_NAMES)}, got {value!r}")
        return value

    def resolve_item(self, item: str) -> list[Sense]:
        """The senses an item stands for: one for a key, all of a lemma's when lemmas are allowed."""
        if self.wordnet.is_key(item):
            return [self.wordnet.sense(item)]
        if not self.allow_lemmas:
            # a lemma where a key is needed: the error lists the lemma's keys
            senses = self.wordnet.senses(item)
            raise UnknownSenseError(
                f"{item!r} is a lemma, not a WordNet 3.0 sense key: pick one of its senses",
                suggestions=tuple(s.key for s in senses),
            )
        return self.wordnet.senses(item)

    # -- lookups -------------------------------------------------------------------------------------
    @traitlets.observe("query", "pos")
    def _lookup(self, change: dict) -> None:
        started = time.perf_counter()
        text = " ".join(self.query.split())
        senses: list[Sense] = []
        suggestions: list[str] = []
        message = ""
        if text:
            try:
                if self.wordnet.is_key(text):
                    senses = [self.wordnet.sense(text)]
                else:
                    senses = self.wordnet.senses(text, pos=self.pos or None)
            except UnknownSenseError as err:
                suggestions = list(err.suggestions)
                message = str(err.args[0]) if err.args else str(err)
        with self.hold_sync():
            self.senses = [sense_record(s) for s in senses]
            self.suggestions = suggestions
            self.message = message
            self.lookup_ms = (time.perf_counter() - started) * 1000
            self.answered = f"{self.query}|{self.pos}"

    # -- selection -------------------------------------------------------------------------------------
    def select(self, item: str) -> None:
        """Add a sense key (or a lemma when ``allow_lemmas``) to the selection."""
        self.selected = [*self.selected, item]

    def deselect(self, item: str) -> None:
        self.selected = [s for s in self.selected if s != item]

    @property
    def value(self) -> list[Sense]:
        """The selected senses (a lemma item contributes all of its senses)."""
        return [s for item in self.selected for s in self.resolve_item(item)]

    @traitlets.observe("selected")
    def _selected_changed(self, change: dict) -> None:
        self._update_chips()

    def _update_chips(self) -> None:
        chips = []
        for item in self.selected:
            if self.wordnet.is_key(item):
                sense = self.wordnet.sense(item)
                chips.append(
                    {
                        "item": item,
                        "kind": "sense",
                        "lemma": sense.lemma,
                        "key": sense.key,
                        "short_gloss": short_gloss(sense.gloss, 32),
                        "gloss": sense.gloss,
                    }
                )
            else:
                n = len(self.wordnet.senses(item))
                chips.append(
                    {
                        "item": item,
                        "kind": "lemma",
                        "lemma": item,
                        "key": "",
                        "short_gloss": f"any of {n} sense{'s' if n != 1 else ''} (max)",
                        "gloss": f"{item}: every WordNet sense; a test takes the max over sense pairs",
                    }
                )
        with self.hold_sync():
            self.chips = chips
            self.export_text = self.export_json()

    # -- JSON ---------------------------------------------------------------------------------------------
    def export_json(self) -> str:
        """``{"wordnet": "3.0", "selected": [{"item", "lemma", "gloss"}]}`` as text."""
        records = [{"item": c["item"], "lemma": c["lemma"], "gloss": c["gloss"]} for c in self.chips]
        return json.dumps({"wordnet": "3.0", "selected": records}, indent=2, ensure_ascii=False) + "\n"

    def import_json(self, text: str) -> None:
        """Replace the selection from :meth:`export_json`'s format, or a JSON list of keys.

        Raises ``ValueError`` naming the bad entry; the selection is unchanged then.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"not JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None
        entries = data.get("selected") if isinstance(data, dict) else data
        if not isinstance(entries, list):
            raise ValueError('give a JSON list of sense keys, or {"selected": [{"item": key}, ...]}')
        items = []
        for i, entry in enumerate(entries):
            item = entry.get("item", entry.get("key")) if isinstance(entry, dict) else entry
            if not isinstance(item, str) or not item.strip():
                raise ValueError(f"entry {i} ({entry!r}) holds no sense key: write it as a string or {{'item': key}}")
            items.append(item.strip())
        try:
            self.selected = items
        except (UnknownSenseError, traitlets.TraitError) as err:
            raise ValueError(describe(err)) from None

    @traitlets.observe("import_text")
    def _import(self, change: dict) -> None:
        if not change["new"].strip():
            return
        try:
            self.import_json(change["new"])
        except ValueError as err:
            self.error = f"Import failed, your selection is unchanged: {err}"
            return
        with self.hold_sync():
            self.error = ""
            self.import_text = ""


def describe(err: Exception) -> str:
    """An error's message with its suggestions (for :class:`UnknownSenseError`)."""
    text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
    suggestions = getattr(err, "suggestions", ())
    if suggestions and not all(s in text for s in suggestions[:3]):
        text += f" (did you mean: {', '.join(suggestions[:8])}?)"
    return text
