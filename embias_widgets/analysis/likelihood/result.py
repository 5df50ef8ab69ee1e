"""``PairedLikelihoodResult``: the scores of every pair, the pair bias score and (for StereoSet) SS/LMS/ICAT,
answering ``summary()``, ``to_dict()``, ``frame()`` and ``chart()`` (see
:class:`~embias_widgets.analysis.study_result.StudyResult`), plus the table view the widget shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...metrics.likelihood import CONVENTION_LABELS, CONVENTIONS, PairBiasScore, StereoSetScore
from ...metrics.likelihood.pair_intervals import P_VALUE_METHOD
from ...metrics.score_intervals import DEFAULT_LEVEL, check_level
from ...models.language_models.scoring import METRIC_LABELS
from .chart import bias_chart
from .groups import group_scores
from .intervals import bias_interval_rows, group_test, score_brackets, stereoset_record
from .rows import NAMINGS, PairRow, item_record, shade_scale, table_row
from .senses import SENSE_PAIRING_RULE, sense_means
from .view import TableView, table_view

__all__ = ["DEMO_NOTE", "DIRECTIONS", "PairedLikelihoodResult"]

DEMO_NOTE = (
    "demo model: a small offline MLM for trying the method; its scores say nothing about the bias "
    "of real models (use e.g. bert-base-uncased)"
)
DIRECTIONS = ("stereo", "antistereo")
FRAME_COLUMNS = (
    "pair_id",
    "bias_type",
    "direction",
    "stereo",
    "anti",
    "stereo_score",
    "anti_score",
    "difference",
    "preferred",
    "error",
)


def _group_record(g: Any, convention: str, level: float) -> dict[str, Any]:
    """A group's score with its interval, its decided share with its interval, the counts and the sign test."""
    test = group_test(g, convention, level)
    return {"score": g.score, "score_interval": test["score_interval"], "percent_stereo": g.percent_stereo,
            "percent_of_decided": test["percent_of_decided"],
            "percent_of_decided_interval": test["percent_of_decided_interval"], "n": g.n,
            "n_more_preferred": g.n_stereo_preferred, "n_ties": g.n_ties, "n_decided": test["n_decided"],
            "p_value": test["p_value"]}


@dataclass(frozen=True)
class PairedLikelihoodResult:
    """Scores of every pair, the pair bias score and (for StereoSet) SS/LMS/ICAT.

    ``bias`` is ``None`` when no pair could be scored (see ``rows[i].error``).
    """

    model: str
    model_description: str
    metric: str
    convention: str
    rows: tuple[PairRow, ...]
    bias: PairBiasScore | None
    stereoset: StereoSetScore | None = None
    notes: tuple[str, ...] = field(default=())
    sense: PairBiasScore | None = None  # grouped by WordNet sense key (SSSB pairs), Zhou et al. eq. 6
    sense_key_problems: tuple[str, ...] = field(default=())

    @property
    def score(self) -> float | None:
        """The pair bias score in :attr:`convention` (``None`` when nothing was scored)."""
        return None if self.bias is None else self.bias.score

    @property
    def decimals(self) -> int | None:
        """Sentence scores were rounded to this many decimals before comparing (``None``: exact)."""
        return None if self.bias is None else self.bias.decimals

    @property
    def is_demo(self) -> bool:
        """Whether the scores come from the offline demo model."""
        return "demo" in self.model.lower() or "demo" in self.model_description.lower()

    @property
    def demo_note(self) -> str:
        """:data:`DEMO_NOTE` for the demo model, else ``""``."""
        return DEMO_NOTE if self.is_demo else ""

    @property
    def scored(self) -> list[PairRow]:
        """The rows that were scored."""
        return [r for r in self.rows if r.scores is not None]

    @property
    def bias_types(self) -> list[str]:
        """The pairs' bias types in first-seen order (``(none)`` for a blank one)."""
        return list(dict.fromkeys(r.pair.bias_type or "(none)" for r in self.rows))

    # -- what a person reads ------------------------------------------------------------------------------
    def summary(self, *, level: float = DEFAULT_LEVEL) -> str:
        """One line: the published score with its Wilson interval, the share of decided pairs with its interval
        and the sign test of the decided pairs against 1/2, the convention and the counts."""
        if self.bias is None:
            return f"{self.metric.upper()} on {self.model}: no pair could be scored"
        ref = "50" if self.convention == "crows" else "0"
        level = check_level(level)
        test = group_test(self.bias, self.convention, level)
        line = f"{self.metric.upper()} bias score on {self.model}: {self.bias.score:.2f} " + score_brackets(
            test, level) + f" ({self.convention} convention, {ref} = unbiased"
        if self.bias.n_ties:
            line += (f" only without ties; {self.bias.n} pairs, {self.bias.n_ties} ties counted in n, never as "
                     "stereotypical")
        else:
            line += f"; {self.bias.n} pairs, no ties"
        line += ")" if self.bias.decimals is None else f"; scores rounded to {self.bias.decimals} decimals)"
        parts = [
            f"{name} {g.percent_of_decided:.2f}"
            for name, g in self.bias.by_direction.items()
            if g.percent_of_decided is not None
        ]
        if len(self.bias.by_direction) > 1 and parts:
            line += "; metric.py sub-scores: " + ", ".join(parts)
        if self.stereoset is not None:
            rec = stereoset_record(self.stereoset, level, by_type=False)
            line += "; StereoSet " + ", ".join(
                f"{name.upper()} {rec[name]:.2f}" + ("" if rec[f"{name}_interval"] is None else
                                                     f" [{rec[f'{name}_interval']['low']:.2f}, "
                                                     f"{rec[f'{name}_interval']['high']:.2f}]")
                for name in ("ss", "lms", "icat")) + " (target bootstrap)"
        return line + (" [demo model]" if self.is_demo else "")

    # -- breakdowns ------------------------------------------------------------------------------------------
    def by_bias_type(self, *, level: float = DEFAULT_LEVEL) -> dict[str, dict[str, Any]]:
        """The pair bias score per bias type: ``{type: {score, score_interval, percent_stereo, percent_of_decided,
        percent_of_decided_interval, n, n_more_preferred, n_ties, n_decided, p_value}}`` (Wilson intervals; the
        sign test of the decided pairs against 1/2)."""
        if self.bias is None:
            return {}
        return {name: _group_record(g, self.convention, level) for name, g in self.bias.by_bias_type.items()}

    def by_direction(self, *, level: float = DEFAULT_LEVEL) -> dict[str, dict[str, Any]]:
        """Per CrowS-Pairs direction: the score over all its pairs (with its interval) and ``metric.py``'s
        sub-score (``percent_of_decided``: successes over the direction's non-tied pairs, with its interval and
        the sign test); the same keys as :meth:`by_bias_type`."""
        if self.bias is None:
            return {}
        return {name: _group_record(g, self.convention, level)
                for name, g in self.bias.by_direction.items()}

    def by_sense_key(self, *, level: float = DEFAULT_LEVEL) -> dict[str, dict[str, Any]]:
        """The pair bias score per WordNet sense key (same shape as :meth:`by_bias_type`)."""
        if self.sense is None:
            return {}
        return {name: _group_record(g, self.convention, level) for name, g in self.sense.by_bias_type.items()}

    def intervals_frame(self, *, level: float = DEFAULT_LEVEL) -> Any:
        """pandas DataFrame, one row per score (all pairs, each bias type, each direction): ``score`` and its
        Wilson interval ``low``/``high``, ``percent_of_decided`` and its Wilson interval ``decided_low``/
        ``decided_high``, the sign test's ``p_value``, ``n``, ``n_more_preferred``, ``n_ties``."""
        import pandas as pd

        rows = bias_interval_rows(self.bias, self.convention, check_level(level))
        return pd.DataFrame(rows, columns=["group", "name", "score", "low", "high", "percent_of_decided",
                                           "decided_low", "decided_high", "p_value", "n", "n_more_preferred",
                                           "n_ties"])

    def sense_means(self) -> list[dict[str, Any]]:
        """Per sense key: mean score of its distinct stereo and anti sentences and their difference
        (Zhou et al. Table 4; no pairing, see :func:`~.senses.sense_means`)."""
        return sense_means(self.rows)

    def group_scores(self, group_by: str, bias_type: str = "") -> list[dict[str, Any]]:
        """The pair bias score and unpaired mean sentence scores of every group (``"bias_type"`` or
        ``"sense_key"``) of the scored pairs (of one ``bias_type`` when given); see :func:`~.groups.group_scores`."""
        rows = [r for r in self.scored if not bias_type or (r.pair.bias_type or "(none)") == bias_type]
        return group_scores(rows, group_by, metric=self.metric, convention=self.convention, decimals=self.decimals)

    # -- records ---------------------------------------------------------------------------------------------
    def items(self, naming: str = "stereo") -> list[dict[str, Any]]:
        """One JSON-ready record per pair: CrowS naming (``sent_more_score``) or stereo/anti."""
        if naming not in NAMINGS:
            raise ValueError(f"`naming` must be one of {NAMINGS}, got {naming!r}")
        return [item_record(row, naming, self.decimals) for row in self.rows]

    def to_dict(self, *, naming: str = "stereo", items: bool = True, level: float = DEFAULT_LEVEL) -> dict[str, Any]:
        """JSON-ready record (the ``embias pll`` output): every score with its ``*_interval`` at ``level``."""
        level = check_level(level)
        test = group_test(self.bias, self.convention, level) if self.bias is not None else \
            {"score_interval": None, "percent_of_decided": None, "percent_of_decided_interval": None,
             "n_decided": 0, "p_value": None}
        out: dict[str, Any] = {
            "metric": self.metric,
            "metric_label": METRIC_LABELS[self.metric],
            "model": self.model,
            "convention": self.convention,
            "convention_label": CONVENTION_LABELS[self.convention],
            "reference": CONVENTIONS[self.convention],
            "score": self.score,
            "score_interval": test["score_interval"],
            "percent_stereo": None if self.bias is None else self.bias.percent_stereo,
            "n": 0 if self.bias is None else self.bias.n,
            "n_ties": 0 if self.bias is None else self.bias.n_ties,
            "percent_of_decided": test["percent_of_decided"],
            "percent_of_decided_interval": test["percent_of_decided_interval"],
            "n_decided": test["n_decided"],
            "p_value": test["p_value"],
            "p_value_method": P_VALUE_METHOD,
            "decimals": self.decimals,
            "n_errors": sum(r.error is not None for r in self.rows),
            "by_bias_type": self.by_bias_type(level=level),
            "by_direction": self.by_direction(level=level),
        }
        if self.stereoset is not None:
            out["stereoset"] = stereoset_record(self.stereoset, level)
        if any(r.pair.sense_key for r in self.rows):
            out["by_sense_key"] = self.by_sense_key(level=level)
            out["sense_means"] = self.sense_means()
            out["sense_key_problems"] = list(self.sense_key_problems)
            out["pairing_rule"] = SENSE_PAIRING_RULE
        if self.is_demo:
            out["demo_note"] = DEMO_NOTE
        out["notes"] = list(self.notes)
        if items:
            out["items"] = self.items(naming)
        return out

    def frame(self) -> Any:
        """pandas DataFrame, one row per pair."""
        import pandas as pd

        rows = []
        for row in self.rows:
            sc = row.scores
            rows.append(
                {
                    "pair_id": row.pair.pair_id,
                    "bias_type": row.pair.bias_type,
                    "direction": row.pair.direction,
                    "stereo": row.pair.stereo,
                    "anti": row.pair.anti,
                    "stereo_score": None if sc is None else sc.stereo.score,
                    "anti_score": None if sc is None else sc.anti.score,
                    "difference": row.difference,
                    "preferred": row.preferred,
                    "error": row.error,
                }
            )
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))

    def chart(self) -> Any:
        """altair bar chart: the bias score per bias type and overall, with the unbiased line."""
        if self.bias is None:
            raise ValueError("no pair was scored, so there is nothing to draw: fix the pairs' errors first")
        summary = self.summary()
        title = summary if len(summary) < 110 else f"{self.metric.upper()} bias score: {self.model}"
        return bias_chart(self.bias, self.convention, title)

    # -- the table the widget draws --------------------------------------------------------------------------
    def table_rows(self) -> list[dict[str, Any]]:
        """One JSON row per pair for the table: per token log P and a heat shade in [0, 1] (1 = least likely)."""
        scale = shade_scale(self.rows)
        return [table_row(i, row, scale) for i, row in enumerate(self.rows)]

    def view(self, *, bias_type: str = "", sort_by: str = "input", group_by: str = "") -> TableView:
        """Which rows the table shows, in which order, and the summary of them (:func:`~.view.table_view`)."""
        return table_view(
            self.rows,
            metric=self.metric,
            convention=self.convention,
            decimals=self.decimals,
            notes=self.notes,
            stereoset=self.stereoset,
            bias_type=bias_type,
            sort_by=sort_by,
            group_by=group_by,
        )
