"""``EffectSizeBars``: the effect size as a signed bar on a fixed -2..2 axis,
the p-value with its significance mark and alpha, how it was computed, and one
bar per target word for its s(w, A, B) with the two cosine terms on hover
(Caliskan, Bryson & Narayanan 2017)."""

from __future__ import annotations

from typing import Any

import traitlets

from ..analysis import AssociationTestResult
from ..analysis.association import describe_p_value, display_test_name
from ._base import EmbiasWidget, bundle


class EffectSizeBars(EmbiasWidget):
    """Draws an :class:`AssociationTestResult` (or any metric-core result); computes nothing itself."""

    _esm = bundle("effect_size_bars.js")
    _css = bundle("effect_size_bars.css")

    title = traitlets.Unicode("").tag(sync=True)
    """The test's published name and description, e.g. ``WEAT 6: Male vs female names ...``."""
    subtitle = traitlets.Unicode("").tag(sync=True)
    """The model, e.g. "on glove-6b-50d"."""
    test_name = traitlets.Unicode("").tag(sync=True)
    """Short test name for file names of exports."""
    model_name = traitlets.Unicode("").tag(sync=True)
    """Short model name for file names of exports."""
    effect_size = traitlets.Float(None, allow_none=True).tag(sync=True)
    """d, or None when undefined (zero variance)."""
    p_value = traitlets.Float(None, allow_none=True).tag(sync=True)
    significant = traitlets.Bool(False).tag(sync=True)
    """p < alpha."""
    alpha = traitlets.Float(0.05).tag(sync=True)
    """The significance level, in (0, 1)."""
    method_text = traitlets.Unicode("").tag(sync=True)
    """How p was computed, e.g. "exact over 12,870 splits"."""
    p_provisional = traitlets.Bool(False).tag(sync=True)
    """p is a first estimate from the first block of sampled splits; the full-precision p follows."""
    per_word = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"word", "set", "category", "association", "cos_a", "cos_b"}]`` for every target word:
    s(w, A, B) and, when known, its two terms (mean cosine with A and with B; max for the max variant)."""
    word_groups = traitlets.List(traitlets.Dict()).tag(sync=True)
    """SEAT only (else ``[]``): one row per word, ``{"set", "category", "word", "n", "mean", "sd", "min", "max",
    "sentences": [{"sentence", "association"}]}`` from :meth:`AssociationTestResult.word_groups`; the bars
    then show a word's mean s over its sentences with their range, and open to its sentences."""
    categories = traitlets.Dict().tag(sync=True)
    shared_extent = traitlets.List(traitlets.Float()).tag(sync=True)
    """Values the per-word x axis must also span besides this widget's own rows (``[]``: fit to its own rows).
    Two bar sets given the same extent (the sense explorer's sense and word levels) draw one x scale."""
    cos_label = traitlets.Unicode("mean cos").tag(sync=True)
    """How the two terms of s(w) are reduced over the attribute words ("mean cos" or "max cos")."""
    revision = traitlets.Int(0).tag(sync=True)
    """Incremented after every recompute, failed or not."""

    # ``error``/``stale`` (from EmbiasWidget): while either is set the front end draws no d, p or bars.

    @traitlets.validate("alpha")
    def _valid_alpha(self, proposal: dict) -> float:
        value = proposal["value"]
        if not 0 < value < 1:
            raise traitlets.TraitError(f"alpha must be between 0 and 1 (e.g. 0.05), got {value!r}")
        return value

    def show(
        self, result: AssociationTestResult, *, elapsed_ms: float | None = None, title: str | None = None
    ) -> None:
        """Draw ``result`` (one sync message): d, p, and per word s(w, A, B) with its two cosine terms."""
        self.show_core(
            result.core,
            title=title if title is not None else display_test_name(result.test),
            subtitle=f"on {result.model}",
            categories=result.categories,
            per_word=result.word_rows(),
            word_groups=result.word_groups(),
            elapsed_ms=elapsed_ms,
            provisional_of=result.provisional_of,
            test_name=result.test,
            model_name=result.model,
        )

    def show_core(
        self,
        core: Any,
        *,
        title: str,
        categories: dict[str, str],
        per_word: list[dict[str, Any]],
        elapsed_ms: float | None = None,
        provisional_of: int | None = None,
        note: str = "",
        subtitle: str = "",
        test_name: str = "",
        model_name: str = "",
        word_groups: list[dict[str, Any]] | None = None,
    ) -> None:
        """Draw a WEAT-like result's numbers (``core``: an ``AssociationResult`` held by an analysis result,
        e.g. ``result.core``) and its per-word rows (``{"word", "set", "category", "association"}``,
        optionally ``"cos_a"``, ``"cos_b"``).

        ``provisional_of``: the number of sampled splits the full-precision p will use, when ``core``
        holds a first estimate from fewer (the busy state stays on until it comes); ``note`` is
        appended to the method text; ``word_groups``: SEAT's per-word rows (see the trait).
        """
        how = describe_p_value(core, provisional_of=provisional_of)
        if elapsed_ms is not None:
            how += f"; computed in {elapsed_ms:.0f} ms"
        if note:
            how += f". {note}"
        with self.hold_sync():
            self.title = title
            self.subtitle = subtitle
            self.test_name = test_name
            self.model_name = model_name
            self.effect_size = core.effect_size
            self.p_value = core.pvalue
            self.p_provisional = provisional_of is not None
            self.significant = core.pvalue < self.alpha
            self.method_text = how
            self.categories = dict(categories)
            self.cos_label = "max cos" if core.variant == "max" else "mean cos"
            self.per_word = per_word
            self.word_groups = list(word_groups or [])
            self.error = ""
            self.stale = False
            self.busy = provisional_of is not None  # the full-precision p is still coming
            self.revision += 1

    def show_error(self, message: str) -> None:
        """Show why nothing could be computed; the old numbers are marked stale and cleared from view."""
        with self.hold_sync():
            self.error = f"Not computed: {message}"
            self.stale = True
            self.busy = False
            self.revision += 1
