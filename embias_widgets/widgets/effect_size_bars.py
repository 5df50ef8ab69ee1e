"""``EffectSizeBars``: the effect size as a signed bar on a fixed -2..2 axis,
the p-value with a significance mark, how it was computed, and one bar per
target word for its s(w, A, B)."""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from ..analysis import AssociationTestResult
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

    def show(self, result: AssociationTestResult, *, elapsed_ms: float | None = None) -> None:
        """Draw ``result`` (one sync message)."""
        core = result.core
        if result.provisional_of is not None:
            how = (
                f"provisional p from the first {core.n_permutations:,} of {result.provisional_of:,} sampled splits "
                "(+1 adjusted); the full-precision p follows"
            )
        elif core.exact:
            how = f"exact permutation test over all {core.n_permutations:,} splits"
        elif core.method == "parametric":
            how = f"parametric (normal fit to {core.n_permutations:,} sampled splits)"
        else:
            how = f"sampled permutation test, {core.n_permutations:,} splits (+1 adjusted)"
        how += f", {core.alternative}, {core.variant} variant, ddof={core.ddof}"
        if result.effect_size is None:
            how += f". Effect size undefined: {core.effect_size_note}"
        if elapsed_ms is not None:
            how += f"; computed in {elapsed_ms:.0f} ms"
        rows: list[dict[str, Any]] = [
            {"word": r.word, "set": r.set, "category": r.category, "association": r.association}
            for r in result.per_word().itertuples()
        ]
        with self.hold_sync():
            self.title = f"{result.test} on {result.model}"
            self.effect_size = result.effect_size
            self.p_value = result.pvalue
            self.p_provisional = result.provisional_of is not None
            self.significant = result.pvalue < self.alpha
            self.method_text = how
            self.categories = result.categories
            self.per_word = rows
            self.error = ""
