"""``BbqExplorer``: a language model's BBQ bias scores per category and context condition, the items behind them,
and the model's answer to a question the user types.

Every number comes from an analysis: the bias scores and their intervals from a
:class:`~embias_widgets.analysis.bbq.BbqResult`, each item's three answer probabilities from the
:class:`~embias_widgets.analysis.bbq.BbqItemScores` of the same run, a typed item's from
:meth:`~embias_widgets.analysis.bbq.BbqStudy.score_own`. The front end (``js/bbq_explorer.js``) only draws them:
a click on a category sends ``selected_category``, the pager ``item_page``, the typed item ``own_item``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import traitlets

from ..analysis.bbq import BbqItemScores, BbqStudy
from ._base import EmbiasWidget, bundle

PAGE_SIZE = 12
"""Items per page of the selected category."""


def _cells(result: Any) -> list[dict[str, Any]]:
    """The result's cells as the front end draws them (NaN, an undefined score, as None)."""
    def num(x: Any) -> float | None:
        return None if x is None or not np.isfinite(x) else float(x)

    return [{"category": str(r.category), "context_condition": str(r.context_condition),
             "bias_score": num(r.bias_score), "low": num(r.bias_low), "high": num(r.bias_high),
             "accuracy": num(r.accuracy), "n_items": int(r.n_items)}
            for r in result.frame().itertuples(index=False)]


class BbqExplorer(EmbiasWidget):
    """BBQ (Parrish et al. 2022) on a language model, to explore.

    Parameters
    ----------
    study
        A :class:`~embias_widgets.analysis.bbq.BbqStudy` (its model scores the typed items).
    result, scores
        The study's :class:`~embias_widgets.analysis.bbq.BbqResult` and
        :class:`~embias_widgets.analysis.bbq.BbqItemScores`; both computed now when not given
        (``study.run()``), which scores every item of the study.
    """

    _esm = bundle("bbq_explorer.js")
    _css = bundle("bbq_explorer.css")

    model_name = traitlets.Unicode("").tag(sync=True)
    method = traitlets.Unicode("").tag(sync=True)
    """How the answers were scored and the scores computed (one line: answers, normalisation, convention,
    intervals)."""
    cells = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"category", "context_condition", "bias_score", "low", "high", "accuracy", "n_items"}]`` from the result."""
    categories = traitlets.List(traitlets.Unicode()).tag(sync=True)
    selected_category = traitlets.Unicode("").tag(sync=True)
    """The category whose items are listed ("" = none): the front end sets it on a click."""
    item_page = traitlets.Int(0).tag(sync=True)
    items = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The page of the selected category's items: context, question, answers, probabilities, predicted, label."""
    n_category_items = traitlets.Int(0).tag(sync=True)
    own_item = traitlets.Dict().tag(sync=True)
    """``{"context", "question", "answers": [three strings]}``: what the user typed (kept with the notebook)."""
    own_result = traitlets.Dict().tag(sync=True)
    """The typed item's ``answers``, ``probabilities``, ``log_likelihood``, ``predicted`` and ``seconds``."""
    revision = traitlets.Int(0).tag(sync=True)

    def __init__(self, study: BbqStudy, result: Any = None, scores: BbqItemScores | None = None) -> None:
        super().__init__()
        if not isinstance(study, BbqStudy):
            raise TypeError(f"`study` must be a BbqStudy, got {type(study).__name__}")
        if (result is None) != (scores is None):
            raise ValueError("give both `result` and `scores` of one run (study.run() and study.last_scores), or "
                             "neither")
        if result is None:
            result = study.run()
            scores = study.last_scores
        self.study, self.result, self.scores = study, result, scores
        cells = _cells(result)
        with self.hold_sync():
            self.model_name = study.model_name
            self.method = (f"answers: {study.answers}; normalization: {study.normalization}; convention: "
                           f"{result.convention}; {result.scores.level:.0%} intervals redraw templates within "
                           "each category")
            self.cells = cells
            self.categories = list(dict.fromkeys(c["category"] for c in cells))
        self._ready = True

    # -- inputs ------------------------------------------------------------------------------------------------
    @traitlets.validate("selected_category")
    def _valid_category(self, proposal: dict) -> str:
        value = proposal["value"]
        if value and value not in self.categories:
            raise traitlets.TraitError(f"selected_category must be one of {self.categories} (or empty), got {value!r}")
        return value

    @traitlets.validate("item_page")
    def _valid_page(self, proposal: dict) -> int:
        value = proposal["value"]
        if value < 0:
            raise traitlets.TraitError(f"item_page must be 0 or more, got {value}")
        return value

    @traitlets.validate("own_item")
    def _valid_own(self, proposal: dict) -> dict[str, Any]:
        value = proposal["value"]
        if not value:
            return value
        for key in ("context", "question"):
            if not isinstance(value.get(key), str) or not value[key].strip():
                raise traitlets.TraitError(f"own_item's {key} must be text: type a {key}")
        answers = value.get("answers")
        if not isinstance(answers, list) or len(answers) != 3 or not all(isinstance(a, str) and a.strip()
                                                                        for a in answers):
            raise traitlets.TraitError("own_item's answers must be three answers, each typed as text")
        return value

    @traitlets.observe("selected_category", "item_page")
    def _page_changed(self, change: dict) -> None:
        if getattr(self, "_ready", False):
            self._show_items()

    @traitlets.observe("own_item")
    def _own_changed(self, change: dict) -> None:
        if getattr(self, "_ready", False) and self.own_item:
            self._score_own()

    # -- from Python -------------------------------------------------------------------------------------------
    def select(self, category: str, page: int = 0) -> None:
        """List ``category``'s items (as a click on its row does)."""
        with self.hold_sync():
            self.item_page = page
            self.selected_category = category

    def ask(self, context: str, question: str, answers: list[str]) -> dict[str, Any]:
        """Score a typed item (as the form does) and return :attr:`own_result`."""
        self.own_item = {"context": context, "question": question, "answers": list(answers)}
        return dict(self.own_result)

    # -- computing ---------------------------------------------------------------------------------------------
    def _category_index(self) -> np.ndarray:
        items = self.scores.items
        return np.flatnonzero((np.asarray(items.score_category) == self.selected_category)
                              | (np.asarray(items.category) == self.selected_category))

    def _show_items(self) -> None:
        index = self._category_index() if self.selected_category else np.array([], dtype=int)
        pages = max(1, -(-len(index) // PAGE_SIZE))
        page = min(self.item_page, pages - 1)
        chosen = index[page * PAGE_SIZE: (page + 1) * PAGE_SIZE]
        it = self.scores.items
        rows = [{"index": int(i), "context": str(it.context[i]), "question": str(it.question[i]),
                 "context_condition": str(it.context_condition[i]),
                 "question_polarity": str(it.question_polarity[i]),
                 "answers": [str(a) for a in it.answers[i]],
                 "probabilities": [float(p) for p in self.scores.probabilities[i]],
                 "predicted": int(self.scores.predicted[i]), "label": int(it.label[i])} for i in chosen.tolist()]
        with self.hold_sync():
            self.n_category_items = len(index)
            if page != self.item_page:
                self.item_page = page
            self.items = rows
            self.revision += 1

    def _score_own(self) -> None:
        self.busy = True
        started = time.perf_counter()
        try:
            got = self.study.score_own(self.own_item["context"], self.own_item["question"], self.own_item["answers"])
        except Exception as err:  # the user's text may not be scorable: say why, keep what they typed
            message = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err} (an internal error)"
            with self.hold_sync():
                self.error, self.stale, self.own_result, self.busy = message, True, {}, False
                self.revision += 1
            return
        with self.hold_sync():
            self.own_result = {**got, "elapsed_ms": (time.perf_counter() - started) * 1000}
            self.error, self.stale, self.busy = "", False, False
            self.revision += 1
