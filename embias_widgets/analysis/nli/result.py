"""``NliProbeResult``: what an NLI probe run leaves, in the one shape of every study's result.

``summary()`` (text), ``to_dict()`` (the JSON object of ``embias nli``), ``frame()`` (tidy: level, measure,
value) and ``chart()``; the numbers themselves in :class:`~.scores.NliProbeScores` (:meth:`NliProbeResult.scores`).
Beyond those four: the word-pair table and its heatmap, the top pairs, per-pair rows, and what the
explorer widget draws (:meth:`NliProbeResult.heatmap_grid`, :meth:`NliProbeResult.cell_pairs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...metrics.neutrality import LABELS, NeutralityStats, TopPairs
from ...metrics.neutrality_intervals import DEFAULT_RESAMPLES
from ...metrics.score_intervals import DEFAULT_LEVEL, check_level, interval_dict
from ...stimuli.nli_probes import PairSource
from . import tables, templates
from .chunks import TOP_LABELS, ChunkResult
from .scores import LEVEL_NOTES, NliProbeScores

DEMO_NOTE = (
    "DEMO model: a small offline NLI head for trying the method; its scores say nothing about the bias of "
    "real NLI models (use e.g. a model fine-tuned on SNLI or MNLI)"
)


def _kept_probs(top: dict[str, TopPairs], probs: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    kept = {int(i) for t in top.values() for i in t.indices}
    return {i: probs[i] for i in sorted(kept)}


@dataclass(frozen=True)
class NliProbeResult:
    """Neutrality scores of a probe (both levels), the top pairs, and what the run cost.

    ``n_pairs`` is the size of the run; ``n_scored`` how many pairs are in the
    statistics (less while a run is in progress).
    """

    model: str
    model_description: str
    probe: str
    source: PairSource
    n_pairs: int
    stats: NeutralityStats
    top: dict[str, TopPairs]
    top_probs: dict[int, np.ndarray]
    chunks: list[ChunkResult] = field(default_factory=list, repr=False)
    seconds: float = 0.0
    engine: str = "local"
    notes: tuple[str, ...] = ()
    _intervals: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def n_scored(self) -> int:
        return self.stats.n_pairs

    @property
    def complete(self) -> bool:
        return self.n_scored == self.n_pairs

    @property
    def is_demo(self) -> bool:
        return "demo" in self.model.lower() or "demo" in self.model_description.lower()

    @classmethod
    def reduce(cls, parts: Sequence[ChunkResult], *, taus: Sequence[float], top_k: int, **meta: Any) -> NliProbeResult:
        """Merge chunk results in chunk order (fixed order: the float sums are then reproducible)."""
        parts = sorted(parts, key=lambda c: c.start)
        stats = NeutralityStats.combine((c.stats for c in parts), taus)
        top = {label: TopPairs(top_k) for label in TOP_LABELS}
        probs: dict[int, np.ndarray] = {}
        for c in parts:
            for label in top:
                top[label] = top[label].merge(c.top[label])
            probs.update(c.top_probs)
        return cls(stats=stats, top=top, top_probs=_kept_probs(top, probs), chunks=list(parts), **meta)

    def add(self, chunk: ChunkResult, *, seconds: float | None = None) -> NliProbeResult:
        """A new result with one more chunk merged in (float sums in arrival order)."""
        top = {label: t.merge(chunk.top[label]) for label, t in self.top.items()}
        return replace(self, stats=self.stats.merge(chunk.stats), top=top,  # a new object: its own intervals
                       top_probs=_kept_probs(top, {**self.top_probs, **chunk.top_probs}),
                       chunks=[*self.chunks, chunk], seconds=self.seconds if seconds is None else seconds)

    # -- the numbers --------------------------------------------------------------------------------------
    def scores(self) -> NliProbeScores:
        """NN, FN and T:tau over sentence pairs (``.pairs``) and over word pairs (``.word_pairs``)."""
        return NliProbeScores.of(self.stats)

    def slice(self, premise_word: Any = None, hypothesis_word: Any = None) -> NliProbeScores:
        """Both levels restricted to pairs with these slot values (e.g. premise "rude", hypothesis "Iraqi")."""
        return NliProbeScores.of(self.stats.slice(premise_word, hypothesis_word))

    # -- the four answers of every study ----------------------------------------------------------------
    def summary(self) -> str:
        """The probe, the model, how many pairs, and NN, FN, T:tau at both levels, with the notes."""
        s, ivs = self.scores(), self.intervals()

        def bounds(name: str, measure: str) -> str:
            iv = ivs[name].get(measure)
            return "" if iv is None else f" [{iv.low:.4f}, {iv.high:.4f}]"

        lines = [f"NLI probe {self.probe} on {self.model}: {self.n_scored:,} sentence pairs, "
                 f"{s.n_word_pairs:,} word pairs, {self.n_templates:,} templates (Dev et al. 2020; 1 = all "
                 "neutral, the unbiased value; [95% interval]: two-way bootstrap over templates and word pairs, "
                 "the units drawn, not the sentence pairs)"]
        for name in ("pairs", "word_pairs"):
            level = s.level(name)
            taus = ", ".join(f"T:{tau:g} {value:.4f}" for tau, value in level.thresholds)
            lines.append(f"  {name}: NN {level.net_neutral:.4f}{bounds(name, 'net_neutral')}, FN "
                         f"{level.fraction_neutral:.4f}{bounds(name, 'fraction_neutral')}, {taus} "
                         f"({LEVEL_NOTES[name]})")
        lines.extend(f"note: {note}" for note in (*self.notes, *([DEMO_NOTE] if self.is_demo else [])))
        return "\n".join(lines)

    @property
    def n_templates(self) -> int:
        """Templates among the scored pairs (0 when the statistics do not record them)."""
        return 0 if self.stats.templates is None else len(self.stats.templates.keys)

    def intervals(self, level: float = DEFAULT_LEVEL, *, n_resamples: int = DEFAULT_RESAMPLES) -> dict[str, Any]:
        """Per level (``pairs``, ``word_pairs``) and measure, its interval: the two-way bootstrap over templates
        and word pairs (:func:`~embias_widgets.metrics.neutrality_intervals.two_way_intervals`, seed 0); None
        where undefined. Kept per (level, n_resamples): the summary, the JSON and the frame resample once."""
        key = (check_level(level), int(n_resamples))
        if key not in self._intervals:
            self._intervals[key] = self.stats.intervals(key[0], n_resamples=key[1])
        return self._intervals[key]

    def levels_dict(self, level: float = DEFAULT_LEVEL, *,
                    n_resamples: int = DEFAULT_RESAMPLES) -> dict[str, dict[str, Any]]:
        """``{"pairs": {measure, measure_interval, ..., "n"}, "word_pairs": {...}}``: every measure with its
        interval at ``level`` beside it, and the ``n`` (sentence pairs, word pairs) they were computed from."""
        s, ivs = self.scores(), self.intervals(level, n_resamples=n_resamples)
        out: dict[str, dict[str, Any]] = {}
        for name, n in (("pairs", s.n_pairs), ("word_pairs", s.n_word_pairs)):
            out[name] = {}
            for measure, value in s.level(name).to_dict().items():
                out[name][measure] = value
                out[name][f"{measure}_interval"] = interval_dict(ivs[name].get(measure))
            out[name]["n"] = n
        return out

    def templates(self, *, level: float = DEFAULT_LEVEL) -> dict[str, Any]:
        """NN and FN per template with intervals, the most and least neutral templates and their spread
        (:func:`~.templates.template_scores`; needs a run with ``per_pair=True``)."""
        return templates.template_scores(self, level=level)

    def template_heatmap(self, template: str, label: str, premise_words: Sequence[str],
                         hypothesis_words: Sequence[str]) -> list[list[float | None]]:
        """:meth:`heatmap_grid` of one template alone (:func:`~.templates.template_heatmap`)."""
        return templates.template_heatmap(self, template, label, premise_words, hypothesis_words)

    def to_dict(self, *, level: float = DEFAULT_LEVEL) -> dict[str, Any]:
        """The JSON object of ``embias nli``: model, n_pairs, both levels (each measure with its
        ``*_interval`` at ``level``), the notes, the top pairs and, when per-pair rows were kept,
        ``templates`` (:meth:`templates`)."""
        s = self.scores()
        levels = self.levels_dict(level)
        out: dict[str, Any] = {"model": self.model, "n_pairs": self.n_scored, "pairs": levels["pairs"],
                               "word_pairs": levels["word_pairs"], "probe": self.probe,
                               "n_word_pairs": s.n_word_pairs, "n_templates": self.n_templates,
                               "levels": dict(LEVEL_NOTES)}
        if self.notes:
            out["notes"] = list(self.notes)
        if self.is_demo:
            out["note"] = DEMO_NOTE
        out["taus"] = [tau for tau, _ in s.pairs.thresholds]
        for by in TOP_LABELS:
            out[f"top_{by}"] = tables.records(self.top_pairs(by))
        if self.chunks and all(c.probs is not None for c in self.chunks):
            out["templates"] = self.templates(level=level)
        return out

    def frame(self, *, level: float = DEFAULT_LEVEL) -> Any:
        """Tidy: one row per (level, measure) with its value (``threshold_<tau>`` for T:tau) and the bounds of
        its interval at ``level`` (``low``, ``high``; NaN where undefined; :meth:`intervals`)."""
        import pandas as pd

        s, ivs = self.scores(), self.intervals(level)
        nan = float("nan")
        rows = [{"level": name, "measure": m, "value": v,
                 "low": nan if ivs[name].get(m) is None else ivs[name][m].low,
                 "high": nan if ivs[name].get(m) is None else ivs[name][m].high}
                for name in ("pairs", "word_pairs") for m, v in s.level(name).to_dict().items()]
        return pd.DataFrame(rows, columns=["level", "measure", "value", "low", "high"])

    def chart(self) -> Any:
        """Bars of NN, FN, T:tau at both levels (1 = neutral everywhere, the unbiased value)."""
        import altair as alt

        from ..charts import setup_charts

        setup_charts()

        title = f"{self.probe}: neutrality of {self.model}" + (" (DEMO model)" if self.is_demo else "")
        return (
            alt.Chart(self.frame(), title=title)
            .mark_bar()
            .encode(
                x=alt.X("value:Q", scale=alt.Scale(domain=[0, 1]), title="score (1 = all neutral)"),
                y=alt.Y("measure:N", sort=None, title=None),
                row=alt.Row("level:N", title=None),
                tooltip=["level", "measure", alt.Tooltip("value:Q", format=".3f")],
            )
        )

    # -- word pairs -------------------------------------------------------------------------------------
    def word_pairs_table(self) -> Any:
        """One row per (premise word, hypothesis word): pairs and mean (e, n, c) over its templates."""
        import pandas as pd

        M = self.stats.word_pair_means()
        return pd.DataFrame({
            "premise_word": [k[0] for k in self.stats.keys],
            "hypothesis_word": [k[1] for k in self.stats.keys],
            "n_pairs": self.stats.count,
            **{label: M[:, j] for j, label in enumerate(LABELS)},
        })

    def top_word_pairs(self, by: str = "entailment", k: int = 10) -> Any:
        """The ``k`` word pairs with the largest mean P(``by``) over their templates."""
        import pandas as pd

        return pd.DataFrame(self.stats.top_word_pairs(k, by=by))

    def heatmap_grid(self, label: str, premise_words: Sequence[str],
                     hypothesis_words: Sequence[str]) -> list[list[float | None]]:
        """Mean P(``label``) of each (premise word, hypothesis word) in the given order; None where no pair of
        it is scored yet. What the explorer's heatmap draws."""
        if label not in LABELS:
            raise ValueError(f"`label` must be one of {LABELS}, got {label!r}")
        return heatmap_grid(self, label, premise_words, hypothesis_words)

    def heatmap(self, label: str = "neutral") -> Any:
        """Premise word x hypothesis word, colour = mean P(label) over templates."""
        import altair as alt

        if label not in LABELS:
            raise ValueError(f"`label` must be one of {LABELS}, got {label!r}")
        return (
            alt.Chart(self.word_pairs_table(), title=f"mean P({label}) per word pair, {self.model}")
            .mark_rect()
            .encode(
                x=alt.X("hypothesis_word:N", sort=None, title="hypothesis word"),
                y=alt.Y("premise_word:N", sort=None, title="premise word"),
                color=alt.Color(f"{label}:Q", scale=alt.Scale(domain=[0, 1])),
                tooltip=["premise_word", "hypothesis_word", "n_pairs", *[alt.Tooltip(f"{lb}:Q", format=".3f")
                                                                         for lb in LABELS]],
            )
        )

    # -- sentence pairs (:mod:`.tables`) ------------------------------------------------------------------
    def top_pairs(self, by: str = "entailment") -> Any:
        """The top-k sentence pairs by ``by`` (entailment or contradiction), as the paper's Tables 2, 4, 6."""
        return tables.top_pairs(self, by)

    def top_records(self, by: str = "entailment") -> list[dict[str, Any]]:
        """:meth:`top_pairs` as JSON-ready rows: index, words, sentences and (e, n, c)."""
        return tables.records(self.top_pairs(by), tables.RECORD_COLUMNS)

    def pairs_table(self) -> Any:
        """One row per scored pair with (e, n, c): only when the run kept per-pair rows (``per_pair=True``)."""
        return tables.pairs_table(self)

    def write_pairs_csv(self, path: str | Path) -> int:
        """Stream the per-pair rows to a CSV file (the authors' columns + e, n, c); the number of rows."""
        return tables.write_pairs_csv(self, path)

    def cell_pairs(self, premise_word: str, hypothesis_word: str, limit: int | None = None) -> list[dict[str, Any]]:
        """The scored sentence pairs of one word pair (kept per-pair rows): index, premise, hypothesis, e, n, c."""
        return tables.cell_pairs(self, premise_word, hypothesis_word, limit)


def heatmap_grid(result: NliProbeResult | None, label: str, premise_words: Sequence[str],
                 hypothesis_words: Sequence[str]) -> list[list[float | None]]:
    """Mean P(``label``) per (premise word, hypothesis word) of ``result``, all None before a run."""
    values: list[list[float | None]] = [[None] * len(hypothesis_words) for _ in premise_words]
    if result is None or not result.n_scored:
        return values
    row = {w: i for i, w in enumerate(premise_words)}
    col = {w: j for j, w in enumerate(hypothesis_words)}
    M = result.stats.word_pair_means()
    j = LABELS.index(label)
    for k, (p, h) in enumerate(result.stats.keys):
        if p in row and h in col:
            values[row[p]][col[h]] = float(M[k, j])
    return values

def heatmap_view(result: NliProbeResult | None, label: str, template: str, premise_words: Sequence[str],
                 hypothesis_words: Sequence[str]) -> dict[str, Any]:
    """What the NLI explorer's heatmap draws: ``{premise_words, hypothesis_words, label, template, values}``,
    the mean over templates (``template`` "") or ``template`` alone (:func:`~.templates.template_heatmap`); the mean
    while no pair of ``template`` is scored yet (``template`` then reads "")."""
    premise_words, hypothesis_words = list(premise_words), list(hypothesis_words)
    values = None
    if template and result is not None and result.n_scored:
        try:
            values = templates.template_heatmap(result, template, label, premise_words, hypothesis_words)
        except ValueError:  # not (yet) among the scored pairs' templates
            template = ""
    else:
        template = ""
    if values is None:
        values = heatmap_grid(result, label, premise_words, hypothesis_words)
    return {"premise_words": premise_words, "hypothesis_words": hypothesis_words, "label": label,
            "template": template, "values": values}
