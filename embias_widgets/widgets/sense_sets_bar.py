"""``SenseSetsBar``: what several :class:`~embias_widgets.widgets.SenseSelector` share, shown once.

The sense explorer (Zhou, Kaneko & Bollegala 2022) composes four selectors, one per WEAT set. Each
selector can show its own WordNet source line, "?" help and JSON import/export; repeated four times
they crowd the explorer, so the explorer turns them off (``SenseSelector(tools=False)``) and shows
this bar once: the WordNet source line, the help, and import/export of all four sets in one JSON
(``{"wordnet": "3.0", "sets": {"targ1": {"label", "selected": [{"item", "lemma", "gloss"}]}, ...}}``).
An import checks every item of every set before changing any set, so a bad item leaves all picks as
they were and names the set and the item.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import traitlets

from ..analysis.senses import UnknownSenseError, describe
from ._base import EmbiasWidget, bundle
from .sense_selector import SenseSelector, apply_import, entry_item, loads_import


class SenseSetsBar(EmbiasWidget):
    """The WordNet source, "?" help and JSON import/export for several named sense selectors, shown once.

    Parameters
    ----------
    selectors
        ``{set name: SenseSelector}`` (e.g. ``{"targ1": ..., "attr2": ...}``) in display order.
    names
        ``{set name: what the widget calls it}`` (e.g. ``"Attribute B"``), used in messages.
    """

    _esm = bundle("sense_sets_bar.js")
    _css = bundle("sense_sets_bar.css")

    source = traitlets.Unicode("").tag(sync=True)
    """Which WordNet files answer the selectors' lookups."""
    export_text = traitlets.Unicode("").tag(sync=True)
    """Every set's picks as JSON (see :meth:`export_json`)."""
    import_text = traitlets.Unicode("").tag(sync=True)
    """JSON pasted by the user for import; cleared once imported."""

    def __init__(
        self, selectors: Mapping[str, SenseSelector], *, names: Mapping[str, str] | None = None, **kwargs: Any
    ) -> None:
        self.selectors = dict(selectors)
        self.names = {key: (names or {}).get(key, key) for key in self.selectors}
        first = next(iter(self.selectors.values()), None)
        super().__init__(source=first.source if first is not None else "", **kwargs)
        for selector in self.selectors.values():
            selector.observe(self._update_export, names="selected")
        self._update_export()

    def _update_export(self, change: dict | None = None) -> None:
        self.export_text = self.export_json()

    def export_json(self) -> str:
        """All sets' picks: ``{"wordnet": "3.0", "sets": {name: {"label", "selected": [...]}}}``."""
        sets = {
            key: {"label": selector.label, "selected": json.loads(selector.export_json())["selected"]}
            for key, selector in self.selectors.items()
        }
        return json.dumps({"wordnet": "3.0", "sets": sets}, indent=2, ensure_ascii=False) + "\n"

    def import_json(self, text: str) -> None:
        """Replace the picks of the sets named in ``text`` (:meth:`export_json`'s format, or
        ``{"sets": {name: [key, ...]}}``). Every item is checked first: on any error (``ValueError``
        naming the set and the item) no set changes."""
        data = loads_import(text)
        sets = data.get("sets") if isinstance(data, dict) else None
        if not isinstance(sets, dict) or not sets:
            raise ValueError('give {"sets": {"targ1": [sense keys or lemmas], ...}}, as the export writes it')
        picks: dict[str, list[str]] = {}
        for key, entries in sets.items():
            if key not in self.selectors:
                raise ValueError(f"unknown set {key!r}: the sets are {', '.join(self.selectors)}")
            name = self.names[key]
            entries = entries.get("selected") if isinstance(entries, dict) else entries
            if not isinstance(entries, list):
                raise ValueError(f"{name}: give a list of sense keys or {{'item': key}} records")
            items = [entry_item(entry, i, f"{name}, ") for i, entry in enumerate(entries)]
            for item in items:
                try:
                    self.selectors[key].resolve_item(item)
                except UnknownSenseError as err:
                    raise ValueError(f"{name}: {describe(err)}") from None
            picks[key] = items
        for key, items in picks.items():
            self.selectors[key].selected = items

    @traitlets.observe("import_text")
    def _import(self, change: dict) -> None:
        apply_import(self, change["new"], "every set is unchanged")
