"""``ContextualAssociationResult``: a CEAT run (Guo & Caliskan 2021) and every sample it combined.

``summary()``, ``to_dict()`` (every sample's ``effect_size`` and ``variance`` beside the combined effect size,
its interval, Q, I^2, tau^2 and p, so anyone can recombine them), ``frame()`` (one row per sample) and
``chart()`` (the distribution of the sample effect sizes, with the combined effect size and its interval).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...metrics.ceat import VARIANCE_CONVENTION, MetaAnalysis
from ...stimuli import SET_KEYS

INTERVAL_METHOD = (
    "random-effects meta-analysis (DerSimonian-Laird) over the N samples of one context per word: "
    "ES +- z * SE, normal quantile (Guo & Caliskan 2021)"
)


def _p_text(p: float) -> str:
    return "< 1e-300 (0 in double precision)" if p == 0 else f"= {p:.3g}"


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
        The random-effects combination (:class:`~embias_widgets.metrics.ceat.MetaAnalysis`).
    seed, notes
        The sampling seed; what a reader should know (dropped words or contexts).
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
    seed: int | None
    notes: tuple[str, ...] = field(default=())

    @property
    def combined_effect_size(self) -> float:
        """The random-effects combined effect size (CES in the paper)."""
        return self.meta.combined_effect_size

    @property
    def p_value(self) -> float:
        """One-sided p of the combined effect size (the authors' ``norm.sf(ES / SE)``)."""
        return self.meta.p_value

    def summary(self) -> str:
        """One paragraph: the combined effect size with its interval, p, heterogeneity and the sizes."""
        m = self.meta
        x, y = self.categories["targ1"], self.categories["targ2"]
        a, b = self.categories["attr1"], self.categories["attr2"]
        dropped = sum(len(v) for v in self.missing.values())
        return (
            f"CEAT {self.test} on {self.model}: combined effect size {m.combined_effect_size:+.3f} "
            f"({m.level:.0%} interval {m.interval[0]:+.3f} to {m.interval[1]:+.3f}, random effects over "
            f"N = {m.n:,} samples of one context per word), one-sided p {_p_text(m.p_value)}; heterogeneity "
            f"Q = {m.q:.4g} (df {m.df}), I^2 = {m.i_squared:.1%}, tau^2 = {m.tau_squared:.4g}. Positive: {x} "
            f"closer to {a} and {y} to {b}. Contexts: {self.contexts_source}"
            + (f"; {dropped} word(s) without contexts left out" if dropped else "") + "."
        )

    def interval_dict(self) -> dict[str, Any]:
        """``combined_effect_size_interval`` as the project's JSON convention writes intervals."""
        low, high = self.meta.interval
        return {"low": float(low), "high": float(high), "level": self.meta.level, "method": INTERVAL_METHOD}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the combined numbers with their interval, every sample, the words and their contexts."""
        m = self.meta
        return {
            "method": "CEAT (Guo & Caliskan 2021)",
            "test": self.test,
            "model": self.model,
            "options": self.options,
            "n": m.n,
            "seed": self.seed,
            "combined_effect_size": m.combined_effect_size,
            "combined_effect_size_interval": self.interval_dict(),
            "standard_error": m.standard_error,
            "p_value": m.p_value,
            "p_value_method": "one-sided, 1 - Phi(ES / SE) (Guo & Caliskan's ceat_meta)",
            "q": m.q,
            "df": m.df,
            "i_squared": m.i_squared,
            "tau_squared": m.tau_squared,
            "variance_convention": VARIANCE_CONVENTION,
            "samples": [{"effect_size": float(e), "variance": float(v)}
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
        """altair: the histogram of the sample effect sizes, the combined effect size (rule) and its interval."""
        import altair as alt
        import pandas as pd

        from ...palette import CATEGORICAL, PAIR_COLORS
        from ..charts import setup_charts

        setup_charts()
        accent = PAIR_COLORS["pairs: first"]
        low, high = self.meta.interval
        bars = alt.Chart(self.frame(), title=f"CEAT {self.test} on {self.model}").mark_bar(color=CATEGORICAL[0]).encode(
            x=alt.X("effect_size:Q", bin=alt.Bin(maxbins=40), title="effect size d of one sample"),
            y=alt.Y("count():Q", title="samples"),
        )
        combined = pd.DataFrame({"ces": [self.meta.combined_effect_size], "low": [low], "high": [high]})
        band = alt.Chart(combined).mark_rect(opacity=0.3, color=accent).encode(x="low:Q", x2="high:Q")
        rule = alt.Chart(combined).mark_rule(color=accent, size=2).encode(
            x="ces:Q", tooltip=[alt.Tooltip("ces:Q", title="combined effect size", format="+.3f"),
                                alt.Tooltip("low:Q", format="+.3f"), alt.Tooltip("high:Q", format="+.3f")])
        return (bars + band + rule).properties(width=480)
