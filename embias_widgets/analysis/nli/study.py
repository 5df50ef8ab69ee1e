"""``NliProbe``: the NLI bias probes of Dev et al. (2020) run on any NLI classifier, locally or on Dask.

A probe (:mod:`embias_widgets.stimuli.nli_probes`, up to ~2 million pairs) is cut into chunks by index
range (:mod:`.chunks`); the engines (:mod:`.engine`, :mod:`.dask_runner`) score them and the chunks are
reduced into an :class:`~.result.NliProbeResult`. With ``results_dir`` every finished chunk is written to
its own file next to a ``run.json`` manifest holding a fingerprint of the pairs' content, the model's files
and every option that changes scores (:mod:`.resume`); a re-run with the very same fingerprint loads the
finished chunks and scores only the rest, and anything else is refused (``fresh=True`` starts over).
``on_chunk`` receives the result reduced so far after each chunk (the widget draws partial results).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...metrics.neutrality import DEFAULT_TAUS, LABELS, NeutralityStats
from ...models.nli_classifiers import check_probabilities
from ...models.registry import available_models
from ...models.runtime import precision_note
from ...stimuli.fingerprints import pairs_fingerprint
from ...stimuli.nli_probes import PairChunk, TemplateProbe, load_pairs
from ..resumable_runs import chunk_ranges, fingerprint_model, model_name, scoring_options
from .chunks import ChunkResult
from .dask_runner import cluster_note, run_dask
from .engine import ENGINES, ChunkCollector, cached_model, run_local
from .result import NliProbeResult
from .resume import NliRunError, open_results


def check_run_options(chunk_size: int, top_k: int, taus: Sequence[float], engine: str) -> None:
    """Validate a run's options, each error naming its parameter."""
    if int(chunk_size) < 1:
        raise ValueError(f"`chunk_size` must be a positive number of pairs, got {chunk_size}")
    if int(top_k) < 0:
        raise ValueError(f"`top_k` must be >= 0, got {top_k}")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")
    NeutralityStats(tuple(taus))  # validates taus


def score_pair(classifier: Any, premise: str, hypothesis: str) -> dict[str, float]:
    """``{"entailment": e, "neutral": n, "contradiction": c}`` of one typed pair."""
    P = check_probabilities(classifier.predict([premise], [hypothesis]), 1,
                            name=str(getattr(classifier, "name", "classifier")))
    return {label: float(P[0, j]) for j, label in enumerate(LABELS)}


def model_description(spec: Any) -> str:
    """What the registry (or the model object) says about a model, without loading it."""
    if isinstance(spec, str):
        return available_models().get(spec, "")
    return str(getattr(spec, "description", ""))


class NliProbe:
    """A probe (named, a pairs CSV, or a :class:`~embias_widgets.stimuli.nli_probes.PairSource`) and a model.

    Parameters
    ----------
    pairs
        ``"gender-occupation"``, ``"nationality-polarity"``, ``"religion-polarity"``, a CSV path in the
        authors' layout, or a pair source (``user_probe([...], [...])``).
    model
        A registered name (``"embias-demo-nli"``), hub name or directory of a sequence-classification NLI
        model, or any :class:`~embias_widgets.models.nli_classifiers.NliClassifier`.
    taus
        Thresholds of ``T:tau`` (default 0.5 and 0.7, the paper's).
    limit
        Score only the first ``limit`` pairs (a subset; the result says how many of how many).
    model_options
        Passed to the model loader (``device``, ``token_budget``, ...).
    """

    def __init__(self, pairs: Any, model: Any = "embias-demo-nli", *, taus: Sequence[float] = DEFAULT_TAUS,
                 chunk_size: int = 4096, top_k: int = 10, limit: int | None = None,
                 model_options: dict[str, Any] | None = None) -> None:
        check_run_options(chunk_size, top_k, taus, "local")
        self.source = load_pairs(pairs)
        self.model_spec = model
        self.model_options = dict(model_options or {})
        self.taus = tuple(float(t) for t in taus)
        self.chunk_size = int(chunk_size)
        self.top_k = int(top_k)
        n = len(self.source)
        if limit is not None and int(limit) < 1:
            raise ValueError(f"`limit` must be a positive number of pairs, got {limit}")
        self.n_pairs = n if limit is None else min(n, int(limit))
        self._model: Any = None
        self._stop = threading.Event()
        self._resume_notes: list[str] = []
        self._cluster_cost: dict[str, Any] = {}  # what the last Dask run's cluster cost (run_dask)

    def __repr__(self) -> str:
        return f"NliProbe({self.source.name!r}, {self.n_pairs:,} pairs, model={self.model_name!r})"

    @property
    def model_name(self) -> str:
        return model_name(self.model_spec)

    @property
    def model(self) -> Any:
        """The classifier in this process (loaded on first use)."""
        if self._model is None:
            self._model = cached_model(self.model_spec, self.model_options)
        return self._model

    def stop(self) -> None:
        """Ask a running :meth:`run` (e.g. in a widget's thread) to stop after the chunk in progress;
        it returns the partial result (``complete`` is False) and finished chunks stay in ``results_dir``."""
        self._stop.set()

    def chunk_ranges(self) -> list[tuple[int, int]]:
        return chunk_ranges(self.n_pairs, self.chunk_size)

    # -- single pairs and one word pair, scored on demand (the widget's cell click and free text) ----------------
    def predict_pair(self, premise: str, hypothesis: str) -> dict[str, float]:
        """``{"entailment": e, "neutral": n, "contradiction": c}`` of one typed pair."""
        return score_pair(self.model, premise, hypothesis)

    def _word_pair_list(self, premise_word: str, hypothesis_word: str, limit: int | None) -> list[Any]:
        if isinstance(self.source, TemplateProbe):
            r = self.source.word_pair_range(premise_word, hypothesis_word)
            stop = r.stop if limit is None else min(r.stop, r.start + int(limit))
            return list(self.source.iter_pairs(r.start, min(stop, max(r.start, self.n_pairs))))
        pairs = []
        for pair in self.source.iter_pairs(0, self.n_pairs):
            if (pair.premise_word, pair.hypothesis_word) == (premise_word, hypothesis_word):
                pairs.append(pair)
                if limit is not None and len(pairs) >= limit:
                    break
        return pairs

    def word_pair_rows(self, premise_word: str, hypothesis_word: str, *, limit: int | None = None) -> Any:
        """The sentence pairs of one (premise word, hypothesis word), scored now: one row each with (e, n, c).

        For a template probe these are one contiguous block of indices; for a CSV file the rows are found by
        a scan (up to ``limit`` of them)."""
        import pandas as pd

        pairs = self._word_pair_list(premise_word, hypothesis_word, limit)
        chunk = PairChunk(0)
        for pair in pairs:
            chunk.append(pair)
        P = (check_probabilities(self.model.predict(chunk.premises, chunk.hypotheses), len(chunk),
                                 name=self.model_name) if len(chunk) else np.zeros((0, 3)))
        return pd.DataFrame({
            "index": [p.index for p in pairs], "verb": chunk.verbs, "object": chunk.objects,
            "premise": chunk.premises, "hypothesis": chunk.hypotheses,
            **{label: P[:, j] for j, label in enumerate(LABELS)},
        })

    # -- persistence -------------------------------------------------------------------------------------------
    def model_fingerprint(self) -> str:
        """Content fingerprint of the model (:mod:`embias_widgets.models.fingerprints`); NliRunError if none."""
        return fingerprint_model(self.model_spec, lambda: self.model, NliRunError)

    def _determines(self, per_pair: bool) -> dict[str, Any]:
        """Everything that fixes the numbers of this run (compared exactly on resume)."""
        return {"pairs": pairs_fingerprint(self.source), "n_pairs": self.n_pairs, "model": self.model_fingerprint(),
                "model_options": scoring_options(self.model_options), "taus": list(self.taus),
                "chunk_size": self.chunk_size, "top_k": self.top_k, "per_pair": bool(per_pair)}

    def _open_results(self, results_dir: Path | None, per_pair: bool, fresh: bool) -> dict[int, ChunkResult]:
        self._resume_notes = []
        if results_dir is None:
            return {}
        about = {"probe": self.source.name, "model": self.model_name, "source_pairs": len(self.source),
                 "pairs_file": str(getattr(self.source, "path", "")),
                 "first_id": next(iter(self.source.iter_pairs(0, 1))).id}
        done, notes = open_results(results_dir, self._determines(per_pair), about, ranges=self.chunk_ranges(),
                                   taus=self.taus, fresh=fresh)
        self._resume_notes = notes
        return done

    # -- running -----------------------------------------------------------------------------------------------
    def run(self, *, engine: str = "local", scheduler: str | None = None, workers: int | None = None,
            results_dir: str | Path | None = None, per_pair: bool = False,
            on_chunk: Callable[[NliProbeResult], Any] | None = None, progress: bool = False,
            connect_timeout: float = 5.0, fresh: bool = False) -> NliProbeResult:
        """Score every pair (or the first ``limit``) and return the reduced result.

        ``engine="dask"`` (implied by ``scheduler`` or ``workers``) runs chunks on a cluster;
        ``on_chunk(result_so_far)`` is called after each finished chunk. With ``results_dir`` a run resumes
        only from a directory whose manifest has this run's exact fingerprint (else :class:`NliRunError`
        says what changed); ``fresh=True`` deletes that directory's chunks and manifest and starts over.
        """
        if scheduler is not None or workers is not None:
            engine = "dask"
        check_run_options(self.chunk_size, self.top_k, self.taus, engine)
        if not (np.isfinite(connect_timeout) and connect_timeout > 0):
            raise ValueError(f"`connect_timeout` must be a positive number of seconds, got {connect_timeout}")
        out_dir = None if results_dir is None else Path(results_dir).expanduser()
        done = self._open_results(out_dir, per_pair, fresh)
        todo = [(a, b) for a, b in self.chunk_ranges() if a not in done]
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=self.n_pairs, initial=sum(c.stop - c.start for c in done.values()),
                       desc=f"NLI probe {self.source.name}", unit="pair")
        finished = ChunkCollector(done, out_dir=out_dir, on_chunk=on_chunk, bar=bar,
                                  reduce=lambda parts, seconds: self._reduce(parts, seconds, engine))
        self._stop.clear()
        options = dict(taus=self.taus, top_k=self.top_k, per_pair=per_pair, stop=self._stop)
        try:
            if engine == "local":
                run_local(self.model, self.source, todo, finished, **options)
            else:
                self._cluster_cost = run_dask(self.model_spec, self.model_options, self.source, todo, finished,
                                              scheduler=scheduler, workers=workers,
                                              connect_timeout=connect_timeout, **options)
        finally:
            if bar is not None:
                bar.close()
        return self._reduce(done.values(), finished.seconds, engine)

    def _reduce(self, parts: Any, seconds: float, engine: str) -> NliProbeResult:
        if self._model is not None or engine == "local":
            description = str(getattr(self.model, "description", ""))
        else:
            description = model_description(self.model_spec)
        notes: tuple[str, ...] = tuple(self._resume_notes)
        precision = (getattr(self._model, "precision_note", "") if self._model is not None
                     else precision_note(self.model_options.get("dtype"), "probabilities"))
        notes = (precision, *notes) if precision else notes  # a half precision states its tolerance
        if engine == "dask" and self._cluster_cost:
            notes = (*notes, cluster_note(self._cluster_cost, list(parts)))
        if self.n_pairs < len(self.source):
            notes = (f"a subset: the first {self.n_pairs:,} of {len(self.source):,} pairs", *notes)
        return NliProbeResult.reduce(
            list(parts), taus=self.taus, top_k=self.top_k, model=self.model_name, model_description=description,
            probe=self.source.name, source=self.source, n_pairs=self.n_pairs, seconds=seconds, engine=engine,
            notes=notes,
        )
