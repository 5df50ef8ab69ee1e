"""A language model's answers to BBQ items: every answer's score, the three answers' probabilities and the
prediction, per item (what :class:`~embias_widgets.analysis.bbq.study.BbqStudy` hands to the bias scores)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...models.language_models.multiple_choice import ChoiceScores
from .answer_sets import in_item_order, item_outcomes


@dataclass(frozen=True)
class BbqItemScores:
    """Per item: the scored answers (``choices``: the item's three, or lm-eval's twelve), and from them, after
    ``normalization``, the three answers' scores, probabilities (softmax over the three) and the predicted index.

    Attributes
    ----------
    items
        The :class:`~embias_widgets.stimuli.bbq.BbqItems` scored.
    choices
        Every scored answer's log-likelihood (causal) or PLL (masked), tokens and characters.
    answer_set, normalization
        ``"item"`` or ``"lm-eval"``; ``"none"``, ``"token"`` or ``"char"``
        (:mod:`~embias_widgets.analysis.bbq.answer_sets`).
    scores, probabilities, predicted
        ``(n, 3)``, ``(n, 3)``, ``(n,)``, in the item's answer order.
    """

    items: Any
    choices: ChoiceScores
    answer_set: str
    normalization: str
    scores: np.ndarray = field(repr=False)
    probabilities: np.ndarray = field(repr=False)
    predicted: np.ndarray = field(repr=False)

    @classmethod
    def from_choices(cls, items: Any, choices: ChoiceScores, answer_set: str = "item",
                     normalization: str = "none") -> BbqItemScores:
        """The item outcomes of ``choices`` (:func:`~.answer_sets.item_outcomes`)."""
        scores, probabilities, predicted = item_outcomes(choices, items, answer_set, normalization)
        return cls(items, choices, answer_set, normalization, scores, probabilities, predicted)

    def normalized(self, normalization: str) -> BbqItemScores:
        """The same scores under another length normalisation (nothing is scored again)."""
        return BbqItemScores.from_choices(self.items, self.choices, self.answer_set, normalization)

    def __len__(self) -> int:
        return len(self.predicted)

    @property
    def log_likelihood(self) -> np.ndarray:
        """``(n, 3)`` unnormalised scores of the item's three answers (lm-eval's set: the unknown's is that of the
        phrasing with the best normalised score)."""
        raw = self.choices.log_likelihood
        if self.answer_set == "item":
            return raw
        best = 2 + np.argmax(self.choices.scores(self.normalization)[:, 2:], axis=1)
        return in_item_order(self.items, raw[:, :2], raw[np.arange(len(self.predicted)), best])

    def rows(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per item: its ids, condition, answers, their log-likelihoods and probabilities, the
        prediction and the label."""
        it, ll = self.items, self.log_likelihood
        return [{"example_id": int(it.example_id[i]), "category": str(it.category[i]),
                 "question_index": int(it.question_index[i]), "context_condition": str(it.context_condition[i]),
                 "question_polarity": str(it.question_polarity[i]), "answers": [str(a) for a in it.answers[i]],
                 "log_likelihood": [float(x) for x in ll[i]],
                 "probabilities": [float(x) for x in self.probabilities[i]],
                 "predicted": int(self.predicted[i]), "label": int(it.label[i])}
                for i in range(len(self))]

    def frame(self) -> Any:
        """A tidy :class:`pandas.DataFrame`, one row per item (:meth:`rows`, answers and numbers in columns)."""
        import pandas as pd

        rows = self.rows()
        for row in rows:
            for k in range(3):
                row[f"answer_{k}"] = row["answers"][k]
                row[f"log_likelihood_{k}"] = row["log_likelihood"][k]
                row[f"probability_{k}"] = row["probabilities"][k]
            del row["answers"], row["log_likelihood"], row["probabilities"]
        return pd.DataFrame(rows)
