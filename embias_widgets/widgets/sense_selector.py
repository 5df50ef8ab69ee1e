"""``SenseSelector``: type a lemma, see its WordNet 3.0 senses, pick one or more.

The front end (``js/sense_selector.js``) only sends what the user typed (the
``query`` trait) and what they picked (``selected``); every lookup happens in
the kernel, in :mod:`embias_widgets.analysis.senses.lookup` (WordNet 3.0).
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

from ..analysis.senses import (
    POS_NAMES,
    Sense,
    UnknownSenseError,
    describe,
    item_chip,
    item_senses,
    load_wordnet,
    look_up,
    sense_record,
    short_gloss,
)
from ..stimuli.wordnet import WordNetNotFoundError
from ._base import EmbiasWidget, bundle

__all__ = ["RefusedSenseError", "SenseSelector", "describe", "sense_record", "short_gloss"]


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
        ``senses(lemma, pos)``, ``sense(key)`` and ``is_key(text)``. When the default finds no WordNet, the
        selector is still built: it shows why (with the install routes) as its error and looks nothing up,
        so a notebook run to its end.
    tools
        Show the WordNet source line, "?" help and import/export here (default); off when a composing
        widget shows them once for all its selectors.
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
    tools = traitlets.Bool(True).tag(sync=True)
    """Show this selector's own WordNet source line, "?" help and JSON import/export (default). A widget that
    composes several selectors turns them off and shows them once (:class:`SenseSetsBar`)."""

    def __init__(
        self,
        selected: Iterable[str] = (),
        *,
        label: str = "",
        multiple: bool = True,
        allow_lemmas: bool = False,
        wordnet: Any = None,
        tools: bool = True,
        **kwargs: Any,
    ) -> None:
        missing = ""
        if wordnet is None:
            try:
                wordnet = load_wordnet()
            except WordNetNotFoundError as err:
                missing = f"This sense selector needs WordNet 3.0, which is not installed here: {err}"
        self.wordnet = wordnet
        super().__init__(label=label, multiple=multiple, allow_lemmas=allow_lemmas, tools=tools, **kwargs)
        if missing:
            self.error = missing
            return
        self.source = str(getattr(self.wordnet, "source", ""))
        self.selected = list(selected)
        self._update_chips()

    # -- validation at the trait boundary ----------------------------------------------------------
    @traitlets.validate("selected")
    def _valid_selected(self, proposal: dict) -> list[str]:
        out: list[str] = []
        if self.wordnet is None and proposal["value"]:
            raise traitlets.TraitError(self.error or "WordNet 3.0 is not installed")
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
        return item_senses(self.wordnet, item, allow_lemmas=self.allow_lemmas)

    # -- lookups -------------------------------------------------------------------------------------
    @traitlets.observe("query", "pos")
    def _lookup(self, change: dict) -> None:
        if self.wordnet is None:  # no WordNet: the error line already says why and how to install it
            return
        started = time.perf_counter()
        found = look_up(self.wordnet, self.query, self.pos)
        with self.hold_sync():
            self.senses = found.records()
            self.suggestions = list(found.suggestions)
            self.message = found.message
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
        with self.hold_sync():
            self.chips = [item_chip(self.wordnet, item) for item in self.selected]
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
        data = loads_import(text)
        entries = data.get("selected") if isinstance(data, dict) else data
        if not isinstance(entries, list):
            raise ValueError('give a JSON list of sense keys, or {"selected": [{"item": key}, ...]}')
        items = [entry_item(entry, i) for i, entry in enumerate(entries)]
        try:
            self.selected = items
        except (UnknownSenseError, traitlets.TraitError) as err:
            raise ValueError(describe(err)) from None

    @traitlets.observe("import_text")
    def _import(self, change: dict) -> None:
        apply_import(self, change["new"], "your selection is unchanged")


def loads_import(text: str) -> Any:
    """``json.loads`` for an import panel: text that is not JSON is a ``ValueError`` saying where."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"not JSON ({err.msg} at line {err.lineno}, column {err.colno})") from None


def entry_item(entry: Any, i: int, where: str = "") -> str:
    """The sense key or lemma of import entry ``i``: a string, or a record with ``item`` (or ``key``)."""
    item = entry.get("item", entry.get("key")) if isinstance(entry, dict) else entry
    if not isinstance(item, str) or not item.strip():
        raise ValueError(f"{where}entry {i} ({entry!r}) holds no sense key: write it as a string or {{'item': key}}")
    return item.strip()


def apply_import(widget: Any, text: str, unchanged: str) -> None:
    """Run ``widget.import_json(text)`` for its import panel: on success clear the panel and the error, on a
    ``ValueError`` show it as "Import failed, <unchanged>: ..." and leave the panel's text for the user to fix."""
    if not text.strip():
        return
    try:
        widget.import_json(text)
    except ValueError as err:
        widget.error = f"Import failed, {unchanged}: {err}"
        return
    with widget.hold_sync():
        widget.error = ""
        widget.import_text = ""
