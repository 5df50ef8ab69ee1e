"""``EffectSizeBars``: the effect size as a signed bar on a fixed -2..2 axis,
the p-value with a significance mark, how it was computed, and one bar per
target word for its s(w, A, B)."""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from ..analysis import AssociationTestResult
from ..metrics import AssociationResult
from ._base import bundle


class EffectSizeBars(anywidget.AnyWidget):
    """Draws an :class:`AssociationTestResult`; computes nothing itself."""

    _esm = bundle("effect_size_bars.js")
    _css = bundle("effect_size_bars.css")

    title = traitlets.Unicode("").tag(sync=True)
    effect_size = traitlets.Float(None, allow_none=True).tag(sync=True)
    """d, or None when undefined (zero variance)."""
    p_value = traitlets.Float(None, allow_none=True).tag(sync=True)
    significant = traitlets.Bool(False).tag(sync=True)
    """p < alpha."""
    alpha = traitlets.Float(0.05).tag(sync=True)
    method_text = traitlets.Unicode("").tag(sync=True)
    """How p was computed, e.g. "exact over 12,870 splits"."""
    p_provisional = traitlets.Bool(False).tag(sync=True)
    """p is a first estimate from the first block of sampled splits; the full-precision p follows."""
    per_word = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"word", "set", "category", "association"}]`` for every target word."""
    categories = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    stale = traitlets.Bool(False).tag(sync=True)
    """The numbers shown belong to a previous input: the last recompute failed (see ``error``).
    The front end greys them out; :meth:`show` clears it."""

    def show(self, result: AssociationTestResult, *, elapsed_ms: float | None = None) -> None:
        """Draw ``result`` (one sync message)."""
        rows: list[dict[str, Any]] = [
            {"word": r.word, "set": r.set, "category": r.category, "association": r.association}
            for r in result.per_word().itertuples()
        ]
        self.show_core(
            result.core,
            title=f"{result.test} on {result.model}",
            categories=result.categories,
            per_word=rows,
            elapsed_ms=elapsed_ms,
            provisional_of=result.provisional_of,
        )

    def show_core(
        self,
        core: AssociationResult,
        *,
        title: str,
        categories: dict[str, str],
        per_word: list[dict[str, Any]],
        elapsed_ms: float | None = None,
        provisional_of: int | None = None,
        note: str = "",
    ) -> None:
        """Draw a metric-core result and its per-word rows (``{"word", "set", "category", "association"}``).

        ``provisional_of``: the number of sampled splits the full-precision p will use, when ``core``
        holds a first estimate from fewer; ``note`` is appended to the method text.
        """
        if provisional_of is not None:
            how = (
                f"provisional p from the first {core.n_permutations:,} of {provisional_of:,} sampled splits "
                "(+1 adjusted); the full-precision p follows"
            )
        elif core.exact:
            how = f"exact permutation test over all {core.n_permutations:,} splits"
        elif core.method == "parametric":
            how = f"parametric (normal fit to {core.n_permutations:,} sampled splits)"
        else:
            how = f"sampled permutation test, {core.n_permutations:,} splits (+1 adjusted)"
        how += f", {core.alternative}, {core.variant} variant, ddof={core.ddof}"
        if core.effect_size is None:
            how += f". Effect size undefined: {core.effect_size_note}"
        if elapsed_ms is not None:
            how += f"; computed in {elapsed_ms:.0f} ms"
        if note:
            how += f". {note}"
        with self.hold_sync():
            self.title = title
            self.effect_size = core.effect_size
            self.p_value = core.pvalue
            self.p_provisional = provisional_of is not None
            self.significant = core.pvalue < self.alpha
            self.method_text = how
            self.categories = dict(categories)
            self.per_word = per_word
            self.error = ""
            self.stale = False
