"""``WordSetEditor``: edit the four sets of an association test in the browser.

Everything the user typed lives in the synced ``sets`` trait (sent-bias
layout), so it is saved with the notebook's widget state and can be exported
as a sent-bias ``.jsonl`` test.
"""

from __future__ import annotations

import json
from typing import Any

import traitlets

from ..stimuli import SET_KEYS, AssociationTestSpec, TestFileError, parse_test_text
from ._base import EmbiasWidget, bundle


def sets_of(spec: AssociationTestSpec) -> dict[str, dict[str, Any]]:
    """The sent-bias layout of a test spec (what the ``sets`` trait holds)."""
    return spec.to_json()


class WordSetEditor(EmbiasWidget):
    """Four word sets side by side: add, remove, paste, rename, import/export."""

    _esm = bundle("word_set_editor.js")
    _css = bundle("word_set_editor.css")

    name = traitlets.Unicode("custom").tag(sync=True)
    """Test name, used for the exported file name."""
    sets = traitlets.Dict().tag(sync=True)
    """``{"targ1": {"category": str, "examples": [str, ...]}, ...}``: what the user typed."""
    oov = traitlets.Dict().tag(sync=True)
    """``{set_key: [{"item": str, "suggestions": [str]}]}``: set by the analysis."""
    notes = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """Messages about the last edit (duplicates removed, multi-word items averaged, ...)."""
    import_text = traitlets.Unicode("").tag(sync=True)
    """JSON pasted by the user for import; cleared once imported."""
    export_text = traitlets.Unicode("").tag(sync=True)
    """The current sets as a sent-bias test file."""
    published = traitlets.Dict().tag(sync=True)
    """The sets as published (what "Reset" restores); empty when there is nothing to reset to."""
    merged = traitlets.Dict().tag(sync=True)
    """``{set_key: [{"item": kept, "variants": [other spellings]}]}``: items the model maps to one
    vector (e.g. "John" and "john" under a lowercasing model), counted once; the editor shows each
    group as one chip. Filled by the analysis (see :class:`WeatExplorer`)."""
    test_name = traitlets.Unicode("").tag(sync=True)
    """The bundled test shown ("" for a custom one). Choosing another in the picker loads it."""
    test_choices = traitlets.List().tag(sync=True)
    """``[[name, label], ...]`` for the test picker (empty: no picker)."""
    model_name = traitlets.Unicode("").tag(sync=True)
    """The model in use. Choosing another in the picker reruns the test with it."""
    model_choices = traitlets.List().tag(sync=True)
    """``[[name, label], ...]`` for the model picker (empty: no picker)."""
    revision = traitlets.Int(0).tag(sync=True)
    """Incremented after every recomputation (the front end's busy state ends there)."""
    live = traitlets.Bool(False).tag(sync=True)
    """True when an analysis recomputes on every edit (the front end then shows a busy state)."""

    def __init__(self, spec: AssociationTestSpec | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if spec is not None:
            self.name = spec.name
            self.sets = sets_of(spec)
            self.published = sets_of(spec)
        elif not self.sets:
            self.sets = {k: {"category": k, "examples": []} for k in SET_KEYS}

    @traitlets.validate("sets")
    def _valid_sets(self, proposal: dict) -> dict:
        """Sets given are checked; sets not given keep their current value (``sets = {"targ1": ...}``
        changes targ1 only). A string for a set, or an item that is not a string, is a ``TraitError``."""
        value = proposal["value"]
        if not isinstance(value, dict):
            raise traitlets.TraitError(f"sets must be a dict of set name -> {{category, examples}}, got {value!r}")
        unknown = sorted(set(value) - set(SET_KEYS))
        if unknown:
            raise traitlets.TraitError(f"unknown set(s) {unknown}: use {', '.join(SET_KEYS)}")
        current = self.sets or {}
        out = {}
        for key in SET_KEYS:
            if key not in value and key in current:
                out[key] = current[key]
                continue
            entry = value.get(key) or {}
            if not isinstance(entry, dict):
                raise traitlets.TraitError(f"sets[{key!r}] must be {{'category': str, 'examples': [str, ...]}}")
            examples = entry.get("examples") or []
            if not isinstance(examples, list | tuple):
                raise traitlets.TraitError(
                    f"sets[{key!r}]['examples'] must be a list of strings, got {type(examples).__name__} {examples!r}"
                )
            bad = [e for e in examples if not isinstance(e, str)]
            if bad:
                raise traitlets.TraitError(
                    f"sets[{key!r}]['examples'] holds {bad[0]!r} ({type(bad[0]).__name__}), not a string: "
                    "type the word as text"
                )
            out[key] = {"category": str(entry.get("category") or key), "examples": list(examples)}
        return out

    @traitlets.validate("test_name")
    def _valid_test_name(self, proposal: dict) -> str:
        """``""`` (custom sets) or one of ``test_choices`` (any name while there is no picker)."""
        value, names = proposal["value"], [c[0] for c in self.test_choices]
        if value and names and value not in names:
            raise traitlets.TraitError(f"unknown test {value!r}: pick one of {', '.join(names)}")
        return value

    @traitlets.observe("sets")
    def _sets_changed(self, change: dict) -> None:
        self.export_text = json.dumps(self.sets, indent=2, ensure_ascii=False) + "\n"

    @traitlets.observe("import_text")
    def _import(self, change: dict) -> None:
        text = change["new"]
        if not text.strip():
            return
        try:
            spec = parse_test_text(text, name=self.name, source="imported JSON")
        except TestFileError as err:
            self.error = f"Import failed, your sets are unchanged: {err}"
            return
        with self.hold_sync():
            self.error = ""
            self.notes = list(spec.notes)
            self.sets = sets_of(spec)
            self.import_text = ""
