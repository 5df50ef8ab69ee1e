"""``BbqStudy``: BBQ (Parrish et al. 2022) run on a masked or causal language model, locally or on Dask.

Each item's three answers are scored after lm-evaluation-harness's prompt (``context\\n\\nQ: question\\nA:``):
causal LMs by the answer's log-likelihood, masked LMs by its PLL in context
(:mod:`embias_widgets.models.language_models.multiple_choice`); the prediction is the answer with the highest
(normalised) score, and the three answers' probabilities the softmax of those scores
(:mod:`.answer_sets`). The items are cut into chunks (:mod:`.chunks`); with ``results_dir`` each finished chunk is
written next to a manifest holding a fingerprint of the items' content, the model's files and the options, so a
re-run of the very same run resumes and anything else is refused. The predictions go to the authors' bias scores
(:class:`~embias_widgets.analysis.bbq.result.BbqResult`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ...models.language_models import load_likelihood_model
from ...models.language_models.multiple_choice import (
    BBQ_PROMPT,
    ChoiceScores,
    bbq_prompt,
    check_normalization,
    score_choices,
)
from ..likelihood import DEMO_NOTE
from ..resumable_runs import chunk_ranges, fingerprint_model, model_name, scoring_options
from .answer_sets import check_answer_set
from .chunks import BbqChunk, BbqRunError, chunk_path, open_chunks
from .engines import ENGINES, run_dask, run_local
from .item_scores import BbqItemScores
from .result import BbqResult


def _iv_study(items: Any, chunk_size: Any, answers: str, normalization: str) -> Any:
    """The study's inputs checked where they enter, each error naming its parameter."""
    from ...stimuli.bbq import BbqItems, load_bbq

    if isinstance(items, str | Path):
        items = load_bbq(items)
    if not isinstance(items, BbqItems):
        raise TypeError(f"`items` must be BBQ items (load_bbq(...)) or a path to them, got {type(items).__name__}")
    if not len(items):
        raise ValueError("`items` holds no BBQ item: give at least one")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int | np.integer) or chunk_size < 1:
        raise ValueError(f"`chunk_size` must be a positive number of items, got {chunk_size!r}")
    check_answer_set(answers)
    check_normalization(normalization)
    return items


class BbqStudy:
    """BBQ items and a language model.

    Parameters
    ----------
    model
        A registered name (``"embias-demo-mlm"``), hub name or directory of a masked or causal LM, or a scorer
        (:func:`~embias_widgets.models.language_models.load_likelihood_model`).
    items
        :class:`~embias_widgets.stimuli.bbq.BbqItems` (``load_bbq(...)``, any categories and limit) or a path.
    answers
        ``"item"`` (the paper's three answers, default) or ``"lm-eval"`` (lm-evaluation-harness's two people and
        ten unknown phrasings).
    normalization
        ``"none"`` (the sum, default: lm-eval's ``acc``), ``"char"`` (per character: lm-eval's ``acc_norm``) or
        ``"token"`` (per token).
    chunk_size
        Items per chunk (the unit saved to ``results_dir`` and of a Dask task).
    model_options
        Passed to the model loader (``device``, ``dtype``, ``token_budget``, ...).
    """

    def __init__(self, model: Any = "embias-demo-mlm", items: Any = None, *, answers: str = "item",
                 normalization: str = "none", chunk_size: int = 256,
                 model_options: dict[str, Any] | None = None) -> None:
        self.items = _iv_study(items, chunk_size, answers, normalization)
        self.model_spec = model
        self.answers = answers
        self.normalization = normalization
        self.chunk_size = int(chunk_size)
        self.model_options = dict(model_options or {})
        self._scorer: Any = None
        self._stop = threading.Event()
        self.notes: list[str] = []
        self.seconds = 0.0
        self.last_scores: BbqItemScores | None = None

    def __repr__(self) -> str:
        return f"BbqStudy({self.model_name!r}, {len(self.items):,} items, answers={self.answers!r})"

    @property
    def model_name(self) -> str:
        return model_name(self.model_spec)

    @property
    def scorer(self) -> Any:
        """The model's scorer in this process (loaded on first use)."""
        if self._scorer is None:
            self._scorer = load_likelihood_model(self.model_spec, **self.model_options)
        return self._scorer

    def stop(self) -> None:
        """Ask a running :meth:`item_scores` to stop after the chunk in progress (finished chunks stay on disk)."""
        self._stop.set()

    def chunk_ranges(self) -> list[tuple[int, int]]:
        return chunk_ranges(len(self.items), self.chunk_size)

    # -- one typed item (the widget's own question) -----------------------------------------------------------------
    def score_own(self, context: str, question: str, answers: list[str]) -> dict[str, Any]:
        """Score one typed item: each of its answers' log-likelihood (or PLL), their probabilities under this
        study's normalisation, and the predicted answer's index."""
        from ...models.runtime import cpu_threads, torch_threads

        answers = list(answers)
        t0 = time.perf_counter()
        with torch_threads(cpu_threads()):  # the cores not already busy: on a loaded machine extra threads wait
            scores = score_choices(self.scorer, [bbq_prompt(context, question)], [answers])
        p = scores.probabilities(self.normalization)[0]
        return {"answers": answers, "log_likelihood": [float(x) for x in scores.log_likelihood[0]],
                "probabilities": [float(x) for x in p], "predicted": int(scores.predicted(self.normalization)[0]),
                "n_tokens": [int(x) for x in scores.n_tokens[0]], "normalization": self.normalization,
                "seconds": time.perf_counter() - t0}

    # -- persistence ----------------------------------------------------------------------------------------------
    def model_fingerprint(self) -> str:
        """Content fingerprint of the model (:mod:`embias_widgets.models.fingerprints`); BbqRunError if none."""
        return fingerprint_model(self.model_spec, lambda: self.scorer, BbqRunError)

    def determines(self) -> dict[str, Any]:
        """Everything that fixes a run's chunks (compared exactly on resume)."""
        return {"items": self.items.content_hash, "n_items": len(self.items), "model": self.model_fingerprint(),
                "model_options": scoring_options(self.model_options), "answers": self.answers,
                "chunk_size": self.chunk_size, "prompt": BBQ_PROMPT}

    def _open(self, results_dir: Path | None, fresh: bool) -> dict[int, BbqChunk]:
        if results_dir is None:
            return {}
        about = {"model": self.model_name, "categories": self.items.categories, "n_items": len(self.items)}
        done, notes = open_chunks(results_dir, self.determines(), about, ranges=self.chunk_ranges(),
                                  answers=3 if self.answers == "item" else 12, fresh=fresh)
        self.notes.extend(notes)
        return done

    # -- running --------------------------------------------------------------------------------------------------
    def item_scores(self, *, results_dir: str | Path | None = None, fresh: bool = False, engine: str = "local",
                    scheduler: str | None = None, workers: int | None = None, progress: bool = False,
                    connect_timeout: float = 5.0) -> BbqItemScores:
        """Score every item (chunk by chunk) and return each item's answers' scores, probabilities and prediction.

        ``engine="dask"`` (implied by ``scheduler`` or ``workers``) scores chunks on a cluster. With
        ``results_dir`` a run resumes only from a directory whose manifest has this run's exact fingerprint (else
        :class:`~.chunks.BbqRunError` says what changed); ``fresh=True`` deletes its chunks and starts over."""
        if scheduler is not None or workers is not None:
            engine = "dask"
        if engine not in ENGINES:
            raise ValueError(f"`engine` must be one of {', '.join(ENGINES)}, got {engine!r}")
        if fresh and results_dir is None:
            raise ValueError("`fresh` starts a results_dir over: give results_dir with it")
        self.notes = []
        out_dir = None if results_dir is None else Path(results_dir).expanduser()
        done = self._open(out_dir, fresh)
        todo = [(a, b) for a, b in self.chunk_ranges() if a not in done]
        t0 = time.perf_counter()
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(self.items), initial=sum(c.stop - c.start for c in done.values()),
                       desc=f"BBQ with {self.model_name}", unit="item")

        def finished(c: BbqChunk) -> None:
            done[c.start] = c
            if out_dir is not None:
                c.save(chunk_path(out_dir, c.start, c.stop))
            if bar is not None:
                bar.update(c.stop - c.start)

        self._stop.clear()
        try:
            if engine == "local":
                if getattr(self.scorer, "precision_note", ""):
                    self.notes.append(self.scorer.precision_note)  # a half precision states its tolerance
                run_local(self.scorer, self.items, todo, finished, answer_set=self.answers, stop=self._stop)
            else:
                cost = run_dask(self.model_spec, self.model_options, self.items, todo, finished,
                                answer_set=self.answers, scheduler=scheduler, workers=workers,
                                connect_timeout=connect_timeout, stop=self._stop)
                self.notes.append(f"Dask: {cost.get('workers')} workers; cluster start {cost['start_seconds']:.1f} "
                                  f"s; model and items shipped in {cost.get('ship_seconds', 0):.2f} s")
        finally:
            if bar is not None:
                bar.close()
        self.seconds = time.perf_counter() - t0
        missing = [a for a, _ in self.chunk_ranges() if a not in done]
        if missing:
            raise BbqRunError(f"the run stopped before items {missing[0]}.. were scored ({len(missing)} chunks left); "
                              "run it again with the same results_dir to finish it")
        parts = [done[a] for a, _ in self.chunk_ranges()]
        choices = ChoiceScores(np.concatenate([c.log_likelihood for c in parts]),
                               np.concatenate([c.n_tokens for c in parts]),
                               np.concatenate([c.n_chars for c in parts]), parts[0].kind)
        self.last_scores = BbqItemScores.from_choices(self.items, choices, self.answers, self.normalization)
        return self.last_scores

    def run(self, *, convention: str = "authors", level: float = 0.95, seed: int | None = 0,
            n_resamples: int = 2000, **scoring: Any) -> BbqResult:
        """Score every item (:meth:`item_scores`, which takes ``scoring``: ``results_dir``, ``workers``, ...) and
        compute the authors' accuracy and bias scores of the predictions, with intervals that redraw templates
        (:meth:`~embias_widgets.analysis.bbq.result.BbqResult.from_predictions`). The item scores stay in
        :attr:`last_scores`."""
        scores = self.item_scores(**scoring)
        result = BbqResult.from_predictions(self.items, scores.predicted, scores.probabilities,
                                            model=self.model_name, convention=convention, level=level, seed=seed,
                                            n_resamples=n_resamples)
        demo = [DEMO_NOTE] if self.is_demo else []
        how = (f"scored as multiple choice by {'log-likelihood' if scores.choices.kind == 'causal' else 'PLL'} "
               f"after lm-evaluation-harness's prompt; answers: {self.answers}; normalization: {self.normalization}")
        return replace(result, notes=(*demo, *result.notes, how, *self.notes))

    @property
    def is_demo(self) -> bool:
        """Whether the model is the offline demo model (its numbers say nothing about real models)."""
        from ...models.registry import available_models

        described = getattr(self._scorer, "description", "") or available_models().get(self.model_name, "")
        return "demo" in self.model_name.lower() or "demo" in str(described).lower()
