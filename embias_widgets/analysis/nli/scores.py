"""The numbers of an NLI probe as frozen dataclasses: NN, FN and T:tau at one level, and both levels.

Dev, Li, Phillips & Srikumar (2020), section 2.3: with per-pair probabilities ``(e, n, c)`` over ``N``
pairs, Net Neutral ``NN = (1/N) sum_i n_i``, Fraction Neutral ``FN = (1/N) sum_i 1[argmax = neutral]`` and
Threshold ``T:tau = (1/N) sum_i 1[n_i > tau]``; all 1 for an unbiased model. The two levels (sentence pairs,
word pairs averaged over templates) are those of :mod:`embias_widgets.metrics.neutrality`. The thresholds
are a tuple of ``(tau, value)`` in the run's order, so the fields never depend on which taus were asked for;
:meth:`NliScores.to_dict` gives the JSON layout of ``embias nli`` (``threshold_0.5``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...metrics.neutrality import NeutralityStats, threshold_key

#: What each level averages over (said next to the numbers in the CLI, the widget and ``to_dict``).
LEVEL_NOTES = {
    "pairs": "over sentence pairs (AllenNLP's fairness metric, MABEL and later papers)",
    "word_pairs": "over (premise word, hypothesis word) pairs after averaging each over its templates "
    "(the authors' evaluation.py)",
}


@dataclass(frozen=True)
class NliScores:
    """Neutrality at one level: ``net_neutral`` (NN), ``fraction_neutral`` (FN) and ``thresholds``,
    a tuple of ``(tau, T:tau)`` (the fraction of pairs, or word pairs, with P(neutral) > tau)."""

    net_neutral: float
    fraction_neutral: float
    thresholds: tuple[tuple[float, float], ...]

    @classmethod
    def from_measures(cls, measures: dict[str, float], taus: tuple[float, ...]) -> NliScores:
        """From the metric core's ``{"net_neutral", "fraction_neutral", "threshold_<tau>"...}``."""
        return cls(float(measures["net_neutral"]), float(measures["fraction_neutral"]),
                   tuple((float(tau), float(measures[threshold_key(tau)])) for tau in taus))

    def threshold(self, tau: float) -> float:
        """``T:tau`` of one of the run's thresholds (KeyError naming them otherwise)."""
        for t, value in self.thresholds:
            if t == float(tau):
                return value
        raise KeyError(f"tau {tau:g} was not computed: the run's taus are {[t for t, _ in self.thresholds]}")

    def to_dict(self) -> dict[str, float]:
        """``{"net_neutral", "fraction_neutral", "threshold_<tau>"...}`` (the layout of ``embias nli``)."""
        out = {"net_neutral": self.net_neutral, "fraction_neutral": self.fraction_neutral}
        out.update({threshold_key(tau): value for tau, value in self.thresholds})
        return out


@dataclass(frozen=True)
class NliProbeScores:
    """Both levels of a probe (or of a slice of it) and how many pairs and word pairs they average over."""

    pairs: NliScores
    word_pairs: NliScores
    n_pairs: int
    n_word_pairs: int

    @classmethod
    def of(cls, stats: NeutralityStats) -> NliProbeScores:
        """The scores of sufficient statistics (:class:`~embias_widgets.metrics.neutrality.NeutralityStats`)."""
        taus = tuple(stats.taus)
        return cls(NliScores.from_measures(stats.pair_level(), taus),
                   NliScores.from_measures(stats.word_level(), taus), int(stats.n_pairs), int(stats.n_word_pairs))

    def level(self, name: str) -> NliScores:
        """``"pairs"`` or ``"word_pairs"``."""
        if name not in LEVEL_NOTES:
            raise ValueError(f"`level` must be one of {', '.join(LEVEL_NOTES)}, got {name!r}")
        return self.pairs if name == "pairs" else self.word_pairs

    def to_dict(self) -> dict[str, Any]:
        """``{"pairs": {...}, "word_pairs": {...}, "n_pairs", "n_word_pairs"}``, JSON-ready."""
        return {"pairs": self.pairs.to_dict(), "word_pairs": self.word_pairs.to_dict(), "n_pairs": self.n_pairs,
                "n_word_pairs": self.n_word_pairs}
