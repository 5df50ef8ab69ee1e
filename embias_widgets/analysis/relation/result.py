"""``RelationProjectionResult``: RIPA scores along one relation vector (Ethayarajh et al. 2019).

``summary()``, ``to_dict()``, ``frame()`` (one row per scored word: ripa, norm, cosine),
``pair_frame()`` (the defining pairs' own scores), ``points()`` (what the widget and the chart draw:
the pairs' words, then the words) and ``chart()``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...metrics.projection import RelationVector
from ...metrics.relation_intervals import RipaIntervals
from ...models import OutOfVocabulary
from ...palette import altair_scale, group_colors
from .labels import label_lanes
from .validation import Pair

PAIR_GROUPS = ("pairs: first", "pairs: second")
"""The groups of the pairs' own words in :meth:`RelationProjectionResult.points`."""


def _low_high(interval: dict[str, Any] | None) -> dict[str, float | None]:
    return {"low": None, "high": None} if interval is None else {"low": interval["low"], "high": interval["high"]}


@dataclass(frozen=True)
class RelationProjectionResult:
    """RIPA scores of words along one relation vector.

    Attributes
    ----------
    model
        Model name.
    pairs
        The pairs that defined ``relation`` (those fully in the vocabulary).
    relation
        The relation vector and its singular values.
    words, groups, ripa, norms
        One entry per scored word: its group, ``<w, b>`` and ``||w||``.
    pair_ripa
        ``(len(pairs), 2)``: RIPA of each pair's first and second word.
    oov
        Words (from pairs or word lists) not in the vocabulary.
    notes
        What was left out and why.
    intervals
        Bias-corrected bootstrap intervals over the relation pairs, rows: the words, then the pairs' first words, then
        their second words (:func:`~embias_widgets.metrics.relation_intervals.ripa_intervals`); ``None``
        when the run asked for none.
    """

    model: str
    pairs: tuple[Pair, ...]
    relation: RelationVector
    words: tuple[str, ...]
    groups: tuple[str, ...]
    ripa: np.ndarray
    norms: np.ndarray
    pair_ripa: np.ndarray
    oov: tuple[OutOfVocabulary, ...]
    notes: tuple[str, ...]
    intervals: RipaIntervals | None = None

    def _bounds(self, part: str) -> tuple[np.ndarray, np.ndarray] | None:
        """``(low, high)`` of the words (``part="words"``), the pairs' first or second words."""
        if self.intervals is None:
            return None
        m, p = len(self.words), len(self.pairs)
        rows = {"words": slice(0, m), "first": slice(m, m + p), "second": slice(m + p, m + 2 * p)}[part]
        return self.intervals.low[rows], self.intervals.high[rows]

    def _interval(self, bounds: tuple[np.ndarray, np.ndarray] | None, i: int) -> dict[str, Any] | None:
        if bounds is None or not (np.isfinite(bounds[0][i]) and np.isfinite(bounds[1][i])):
            return None
        return {"low": float(bounds[0][i]), "high": float(bounds[1][i]), "level": self.intervals.level,
                "method": self.intervals.method}

    @property
    def axis_label(self) -> str:
        """Which way the axis points: towards the first words of the pairs."""
        firsts = ", ".join(p[0] for p in self.pairs[:2])
        seconds = ", ".join(p[1] for p in self.pairs[:2])
        more = ", ..." if len(self.pairs) > 2 else ""
        return f"RIPA = <w, b>   (← {seconds}{more} | {firsts}{more} →)"

    def summary(self) -> str:
        """One line: how many pairs, and how much of their differences the relation vector carries."""
        return (
            f"relation vector from {len(self.pairs)} pair(s) on {self.model}: first component "
            f"carries {self.relation.explained_ratio:.0%} of the differences' squared length"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the model, the pairs with their RIPA, every scored word, what was left out; each RIPA
        with its bias-corrected bootstrap interval over the relation pairs (``ripa_interval``, ``ripa_first_interval``,
        ...)."""
        first, second, words = self._bounds("first"), self._bounds("second"), self._bounds("words")
        return {
            "model": self.model,
            "explained_ratio": float(self.relation.explained_ratio),
            "pairs": [
                {"first": a, "second": b, "ripa_first": float(r[0]), "ripa_first_interval": self._interval(first, i),
                 "ripa_second": float(r[1]), "ripa_second_interval": self._interval(second, i)}
                for i, ((a, b), r) in enumerate(zip(self.pairs, self.pair_ripa, strict=True))
            ],
            "words": [
                {k: v for k, v in row.items() if k not in ("ripa_low", "ripa_high")}
                | {"ripa_interval": self._interval(words, i)}
                for i, row in enumerate(self.frame().to_dict("records"))
            ],
            "oov": [o.item for o in self.oov],
            "notes": list(self.notes),
        }

    def frame(self) -> Any:
        """pandas DataFrame: word, group, ripa, norm, ``cos(w, b) = ripa / norm`` and the bounds of RIPA's
        bias-corrected bootstrap interval over the relation pairs (``ripa_low``, ``ripa_high``; NaN without one)."""
        import pandas as pd

        bounds = self._bounds("words")
        nan = np.full(len(self.words), np.nan)
        low, high = bounds if bounds is not None else (nan, nan)
        return pd.DataFrame(
            {
                "word": list(self.words),
                "group": list(self.groups),
                "ripa": [float(r) for r in self.ripa],
                "norm": [float(n) for n in self.norms],
                "cosine": [float(c) for c in self.ripa / np.where(self.norms > 0, self.norms, 1.0)],
                "ripa_low": [float(v) for v in low],
                "ripa_high": [float(v) for v in high],
            },
            columns=["word", "group", "ripa", "norm", "cosine", "ripa_low", "ripa_high"],
        )

    def pair_frame(self) -> Any:
        """pandas DataFrame: each defining pair's words and their RIPA."""
        import pandas as pd

        return pd.DataFrame(
            {
                "first": [p[0] for p in self.pairs],
                "second": [p[1] for p in self.pairs],
                "ripa_first": self.pair_ripa[:, 0],
                "ripa_second": self.pair_ripa[:, 1],
            },
            columns=["first", "second", "ripa_first", "ripa_second"],
        )

    def points(self, *, include_pairs: bool = True, top_k: int = 8) -> list[dict[str, Any]]:
        """``[{"word", "group", "ripa", "label_lane"}]``: the pairs' own words (groups ``pairs: first`` and
        ``pairs: second``), then every scored word; what the widget and :meth:`chart` draw. ``label_lane``
        (0 above the dot, 1 below, None: tooltip only) labels at most ``top_k`` words per group, by absolute RIPA,
        without overlaps (:func:`~embias_widgets.analysis.relation.labels.label_lanes`)."""
        out = self._points(include_pairs)
        for point, lane in zip(out, label_lanes(out, top_k=top_k), strict=True):
            point["label_lane"] = lane
        return out

    def _points(self, include_pairs: bool) -> list[dict[str, Any]]:
        """Each point with ``low``/``high``: its RIPA interval's bounds (None without one)."""
        out: list[dict[str, Any]] = []
        sides = (self._bounds("first"), self._bounds("second"))
        if include_pairs:
            out = [
                {"word": word, "group": PAIR_GROUPS[side], "ripa": float(self.pair_ripa[i, side]),
                 **_low_high(self._interval(sides[side], i))}
                for i, pair in enumerate(self.pairs)
                for side, word in enumerate(pair)
            ]
        words = self._bounds("words")
        scored = enumerate(zip(self.words, self.groups, self.ripa, strict=True))
        return out + [{"word": w, "group": g, "ripa": float(r), **_low_high(self._interval(words, i))}
                      for i, (w, g, r) in scored]

    def chart(self, *, include_pairs: bool = True) -> Any:
        """altair chart: words along the relation axis (x = RIPA), coloured by group."""
        import altair as alt
        import pandas as pd

        from ..charts import setup_charts

        setup_charts()

        data = pd.DataFrame(self.points(include_pairs=include_pairs),
                            columns=["word", "group", "ripa", "label_lane", "low", "high"])
        base = alt.Chart(data, title=self.summary())
        y = alt.Y("group:N", title=None, sort=None)
        points = base.mark_circle(size=70).encode(
            x=alt.X("ripa:Q", title=self.axis_label),
            y=y,
            color=alt.Color("group:N", title="group", sort=None, scale=altair_scale(group_colors(data["group"]))),
            tooltip=["word", "group", alt.Tooltip("ripa:Q", format="+.3f")],
        )
        above, below = (
            base.transform_filter(alt.datum.label_lane == lane)
            .mark_text(align="center", dy=dy, fontSize=10)
            .encode(x="ripa:Q", y=y, text="word:N")
            for lane, dy in ((0, -10), (1, 12))
        )
        zero = alt.Chart(pd.DataFrame({"ripa": [0.0]})).mark_rule(color="#999").encode(x="ripa:Q")
        # each word's bootstrap interval over the relation pairs (b recomputed), a line through its dot
        whiskers = base.transform_filter("isValid(datum.low)").mark_rule(opacity=0.55).encode(
            x="low:Q", x2="high:Q", y=y, color=alt.Color("group:N", sort=None, legend=None,
                                                            scale=altair_scale(group_colors(data["group"]))))
        return (zero + whiskers + points + above + below).properties(width=560)
