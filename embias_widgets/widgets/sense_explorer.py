"""``SenseWeatExplorer``: a WEAT over word senses, edited with four sense selectors, with the
word-level result of the same test beside it.

Zhou, Kaneko & Bollegala (2022, section 3 and Table 2): each item of the four sets
is a WordNet 3.0 sense (a chip picked in a :class:`SenseSelector`) or a lemma,
which stands for all its senses ("max over senses"). Every edit reaches Python
through a selector's ``selected`` trait; the explorer updates its
:class:`~embias_widgets.analysis.senses.SenseAssociationTest` (which encodes only
senses it has not seen), reruns it and draws two sets of bars: the sense-level
effect size and the word-level twin, where every item is its lemma's eq. 7
vector (the mean of its sense vectors). The max over all sense pairs is named
under the word-level bars. As in the WEAT explorer, a sampled test first shows
every d with a provisional p from the first block of splits, then the full p.
Nothing is computed in the front end.
"""

from __future__ import annotations

import math
import time
from typing import Any

import ipywidgets

from ..analysis.association import DEFAULT_ALPHA
from ..analysis.senses import (
    LEVEL_TITLES,
    USER_ERRORS,
    SenseAssociationResult,
    SenseAssociationTest,
    describe,
    load_wordnet,
)
from ..formatting import format_value
from .effect_size_bars import EffectSizeBars, robustness_of
from .sense_selector import SenseSelector
from .sense_sets_bar import SenseSetsBar

ROLES = {"targ1": "Target X", "targ2": "Target Y", "attr1": "Attribute A", "attr2": "Attribute B"}
"""The four sets, in the order the selectors are laid out."""


class SenseWeatExplorer(ipywidgets.VBox):
    """Pick senses for a WEAT and watch the sense-level and word-level effect sizes change.

    Parameters
    ----------
    test
        A bundled sense test name, an :class:`~embias_widgets.stimuli.AssociationTestSpec`
        whose items are sense keys or lemmas, or a
        :class:`~embias_widgets.analysis.senses.SenseAssociationTest`.
    alpha
        Level for the significance mark (default 0.01, the level of the report and ``embias weat``).
    progressive
        For a sampled test, first show p from the first block of splits (the same first draws as the full run,
        marked provisional), then the full-precision p (default True). d is final in both.
    **options
        Passed to :class:`~embias_widgets.analysis.senses.SenseAssociationTest`
        (``model``, ``senses``, ``n_samples``, ``seed``, ...).
    """

    def __init__(self, test: Any = None, *, alpha: float = DEFAULT_ALPHA, progressive: bool = True,
                 **options: Any) -> None:
        self.progressive = progressive
        self.analysis = test if isinstance(test, SenseAssociationTest) else SenseAssociationTest(test, **options)
        wordnet = self.analysis.wordnet or load_wordnet()
        spec = self.analysis.spec
        self.selectors = {
            key: SenseSelector(
                getattr(spec, key).examples,
                label=f"{ROLES[key]}: {getattr(spec, key).category}",
                allow_lemmas=True,
                wordnet=wordnet,
                tools=False,  # the source line, "?" and import/export are shown once, by sets_bar
            )
            for key in ROLES
        }
        self.sets_bar = SenseSetsBar(self.selectors, names=ROLES)
        """The WordNet source line, "?" help and JSON import/export of all four sets, shown once."""
        self.sense_bars = EffectSizeBars(alpha=alpha)
        self.word_bars = EffectSizeBars(alpha=alpha)
        for bars, kind in ((self.sense_bars, "sense"), (self.word_bars, "word")):
            bars.add_class(f"embias-sense-{kind}-level")
        self.result: SenseAssociationResult | None = None
        self.elapsed_ms: float | None = None
        self.first_ms: float | None = None
        """Milliseconds from the edit to the first bars (every d, and a provisional p when sampled)."""
        # four selectors in 4, 2 or 1 columns by the explorer's own width (never 3 + 1): the container
        # queries in js/sense_selector.css; the layout here is the fallback where they do not apply
        grid = ipywidgets.GridBox(
            [self.selectors[k] for k in ROLES],
            layout=ipywidgets.Layout(
                grid_template_columns="repeat(auto-fit, minmax(min(320px, 100%), 1fr))", grid_gap="8px"),
        )
        grid.add_class("embias-sense-grid")
        bars = ipywidgets.HBox([self.sense_bars, self.word_bars], layout=ipywidgets.Layout(flex_flow="row wrap"))
        super().__init__([self.sets_bar, grid, bars])
        self.add_class("embias-sense-explorer")
        for selector in self.selectors.values():
            selector.observe(self._on_edit, names="selected")
            selector.observe(self._on_refused, names="refused")
        self.refresh()

    def _on_edit(self, change: dict) -> None:
        self.refresh()

    def _on_refused(self, change: dict) -> None:
        """A pick refused at a selector's trait boundary (``widgets/_base``): the chips keep the previous
        picks, but the user sees a refused pick, so both bars are marked stale; once fixed, recompute."""
        if change["new"]:
            message = " ".join(r["message"] for r in change["new"].values())
            self.sense_bars.show_error(message)
            self.word_bars.show_error(message)
        elif self.sense_bars.stale and not any(s.refused for s in self.selectors.values()):
            self.refresh()

    def refresh(self) -> SenseAssociationResult | None:
        """Apply the selectors' picks, rerun, redraw.

        Any failure (an empty set, a key the sense model lacks, a model error) is shown on both bars and
        their old numbers are cleared from view; the picks are kept.
        """
        t0 = time.perf_counter()
        for bars in (self.sense_bars, self.word_bars):
            bars.busy = True
        try:
            for key, selector in self.selectors.items():
                self.analysis.set_items(key, selector.selected)
            result = self.analysis.run(provisional=self.progressive)
            self.first_ms = (time.perf_counter() - t0) * 1000
            if result.provisional_levels:  # every d and a first p now, the full p when ready
                self._draw(result, self.first_ms)
                result = self.analysis.run()
        except Exception as err:  # every failure is shown; nothing old stays drawn beside new picks
            self._fail(err)
            return None
        self.elapsed_ms = (time.perf_counter() - t0) * 1000
        self.result = result
        self._draw(result, self.elapsed_ms)
        return result

    def _fail(self, err: Exception) -> None:
        if isinstance(err, USER_ERRORS):
            message = describe(err)
        else:
            message = f"{type(err).__name__}: {err} (an internal error: please report it)"
        self.result = None
        self.sense_bars.show_error(message)
        self.word_bars.show_error(message)

    def _draw(self, result: SenseAssociationResult, elapsed_ms: float) -> None:
        d_max = result.core("word_max").effect_size
        d_max_text = "undefined" if d_max is None else format_value(d_max, "effect")
        extent = shared_extent(result.bar_rows(level) for level in ("sense", "word_average"))
        for bars, level, note in (
            (self.sense_bars, "sense", "Items: senses as picked; a lemma chip takes the max over its senses"),
            (
                self.word_bars,
                "word_average",
                "Every item replaced by its lemma's mean sense vector. "
                f"Max over all sense pairs instead: d = {d_max_text}",
            ),
        ):
            with bars.hold_sync():  # one sync message: the extent and the rows arrive together
                bars.shared_extent = extent  # one x scale for both bar sets, so they compare by eye
                bars.show_core(
                    result.core(level),
                    title=f"{result.test}: {LEVEL_TITLES[level]}",
                    subtitle=f"on {result.model}",
                    test_name=f"{result.test}-{level}",
                    model_name=result.model,
                    categories=result.categories,
                    per_word=result.bar_rows(level),  # the word level sees only the lemma of each item
                    elapsed_ms=elapsed_ms,
                    provisional_of=result.provisional_of_level(level),
                    note=note,
                    **_trust_of(result, level, bars.alpha),
                )


def _trust_of(result: SenseAssociationResult, level: str, alpha: float) -> dict[str, Any]:
    """What the bars show of how far to trust a level's d, from the result's records of that level: its
    interval and, once its p is final, each item's influence and the stability verdict (:func:`robustness_of`,
    at the bars' alpha), for the sense level (items resampled) and the eq. 7 word level (lemmas resampled)."""
    from types import SimpleNamespace

    if result.provisional_of_level(level) is not None:  # the influence and stability p's wait for the full run
        return {"effect_size_interval": result.interval_record(level), "influence": None, "stability": None}
    view = SimpleNamespace(  # the level's records, as robustness_of reads a result's
        effect_size=result.core(level).effect_size, interval_record=lambda: result.interval_record(level),
        influence=lambda **kw: result.influence(level=level, **kw),
        stability=lambda **kw: result.stability(level=level, **kw))
    return robustness_of(view, alpha)


def shared_extent(row_sets: Any) -> list[float]:
    """``[min, max]`` of the finite s(w, A, B) over several bar sets (``[]`` when none): the extent both sets'
    x axes span (:attr:`EffectSizeBars.shared_extent`); the front end rounds it to ticks."""
    values = [float(r["association"]) for rows in row_sets for r in rows
              if r.get("association") is not None and math.isfinite(r["association"])]
    return [min(values), max(values)] if values else []
