"""``EffectSizeBars``: the effect size as a signed bar on a fixed -2..2 axis with
its bootstrap interval as whiskers, the p-value with its significance mark, alpha
and correction, how it was computed, the subset-stability verdict with its rule,
one bar per target word for its s(w, A, B) with the two cosine terms on hover
(Caliskan, Bryson & Narayanan 2017), and the word-influence view: d with each
word left out, the words that move d most marked (Antoniak & Mimno 2021,
Ethayarajh, Duvenaud & Hirst 2019). Every number comes from the analysis result."""

from __future__ import annotations

from typing import Any

import traitlets

from ..analysis import AssociationTestResult
from ..analysis.association import DEFAULT_ALPHA, describe_p_value, display_test_name
from ._base import EmbiasWidget, bundle

CORRECTION = "none (one test)"
MOVERS = 3
"""How many words the influence view marks as moving d most (besides any whose removal flips d's sign
or its significance)."""


def mark_movers(records: list[dict[str, Any]], n: int = MOVERS) -> list[dict[str, Any]]:
    """The influence records with ``"mover"``: True for the ``n`` largest ``|effect_size_change|`` and for
    every word whose removal flips the sign or the significance (display only: the numbers are the result's)."""
    changes = sorted((abs(r["effect_size_change"]) for r in records if r.get("effect_size_change") is not None),
                     reverse=True)
    cut = changes[n - 1] if len(changes) >= n else (changes[-1] if changes else None)
    out = []
    for r in records:
        change = r.get("effect_size_change")
        big = cut is not None and change is not None and abs(change) >= cut and abs(change) > 0
        out.append({**r, "mover": bool(big or r.get("flips_sign") or r.get("flips_significance"))})
    return out


def robustness_of(result: Any, alpha: float) -> dict[str, Any]:
    """What the bars show of a result's trustworthiness: its interval record, and (where the result offers
    them) its influence records with the movers marked and its stability record, at the bars' ``alpha``."""
    interval = result.interval_record() if hasattr(result, "interval_record") else None
    out: dict[str, Any] = {"effect_size_interval": dict(interval or {}), "influence": [], "stability": {}}
    if hasattr(result, "influence") and result.effect_size is not None:
        out["influence"] = mark_movers(result.influence(alpha=alpha))
    if hasattr(result, "stability") and result.effect_size is not None:
        keep = ("verdict", "reason", "story", "rule", "k", "keep", "share_same_sign", "share_significant",
                "share_significant_note")
        record = result.stability(alpha=alpha)
        out["stability"] = {k: record[k] for k in keep if k in record}
    return out


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
    alpha = traitlets.Float(DEFAULT_ALPHA).tag(sync=True)
    """The significance level, in (0, 1): 0.01 unless given, the level of the report and ``embias weat``."""
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
    correction = traitlets.Unicode(CORRECTION).tag(sync=True)
    """The correction for multiple tests behind the star, in words (one test here: none)."""
    effect_size_interval = traitlets.Dict().tag(sync=True)
    """``{"low", "high", "level", "method"}``: the bootstrap interval of d drawn as whiskers (``{}``: none)."""
    stability = traitlets.Dict().tag(sync=True)
    """``{"verdict", "reason", "story", "rule", "k", "keep", "share_same_sign", "share_significant",
    "share_significant_note"}`` from the result's ``stability()`` (``{}``: not computed); the verdict is shown
    beside d with its reason (the one-sentence story when p and the interval disagree) and its rule."""
    influence = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"set", "category", "word", "effect_size_without", "effect_size_change", "p_value_without",
    "flips_sign", "flips_significance", "mover"}]`` from the result's ``influence()``: d with each word left
    out; ``mover`` marks the words that move d most (see :func:`mark_movers`)."""

    # ``error``/``stale`` (from EmbiasWidget): while either is set the front end draws no d, p or bars.

    @traitlets.validate("alpha")
    def _valid_alpha(self, proposal: dict) -> float:
        value = proposal["value"]
        if not 0 < value < 1:
            raise traitlets.TraitError(f"alpha must be between 0 and 1 (e.g. 0.01), got {value!r}")
        return value

    def show(
        self, result: AssociationTestResult, *, elapsed_ms: float | None = None, title: str | None = None
    ) -> None:
        """Draw ``result`` (one sync message): d with its interval, p, and per word s(w, A, B) with its two
        cosine terms; once p is final, the stability verdict and each word's influence on d."""
        final = result.provisional_of is None
        robust = robustness_of(result, self.alpha) if final else {
            "effect_size_interval": dict(result.interval_record() or {}), "influence": [], "stability": {}}
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
            **robust,
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
        effect_size_interval: dict[str, Any] | None = None,
        stability: dict[str, Any] | None = None,
        influence: list[dict[str, Any]] | None = None,
    ) -> None:
        """Draw a WEAT-like result's numbers (``core``: an ``AssociationResult`` held by an analysis result,
        e.g. ``result.core``) and its per-word rows (``{"word", "set", "category", "association"}``,
        optionally ``"cos_a"``, ``"cos_b"``).

        ``provisional_of``: the number of sampled splits the full-precision p will use, when ``core``
        holds a first estimate from fewer (the busy state stays on until it comes); ``note`` is
        appended to the method text; ``word_groups``: SEAT's per-word rows (see the trait);
        ``effect_size_interval``, ``stability``, ``influence``: see the traits (none when not given).
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
            self.effect_size_interval = dict(effect_size_interval or {})
            self.stability = dict(stability or {})
            self.influence = list(influence or [])
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
