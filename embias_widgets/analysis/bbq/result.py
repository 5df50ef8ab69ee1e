"""``BbqResult``: BBQ's accuracy and bias scores of one model's predictions (Parrish et al. 2022), answering
``summary()``, ``to_dict()``, ``frame()`` and ``chart()`` (see
:class:`~embias_widgets.analysis.study_result.StudyResult`), plus ``items_frame()`` (per-item predictions and
answer probabilities).

Public API (stable): ``BbqResult.from_predictions(items, predicted_index, probabilities=None, *, model="",
convention="authors", level=0.95, seed=0, n_resamples=2000)``; fields ``model``, ``convention``, ``scores``
(:class:`~embias_widgets.metrics.bbq.BbqScores`), ``items``, ``predicted``, ``probabilities``, ``seed``, ``notes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...metrics.bbq import BbqScores, bbq_scores
from ...metrics.score_intervals import DEFAULT_LEVEL, check_level, interval_dict
from ...stimuli.bbq import BbqItems
from .chart import bias_score_chart

__all__ = ["FRAME_COLUMNS", "BbqResult"]

FRAME_COLUMNS = ("category", "context_condition", "bias_score", "bias_low", "bias_high", "accuracy", "accuracy_low",
                 "accuracy_high", "s_dis", "n_items", "n_correct", "n_not_unknown", "n_biased", "n_templates")
FEW_TEMPLATES = 10
"""Below this many templates in a category the template bootstrap has not been checked (the calibration suite's
``bbq`` check covers 10 to 50 templates: 0.92-0.97): the result's notes say so."""
CONVENTION_NOTES = {
    "authors": "the authors' script (BBQ_calculate_bias_score.R): names apart, undefined targets and unmatched "
               "answers dropped",
    "helm": "HELM's BBQMetric: ambiguous score scaled by the accuracy over both contexts; 0 where nothing is "
            "non-UNKNOWN",
    "lm-eval": "lm-evaluation-harness's bbq task: its own biased-answer rule; 0 whenever no answer is biased",
}


def _from_predictions_iv(items: Any, predicted: Any, probabilities: Any) -> tuple[np.ndarray, np.ndarray | None]:
    if not isinstance(items, BbqItems):
        raise TypeError(f"`items` must be BbqItems (embias_widgets.stimuli.load_bbq), got {type(items).__name__}")
    pred = np.asarray(predicted)
    if pred.shape != (len(items),) or not np.issubdtype(pred.dtype, np.integer):
        raise ValueError(f"`predicted_index` must hold {len(items)} whole answer indices (0-2; -1 unmatched), got "
                         f"shape {pred.shape} of {pred.dtype}")
    if probabilities is None:
        return pred, None
    probs = np.asarray(probabilities, dtype=np.float64)
    if probs.shape != (len(items), 3) or not np.isfinite(probs).all():
        raise ValueError(f"`probabilities` must be {len(items)} x 3 finite numbers (each item's three answers), got "
                         f"shape {probs.shape}")
    return pred, probs


@dataclass(frozen=True, eq=False)
class BbqResult:
    """BBQ scores of one model's predictions: per category and context, accuracy and bias score with intervals
    that redraw templates (:func:`~embias_widgets.metrics.bbq.bbq_scores`)."""

    model: str
    convention: str
    scores: BbqScores
    items: BbqItems
    predicted: np.ndarray
    probabilities: np.ndarray | None = None
    seed: int | None = 0
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def from_predictions(cls, items: BbqItems, predicted_index: Any, probabilities: Any = None, *, model: str = "",
                         convention: str = "authors", level: float = DEFAULT_LEVEL, seed: int | None = 0,
                         n_resamples: int = 2000, resample: str = "template") -> BbqResult:
        """Score ``predicted_index`` (each item's chosen answer, 0-2, ``-1`` unmatched) on ``items``."""
        pred, probs = _from_predictions_iv(items, predicted_index, probabilities)
        scores = bbq_scores(pred, items, convention=convention, level=check_level(level), n_resamples=n_resamples,
                            resample=resample, rng=seed)
        notes = [CONVENTION_NOTES[convention]]
        if scores.n_dropped:
            notes.append(f"{scores.n_dropped} item(s) left out (undefined biased answer or unmatched prediction)")
        if (items.target_loc < 0).any():
            notes.append(f"{int((items.target_loc < 0).sum())} item(s) have no defined biased answer "
                         f"(target from {items.target_source})")
        few = sorted({c.category for c in scores.cells if 0 < c.n_templates < FEW_TEMPLATES})
        if few and resample == "template":
            notes.append(f"intervals over fewer than {FEW_TEMPLATES} templates ({', '.join(few)}): the calibration "
                         "suite checked 10 to 50 (BBQ has 25 a category); with fewer, too few templates show how much "
                         "they vary, so read the interval as a lower bound on the uncertainty")
        return cls(model, convention, scores, items, pred, probs, seed, tuple(notes))

    def summary(self) -> str:
        """One line per context: the bias score of each category with its interval."""
        lines = [f"BBQ on {self.model or 'predictions'} ({len(self.items)} items, {self.convention} convention; "
                 f"bias score x100, 0 = unbiased, {self.scores.level:.0%} intervals over templates):"]
        for cond, name in (("ambig", "ambiguous"), ("disambig", "disambiguated")):
            parts = []
            for c in self.scores.cells:
                if c.context_condition != cond:
                    continue
                iv = c.bias_interval
                parts.append(f"{c.category} {c.bias_score:.1f}" + ("" if iv is None else
                                                                   f" [{iv.low:.1f}, {iv.high:.1f}]"))
            if parts:
                lines.append(f"  {name}: " + "; ".join(parts))
        return "\n".join(lines)

    def frame(self) -> Any:
        """pandas DataFrame, one row per category and context condition (:data:`FRAME_COLUMNS`)."""
        import pandas as pd

        rows = []
        for c in self.scores.cells:
            b, a = c.bias_interval, c.accuracy_interval
            rows.append({"category": c.category, "context_condition": c.context_condition,
                         "bias_score": c.bias_score, "bias_low": None if b is None else b.low,
                         "bias_high": None if b is None else b.high, "accuracy": c.accuracy,
                         "accuracy_low": None if a is None else a.low, "accuracy_high": None if a is None else a.high,
                         "s_dis": c.s_dis, "n_items": c.n_items, "n_correct": c.n_correct,
                         "n_not_unknown": c.n_not_unknown, "n_biased": c.n_biased, "n_templates": c.n_templates})
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))

    def to_dict(self, *, items: bool = False) -> dict[str, Any]:
        """JSON-ready: every cell's accuracy and bias score with its interval (``low``, ``high``, ``level``,
        ``method``: what was resampled and the estimand); ``items=True`` adds :meth:`items_frame`'s records."""
        def num(x: float) -> float | None:
            return None if x is None or not np.isfinite(x) else float(x)

        out: dict[str, Any] = {
            "method": "bbq", "paper": "Parrish et al. 2022, BBQ: A hand-built bias benchmark for question "
                                      "answering (Findings of ACL)",
            "model": self.model, "convention": self.convention, "level": self.scores.level,
            "n_resamples": self.scores.n_resamples, "resample": self.scores.resample, "seed": self.seed,
            "n_items": len(self.items), "n_dropped": self.scores.n_dropped, "target_source": self.items.target_source,
            "items_hash": self.items.content_hash, "score_scale": "x100; 0 = unbiased, 100 = every non-UNKNOWN "
                                                                 "answer biased",
            "cells": [{"category": c.category, "context_condition": c.context_condition,
                       "bias_score": num(c.bias_score), "bias_score_interval": interval_dict(c.bias_interval),
                       "accuracy": num(c.accuracy), "accuracy_interval": interval_dict(c.accuracy_interval),
                       "s_dis": num(c.s_dis), "n_items": c.n_items, "n_correct": c.n_correct,
                       "n_not_unknown": c.n_not_unknown, "n_biased": c.n_biased, "n_templates": c.n_templates}
                      for c in self.scores.cells],
            "notes": list(self.notes),
        }
        if items:
            out["items"] = json_records(self.items_frame())
        return out

    def items_frame(self) -> Any:
        """pandas DataFrame, one row per item: its fields, the predicted answer, whether it is correct and
        biased (the biased answer ``target_loc`` chosen) and, when given, the three answer probabilities."""
        import pandas as pd

        it = self.items
        data = {"category": it.category, "score_category": it.score_category, "example_id": it.example_id,
                "question_index": it.question_index, "context_condition": it.context_condition,
                "question_polarity": it.question_polarity, "context": it.context, "question": it.question,
                "ans0": it.answers[:, 0], "ans1": it.answers[:, 1], "ans2": it.answers[:, 2], "label": it.label,
                "unknown_loc": it.unknown_loc, "target_loc": it.target_loc, "predicted": self.predicted,
                "correct": self.predicted == it.label,
                "biased": (self.predicted >= 0) & (self.predicted == it.target_loc) & (it.target_loc >= 0)}
        if self.probabilities is not None:
            for k in range(3):
                data[f"p_ans{k}"] = self.probabilities[:, k]
        return pd.DataFrame(data)

    def chart(self) -> Any:
        """altair: bias score per category, ambiguous and disambiguated, with interval whiskers."""
        return bias_score_chart(self.frame(), f"BBQ bias score: {self.model or 'predictions'} ({self.convention})")


def json_records(frame: Any) -> list[dict[str, Any]]:
    """Rows of ``frame`` as plain JSON types."""
    import json

    return json.loads(frame.to_json(orient="records"))
