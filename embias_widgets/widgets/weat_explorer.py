"""``WeatExplorer``: the word-set editor and the effect-size bars, live.

Every edit in the editor reaches Python through the ``sets`` trait; the
explorer updates its :class:`AssociationTest` (which encodes only new words),
reruns the test and sends the result to the bars. The editor's pickers choose
a bundled test (``test_name``) or a model (``model_name``); any failure of a
recompute shows as an error and clears the previous result.
"""

from __future__ import annotations

import json
import time
from typing import Any

import ipywidgets

from ..analysis import AssociationTest, AssociationTestResult, SentenceAssociationTest
from ..analysis.association import (
    DEFAULT_ALPHA,
    SET_KEYS,
    USER_ERRORS,
    association_test_for,
    display_test_name,
    load_association_model,
    model_choices,
    test_choices,
    test_names,
)
from ..models.fingerprints import ContentKeyedModels
from ._base import refusal_message
from .effect_size_bars import EffectSizeBars
from .word_set_editor import WordSetEditor, sets_of


class WeatExplorer(ipywidgets.VBox):
    """Edit a WEAT/SEAT test and watch d and p change.

    Parameters
    ----------
    test
        A bundled test name, a sent-bias file path, a spec, or an
        :class:`AssociationTest` (e.g. a sentence test).
    alpha
        Level for the significance mark (default 0.01, the level of the report and ``embias weat``).
    progressive
        For a sampled test, first show p from the first block of splits (the
        same first draws as the full run, marked provisional), then the
        full-precision p (default True). d is final in both.
    **options
        Passed to :class:`AssociationTest` (``model``, ``n_samples``, ``seed``, ...).
    """

    def __init__(self, test: Any = "weat1", *, alpha: float = DEFAULT_ALPHA, progressive: bool = True,
                 **options: Any) -> None:
        self.progressive = progressive
        self._options = {k: v for k, v in options.items() if k != "model"}
        self._models = ContentKeyedModels()  # by content: a file edited in place is loaded again
        self.edited: dict[str, dict[str, Any]] = {}
        """``{test name: sets}``: the user's edits of each test they switched away from (restored on coming back)."""
        if isinstance(test, AssociationTest):
            self.analysis = test
        else:
            self.analysis = self._new_analysis(test, options.get("model"))
        self._sentence = isinstance(self.analysis, SentenceAssociationTest)
        self.editor = WordSetEditor(self.analysis.spec)
        self.bars = EffectSizeBars(alpha=alpha)
        self.result: AssociationTestResult | None = None
        self.elapsed_ms: float | None = None
        self.first_ms: float | None = None
        """Milliseconds from the edit to the first bars (with the provisional p, if any)."""
        super().__init__([self.editor, self.bars])
        model_key = self._model_key(options.get("model"))
        self._models[model_key] = self.analysis.model
        names = test_names(self._sentence)
        with self.editor.hold_sync():
            self.editor.test_choices = test_choices(self._sentence)
            self.editor.test_name = self.analysis.spec.name if self.analysis.spec.name in names else ""
            self.editor.model_choices = model_choices(model_key)
            self.editor.model_name = model_key
            self.editor.live = True
        self.editor.observe(self._on_edit, names="sets")
        self.editor.observe(self._on_pick_test, names="test_name")
        self.editor.observe(self._on_pick_model, names="model_name")
        self.editor.observe(self._on_refused, names="refused")
        self.refresh()

    # -- building the analysis -------------------------------------------------
    def _model_key(self, model: Any) -> str:
        if isinstance(model, str):
            return model
        if model is None:
            return "all-MiniLM-L6-v2" if isinstance(self.analysis, SentenceAssociationTest) else "glove-6b-50d"
        return str(getattr(model, "name", type(model).__name__))

    def _new_analysis(self, test: Any, model: Any) -> AssociationTest:
        kwargs = dict(self._options)
        if model is not None:
            kwargs["model"] = model
        return association_test_for(test, **kwargs)

    def _model(self, name: str) -> Any:
        if name not in self._models:
            self._models[name] = load_association_model(name)
        return self._models[name]

    # -- editor events ------------------------------------------------------------
    def _on_edit(self, change: dict) -> None:
        self.refresh()

    def _on_pick_test(self, change: dict) -> None:
        name = change["new"]
        if not name or name == self.analysis.spec.name:
            return
        self._busy()
        try:
            analysis = self._new_analysis(name, self.analysis.model)
        except Exception as err:  # a test that cannot be built is refused and shown, not raised into the front end
            self._refuse_pick("test_name", change, err)
            return
        left = self.analysis.spec.name
        if self.editor.sets != self.editor.published:  # the user's edits of the test left, kept for coming back
            self.edited[left] = json.loads(json.dumps(self.editor.sets))
        else:
            self.edited.pop(left, None)
        self.analysis = analysis
        kept = self.edited.get(name)
        with self.editor.hold_sync():
            self.editor.name = analysis.spec.name
            self.editor.published = sets_of(analysis.spec)
            self.editor.notes = []
            self.editor.unobserve(self._on_edit, names="sets")
            try:
                self.editor.sets = json.loads(json.dumps(kept)) if kept else sets_of(analysis.spec)
            finally:
                self.editor.observe(self._on_edit, names="sets")
        self.refresh()
        if kept:
            restored = f"Your edits of {name} are restored; Reset shows the published sets."
            self.editor.notes = [*self.editor.notes, restored]

    def _on_pick_model(self, change: dict) -> None:
        name = change["new"]
        if not name:
            return
        self._busy()
        try:
            model = self._model(name)
            test = self.analysis.sentence_spec if self._sentence else self.analysis.spec
            analysis = self._new_analysis(test, model)
        except Exception as err:
            self._refuse_pick("model_name", change, err)
            return
        self.analysis = analysis
        self.refresh()

    def _refuse_pick(self, trait: str, change: dict, err: Exception) -> None:
        """A picked test or model that cannot be used is refused (the rule of ``widgets/_base``): the
        picker goes back to the one in use, the pick and the reason are shown, the bars marked stale."""
        handler = self._on_pick_test if trait == "test_name" else self._on_pick_model
        self.editor.unobserve(handler, names=trait)
        try:
            setattr(self.editor, trait, change["old"])
        finally:
            self.editor.observe(handler, names=trait)
        reason = _message_of(err)
        with self.editor.hold_sync():
            message = refusal_message(trait, change["new"], reason)
            self.editor.refuse({trait: {"value": change["new"], "reason": reason, "message": message}})
            self.editor.busy = False
            self.editor.revision += 1

    def _on_refused(self, change: dict) -> None:
        """An input refused at the editor's trait boundary: the bars' numbers no longer match what the
        user sees typed, so they are marked stale; once every refused input is fixed, recompute."""
        if change["new"]:
            self.bars.show_error(" ".join(r["message"] for r in change["new"].values()))
        elif self.bars.stale:
            self.refresh()

    def _busy(self) -> None:
        self.editor.busy = True
        self.bars.busy = True

    def _fail(self, err: Exception, notes: list[str]) -> None:
        message = _message_of(err)
        self.result = None
        with self.editor.hold_sync():
            self.editor.error = message
            self.editor.notes = notes
            self.editor.busy = False
            self.editor.revision += 1
        self.bars.show_error(message)

    # -- recomputing ---------------------------------------------------------------
    def refresh(self) -> AssociationTestResult | None:
        """Apply the editor's sets, rerun, redraw.

        Any failure (an empty set, nothing in the vocabulary, a model error) is
        shown in the editor and the bars, and the previous d, p and bars are
        cleared; the sets are kept as typed.
        """
        t0 = time.perf_counter()
        self._busy()
        notes: list[str] = []
        try:
            for key in SET_KEYS:
                entry = self.editor.sets[key]
                if entry["category"] != getattr(self.analysis.spec, key).category:
                    self.analysis.rename(key, entry["category"])
                dups = self.analysis.set_items(key, entry["examples"])
                if dups:
                    notes.append(f"{key}: duplicate item(s) {', '.join(repr(d) for d in dups)} counted once")
            result = self.analysis.run(provisional=self.progressive)
        except Exception as err:  # every failure is shown; nothing old stays drawn beside new input
            self._fail(err, notes)
            return None
        oov = {
            key: [{"item": o.item, "suggestions": list(o.suggestions)} for o in result.oov[key]]
            for key in SET_KEYS
        }
        with self.editor.hold_sync():
            self.editor.oov = oov
            self.editor.merged = _merged_of(result)
            self.editor.error = ""
            self.editor.notes = notes + [n for n in result.notes if n not in notes]
            self.editor.busy = False
            self.editor.revision += 1
        self.first_ms = (time.perf_counter() - t0) * 1000
        if result.provisional_of is not None:  # bars and a first p now, the full p when ready
            self.bars.show(result, elapsed_ms=self.first_ms, title=self._title())
            try:
                result = self.analysis.run()
            except Exception as err:
                self._fail(err, notes)
                return None
        self.elapsed_ms = (time.perf_counter() - t0) * 1000
        self.result = result
        self.bars.show(result, elapsed_ms=self.elapsed_ms, title=self._title())
        return result

    def _title(self) -> str:
        spec = self.analysis.spec
        name = display_test_name(spec.name)
        return f"{name}: {spec.description}" if spec.description else name


def _message_of(err: Exception) -> str:
    """What the user reads: a user error as it is, any other failure named as an internal error."""
    if isinstance(err, USER_ERRORS):
        return str(err) or type(err).__name__
    return f"{type(err).__name__}: {err} (an internal error: please report it)"


def _merged_of(result: AssociationTestResult) -> dict[str, list[dict[str, Any]]]:
    """The analysis's merged items (``result.merged``: items the model maps to one vector) in the
    editor's layout ``{set_key: [{"item": kept, "variants": [merged spellings]}]}``."""
    out: dict[str, list[dict[str, Any]]] = {}
    for m in getattr(result, "merged", ()) or ():
        out.setdefault(m.set, []).append({"item": m.item, "variants": list(m.same_as)})
    return out
