"""``ContextualAssociationResult``: a CEAT run (Guo & Caliskan 2021) and every sample it drew.

The headline is :func:`~embias_widgets.metrics.ceat_test`'s: the mean of the ``N`` samples' effect sizes, its
two-stage bootstrap interval over words and contexts and its permutation p. Guo & Caliskan's random-effects
combination of the same samples is kept beside it, labelled as a reproduction of the paper (its interval and p
treat the ``N`` samples as independent studies and are not valid inference).

``summary()``, ``to_dict()`` (the headline, the reproduction under ``guo_caliskan_random_effects`` and every
sample's ``effect_size`` and ``variance``, so anyone can recombine them), ``frame()`` (one row per sample) and
``chart()`` (the distribution of the sample effect sizes, with the effect size and its interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...formatting import READ_AT, format_value
from ...metrics.ceat import VARIANCE_CONVENTION, MetaAnalysis
from ...metrics.ceat_inference import CeatTest
from ...stimuli import SET_KEYS

INTERVAL_METHOD = (
    "random-effects meta-analysis (DerSimonian-Laird) over the N samples of one context per word: "
    "ES +- z * SE, normal quantile (Guo & Caliskan 2021)"
)
"""The method text of the reproduced random-effects interval."""
REPRODUCTION_CAVEAT = (
    "a reproduction of Guo & Caliskan (2021): their random-effects combination treats the N samples as "
    "independent studies, but every sample reuses the same words and contexts, so its interval narrows and its p "
    "shrinks as N grows whatever the words; it is not valid inference (use effect_size_interval and p_value)"
)
SIGNIFICANCE = 0.05
"""The level at which the summary says whether the permutation p and the interval tell the same story."""


def _p_text(p: float) -> str:
    return "< 1e-300 (0 in double precision)" if p == 0 else f"= {p:.3g}"


def finite_or_none(value: float) -> float | None:
    """``value`` as a float, or None (JSON ``null``) when it is NaN or infinite."""
    value = float(value)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class ContextualAssociationResult:
    """What a :class:`~embias_widgets.analysis.ceat.ContextualAssociationTest` computed.

    Attributes
    ----------
    test, model, options
        The test's name, the model's name, and how vectors were made (layer, subwords, lowercasing).
    categories, words
        Per set (``targ1`` = X, ``targ2`` = Y, ``attr1`` = A, ``attr2`` = B): its category and the words used.
    contexts_source, contexts_per_word
        Where the sentences came from and how many each used word has.
    missing
        Per set, the words left out because no sentence held them (the authors drop such words too).
    effect_sizes, variances
        Each sample's WEAT d and the authors' 'variance' (see :data:`~embias_widgets.metrics.ceat.VARIANCE_CONVENTION`).
    meta
        Guo & Caliskan's random-effects combination (:class:`~embias_widgets.metrics.ceat.MetaAnalysis`): a
        reproduction of the paper, not the headline.
    inference
        The headline effect size, interval and p (:class:`~embias_widgets.metrics.ceat_inference.CeatTest`).
    seed, notes
        The sampling seed; what a reader should know (dropped words or contexts, degenerate sets).
    """

    test: str
    model: str
    options: str
    categories: dict[str, str]
    words: dict[str, tuple[str, ...]]
    contexts_source: str
    contexts_per_word: dict[str, int]
    missing: dict[str, tuple[str, ...]]
    effect_sizes: np.ndarray
    variances: np.ndarray
    meta: MetaAnalysis
    inference: CeatTest
    seed: int | None
    notes: tuple[str, ...] = field(default=())

    @property
    def effect_size(self) -> float:
        """The headline effect size: the mean of the ``N`` samples' d."""
        return self.inference.effect_size

    @property
    def interval(self) -> tuple[float, float]:
        """The headline interval (two-stage bootstrap over words and contexts, BC)."""
        return self.inference.interval

    @property
    def p_value(self) -> float:
        """The headline p: the permutation test of the target words' labels."""
        return self.inference.p_value

    @property
    def combined_effect_size(self) -> float:
        """Guo & Caliskan's random-effects combined effect size (CES in the paper; a reproduction)."""
        return self.meta.combined_effect_size

    def agreement(self) -> str | None:
        """One sentence when the p and the interval tell different stories at 0.05 / the interval's level."""
        low, high = self.interval
        if not (math.isfinite(low) and math.isfinite(high)):
            return None
        holds_zero = low <= 0 <= high
        if self.p_value < SIGNIFICANCE and holds_zero:
            return ("significant for these words (the permutation p holds the attribute words and contexts fixed); "
                    "the interval over other words and contexts of the same kinds includes 0")
        if self.p_value >= SIGNIFICANCE and not holds_zero:
            return ("the interval over other words and contexts of the same kinds excludes 0, but the permutation "
                    f"test with these attribute words is not significant at {SIGNIFICANCE:g}"
                    + (" (it is one-sided: it looks for X closer to A)" if self.inference.alternative == "greater"
                       and high < 0 else ""))
        return None

    def summary(self) -> str:
        """One paragraph: the effect size with its interval and p, then the paper's reproduction, the sizes."""
        m, r = self.meta, self.inference
        x, y = self.categories["targ1"], self.categories["targ2"]
        a, b = self.categories["attr1"], self.categories["attr2"]
        dropped = sum(len(v) for v in self.missing.values())
        low, high = r.interval
        interval = (f"{r.level:.0%} interval {low:+.3f} to {high:+.3f} over words and contexts"
                    if math.isfinite(low) and math.isfinite(high) else "no interval: no replicate had a defined d")
        sides = {"greater": "one-sided", "less": "one-sided (less)", "two-sided": "two-sided"}[r.alternative]
        story = self.agreement()
        return (
            f"CEAT {self.test} on {self.model}: effect size d {r.effect_size:+.3f} (mean of N = {r.n_samples:,} "
            f"samples of one context per word; {interval}), {sides} permutation p = "
            f"{format_value(r.p_value, 'p', READ_AT)}"
            + (f"; {story}" if story else "")
            + f". Positive: {x} closer to {a} and {y} to {b}. Contexts: {self.contexts_source}"
            + (f"; {dropped} word(s) without contexts left out" if dropped else "")
            + f". Reproduction of Guo & Caliskan's random effects (not valid inference: it treats the N samples as "
            f"independent): combined effect size {m.combined_effect_size:+.3f}, p {_p_text(m.p_value)}, "
            f"I^2 = {m.i_squared:.1%}."
        )

    def interval_dict(self) -> dict[str, Any] | None:
        """``effect_size_interval`` as the project's JSON convention writes intervals (None when undefined)."""
        low, high = self.inference.interval
        if not (math.isfinite(low) and math.isfinite(high)):
            return None
        return {"low": float(low), "high": float(high), "level": self.inference.level,
                "method": self.inference.interval_method}

    def reproduction_dict(self) -> dict[str, Any]:
        """Guo & Caliskan's random-effects numbers, under their own names, with the caveat."""
        m = self.meta
        low, high = m.interval
        return {
            "caveat": REPRODUCTION_CAVEAT,
            "combined_effect_size": finite_or_none(m.combined_effect_size),
            "combined_effect_size_interval": {"low": finite_or_none(low), "high": finite_or_none(high),
                                              "level": m.level, "method": INTERVAL_METHOD},
            "standard_error": finite_or_none(m.standard_error),
            "p_value": finite_or_none(m.p_value),
            "p_value_method": "one-sided, 1 - Phi(ES / SE) (Guo & Caliskan's ceat_meta)",
            "q": finite_or_none(m.q),
            "df": m.df,
            "i_squared": finite_or_none(m.i_squared),
            "tau_squared": finite_or_none(m.tau_squared),
            "variance_convention": VARIANCE_CONVENTION,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (no NaN or Infinity: an undefined number is ``null``): the headline with its interval and
        p, the paper's reproduction, every sample, the words and their contexts."""
        r = self.inference
        return {
            "method": "CEAT (Guo & Caliskan 2021)",
            "test": self.test,
            "model": self.model,
            "options": self.options,
            "n": r.n_samples,
            "seed": self.seed,
            "effect_size": finite_or_none(r.effect_size),
            "effect_size_interval": self.interval_dict(),
            "estimand": r.estimand,
            "p_value": finite_or_none(r.p_value),
            "p_value_method": r.p_value_method,
            "alternative": r.alternative,
            "n_resamples": r.n_resamples,
            "n_permutations": r.n_permutations,
            "agreement": self.agreement(),
            "guo_caliskan_random_effects": self.reproduction_dict(),
            "samples": [{"effect_size": finite_or_none(e), "variance": finite_or_none(v)}
                        for e, v in zip(self.effect_sizes, self.variances, strict=True)],
            "sets": {key: {"category": self.categories[key], "words": list(self.words[key]),
                           "missing_contexts": list(self.missing[key])} for key in SET_KEYS},
            "contexts": {"source": self.contexts_source, "per_word": dict(self.contexts_per_word)},
            "notes": list(self.notes),
        }

    def frame(self) -> Any:
        """pandas DataFrame: one row per sample (``sample``, ``effect_size``, ``variance``)."""
        import pandas as pd

        return pd.DataFrame({"sample": np.arange(len(self.effect_sizes)), "effect_size": self.effect_sizes,
                             "variance": self.variances}, columns=["sample", "effect_size", "variance"])

    def chart(self) -> Any:
        """altair: the histogram of the sample effect sizes, the effect size (rule) and its interval (band)."""
        import altair as alt
        import pandas as pd

        from ...palette import CATEGORICAL, PAIR_COLORS
        from ..charts import setup_charts

        setup_charts()
        accent = PAIR_COLORS["pairs: first"]
        low, high = self.inference.interval
        bars = alt.Chart(self.frame(), title=f"CEAT {self.test} on {self.model}").mark_bar(color=CATEGORICAL[0]).encode(
            x=alt.X("effect_size:Q", bin=alt.Bin(maxbins=40), title="effect size d of one sample"),
            y=alt.Y("count():Q", title="samples"),
        )
        headline = pd.DataFrame({"d": [self.effect_size], "low": [finite_or_none(low)],
                                 "high": [finite_or_none(high)]})
        band = alt.Chart(headline).transform_filter("isValid(datum.low)").mark_rect(opacity=0.3, color=accent).encode(
            x="low:Q", x2="high:Q")
        rule = alt.Chart(headline).mark_rule(color=accent, size=2).encode(
            x="d:Q", tooltip=[alt.Tooltip("d:Q", title="effect size (mean of the samples)", format="+.3f"),
                              alt.Tooltip("low:Q", format="+.3f"), alt.Tooltip("high:Q", format="+.3f")])
        return (bars + band + rule).properties(width=480)
