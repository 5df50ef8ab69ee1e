"""``WeatExplorer``: the word-set editor and the effect-size bars, live.

Every edit in the editor reaches Python through the ``sets`` trait; the
explorer updates its :class:`AssociationTest` (which encodes only new words),
reruns the test and sends the result to the bars.
"""

from __future__ import annotations

import time
from typing import Any

import ipywidgets

from ..analysis import AssociationInputError, AssociationTest, AssociationTestResult, SentenceAssociationTest
from ..stimuli import SET_KEYS
from ..stimuli.sentence_tests import is_sentence_test
from .effect_size_bars import EffectSizeBars
from .word_set_editor import WordSetEditor


class WeatExplorer(ipywidgets.VBox):
    """Edit a WEAT/SEAT test and watch d and p change.

    Parameters
    ----------
    test
        A bundled test name, a sent-bias file path, a spec, or an
        :class:`AssociationTest` (e.g. a sentence test).
    alpha
        Level for the significance mark (default 0.05).
    progressive
        For a sampled test, first show p from the first block of splits (the
        same first draws as the full run, marked provisional), then the
        full-precision p (default True). d is final in both.
    **options
        Passed to :class:`AssociationTest` (``model``, ``n_samples``, ``seed``, ...).
    """

    def __init__(self, test: Any = "weat1", *, alpha: float = 0.05, progressive: bool = True, **options: Any) -> None:
        self.progressive = progressive
        if isinstance(test, AssociationTest):
            self.analysis = test
        elif is_sentence_test(test):  # words + templates: an edited word regenerates its sentences
            self.analysis = SentenceAssociationTest(test, **options)
        else:
            self.analysis = AssociationTest(test, **options)
        self.editor = WordSetEditor(self.analysis.spec)
        self.bars = EffectSizeBars(alpha=alpha)
        self.result: AssociationTestResult | None = None
        self.elapsed_ms: float | None = None
        self.first_ms: float | None = None
        """Milliseconds from the edit to the first bars (with the provisional p, if any)."""
        super().__init__([self.editor, self.bars])
        self.editor.observe(self._on_edit, names="sets")
        self.refresh()

    def _on_edit(self, change: dict) -> None:
        self.refresh()

    def refresh(self) -> AssociationTestResult | None:
        """Apply the editor's sets, rerun, redraw.

        Any failure (bad input, or a bug: every exception) shows as an error in the
        editor and the bars, the bars are marked ``stale`` (their numbers belong to
        the previous sets) and ``self.result`` is ``None``; the sets are kept as typed.
        """
        t0 = time.perf_counter()
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
        except Exception as err:  # any failure must reach the user, not a log
            message = str(err) if isinstance(err, AssociationInputError) else (
                f"{type(err).__name__}: {err} (an internal error: please report it)"
            )
            self.result = None
            with self.editor.hold_sync(), self.bars.hold_sync():
                self.editor.error = message
                self.editor.notes = notes
                self.bars.error = f"Not computed: {message}"
                self.bars.stale = True
            return None
        oov = {
            key: [{"item": o.item, "suggestions": list(o.suggestions)} for o in result.oov[key]]
            for key in SET_KEYS
        }
        with self.editor.hold_sync():
            self.editor.oov = oov
            self.editor.error = ""
            self.editor.notes = notes + [n for n in result.notes if n not in notes]
        self.first_ms = (time.perf_counter() - t0) * 1000
        if result.provisional_of is not None:  # bars and a first p now, the full p when ready
            self.bars.show(result, elapsed_ms=self.first_ms)
            result = self.analysis.run()
        self.elapsed_ms = (time.perf_counter() - t0) * 1000
        self.result = result
        self.bars.show(result, elapsed_ms=self.elapsed_ms)
        return result
