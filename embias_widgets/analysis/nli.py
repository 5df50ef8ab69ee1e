"""``NliProbe``: the NLI bias probes of Dev et al. (2020) run on any NLI classifier, locally or on Dask.

A probe (:mod:`embias_widgets.stimuli.nli_probes`, up to ~2 million pairs) is
cut into chunks by index range. Each chunk is generated from its range,
scored by the classifier and reduced at once to sufficient statistics
(:class:`~embias_widgets.metrics.neutrality.NeutralityStats`: per word pair
sums and counts) plus its top-k pairs by entailment and by contradiction;
the pairs themselves are dropped, so memory does not grow with the probe.

Engines (:meth:`NliProbe.run`):

- ``"local"`` (default): in this process, chunk after chunk, one model.
- ``"dask"``: a ``dask.distributed`` cluster (``scheduler="tcp://host:8786"``
  or ``workers=N`` for a ``LocalCluster`` of N single-thread processes). Each
  task gets an index range; a worker loads the model once (a per-process cache
  keyed by the model's name and options) and returns the chunk's statistics;
  the client reduces them in chunk order, so the result equals the local
  engine's exactly (same chunks, same model, same order of float sums).

With ``results_dir`` every finished chunk is written to its own file (written
to a temporary name, then renamed) next to a ``run.json`` manifest holding a
fingerprint of the pairs' content, the model's files and every option that
changes scores (:mod:`.nli_results`); a re-run with the very same fingerprint
loads the finished chunks and scores only the rest, so an interrupted run loses
no finished chunk, and anything else is refused (``fresh=True`` starts over). ``on_chunk``
receives the result reduced so far after each chunk (the widget draws
partial results with it).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..metrics.neutrality import DEFAULT_TAUS, LABELS, NeutralityStats, TopPairs, threshold_key
from ..models.nli_classifiers import check_probabilities, is_nli_classifier, load_nli_model
from ..stimuli.nli_probes import PairSource, load_pairs
from .nli_results import NEUTRAL_OPTIONS, ChunkResult, NliRunError, chunk_path, open_results

ENGINES = ("local", "dask")
DEMO_NOTE = (
    "DEMO model: a small offline NLI head for trying the method; its scores say nothing about the bias of "
    "real NLI models (use e.g. a model fine-tuned on SNLI or MNLI)"
)
LEVEL_NOTES = {
    "pairs": "over sentence pairs (AllenNLP's fairness metric, MABEL and later papers)",
    "word_pairs": "over (premise word, hypothesis word) pairs after averaging each over its templates "
    "(the authors' evaluation.py)",
}


# -- one chunk ------------------------------------------------------------------------------------------
def score_chunk(classifier: Any, source: PairSource, start: int, stop: int, *, taus: Sequence[float],
                top_k: int, per_pair: bool = False) -> ChunkResult:
    """Generate pairs ``start .. stop-1``, score them, reduce them (the unit of work of every engine)."""
    t0 = time.perf_counter()
    chunk = source.chunk(start, stop)
    P = check_probabilities(classifier.predict(chunk.premises, chunk.hypotheses), len(chunk),
                            name=getattr(classifier, "name", "classifier"))
    stats = NeutralityStats.from_probs(P, chunk.premise_words, chunk.hypothesis_words, taus)
    index = np.arange(start, stop, dtype=np.int64)
    top = {label: TopPairs(top_k).update(P[:, LABELS.index(label)], index) for label in ("entailment", "contradiction")}
    kept = {int(i) for t in top.values() for i in t.indices}
    return ChunkResult(start, stop, stats, top, {i: P[i - start].copy() for i in kept},
                       time.perf_counter() - t0, P if per_pair else None)


_WORKER_MODELS: dict[str, Any] = {}


def _cached_model(spec: Any, options: dict[str, Any]) -> Any:
    """The classifier of ``spec`` in this process, loaded once (a Dask worker keeps it across tasks).

    Kept under the model's content fingerprint, not its name: a model retrained into the same folder is
    loaded again. A model that cannot be fingerprinted (a user-registered name) is loaded each time."""
    from ..models.fingerprints import FingerprintError, model_fingerprint

    if not isinstance(spec, str):
        return load_nli_model(spec)
    try:
        fingerprint = model_fingerprint(spec)
    except FingerprintError:
        return load_nli_model(spec, **options)
    key = json.dumps([spec, options, fingerprint], sort_keys=True, default=str)
    if key not in _WORKER_MODELS:
        _WORKER_MODELS[key] = load_nli_model(spec, **options)
    return _WORKER_MODELS[key]


def _dask_task(spec: Any, options: dict[str, Any], source: PairSource, start: int, stop: int,
               taus: Sequence[float], top_k: int, per_pair: bool) -> ChunkResult:
    return score_chunk(_cached_model(spec, options), source, start, stop, taus=taus, top_k=top_k, per_pair=per_pair)


# -- the result ---------------------------------------------------------------------------------------------
@dataclass
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
        top = {label: TopPairs(top_k) for label in ("entailment", "contradiction")}
        probs: dict[int, np.ndarray] = {}
        for c in parts:
            for label in top:
                top[label] = top[label].merge(c.top[label])
            probs.update(c.top_probs)
        kept = {int(i) for t in top.values() for i in t.indices}
        return cls(stats=stats, top=top, top_probs={i: probs[i] for i in sorted(kept)}, chunks=list(parts), **meta)

    def add(self, chunk: ChunkResult, *, seconds: float | None = None) -> NliProbeResult:
        """A new result with one more chunk merged in (float sums in arrival order)."""
        top = {label: t.merge(chunk.top[label]) for label, t in self.top.items()}
        probs = {**self.top_probs, **chunk.top_probs}
        kept = {int(i) for t in top.values() for i in t.indices}
        return replace(self, stats=self.stats.merge(chunk.stats), top=top,
                       top_probs={i: probs[i] for i in sorted(kept)}, chunks=[*self.chunks, chunk],
                       seconds=self.seconds if seconds is None else seconds)

    # -- scores -------------------------------------------------------------------------------------------
    def scores(self) -> dict[str, dict[str, float]]:
        """``{"pairs": {...}, "word_pairs": {...}}``, each with net_neutral, fraction_neutral, threshold_tau."""
        return {"pairs": self.stats.pair_level(), "word_pairs": self.stats.word_level()}

    def summary(self) -> dict[str, Any]:
        """The JSON object of ``embias nli``: model, n_pairs, and both levels."""
        out: dict[str, Any] = {"model": self.model, "probe": self.probe, "n_pairs": self.n_scored}
        out.update(self.scores())
        out["n_word_pairs"] = self.stats.n_word_pairs
        out["levels"] = dict(LEVEL_NOTES)
        if self.is_demo:
            out["note"] = DEMO_NOTE
        return out

    def slice(self, premise_word: Any = None, hypothesis_word: Any = None) -> dict[str, dict[str, float]]:
        """Both levels restricted to pairs with these slot values (e.g. premise "rude", hypothesis "Iraqi")."""
        s = self.stats.slice(premise_word, hypothesis_word)
        return {"pairs": s.pair_level(), "word_pairs": s.word_level(), "n_pairs": s.n_pairs}

    # -- tables -------------------------------------------------------------------------------------------
    def scores_table(self) -> Any:
        """Tidy: one row per (level, measure)."""
        import pandas as pd

        rows = [{"level": level, "measure": m, "value": v} for level, d in self.scores().items() for m, v in d.items()]
        return pd.DataFrame(rows, columns=["level", "measure", "value"])

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

    def top_pairs(self, by: str = "entailment") -> Any:
        """The top-k sentence pairs by ``by`` (entailment or contradiction), as the paper's Tables 2, 4, 6."""
        import pandas as pd

        if by not in self.top:
            raise ValueError(f"`by` must be one of {sorted(self.top)}, got {by!r}")
        rows = []
        for i in self.top[by].indices.tolist():
            pair = next(iter(self.source.iter_pairs(i, i + 1)))
            rows.append({"index": i, "id": pair.id, "premise_word": pair.premise_word, "verb": pair.verb,
                         "object": pair.object, "hypothesis_word": pair.hypothesis_word, "premise": pair.premise,
                         "hypothesis": pair.hypothesis,
                         **{label: float(self.top_probs[i][j]) for j, label in enumerate(LABELS)}})
        return pd.DataFrame(rows)

    def top_word_pairs(self, by: str = "entailment", k: int = 10) -> Any:
        import pandas as pd

        return pd.DataFrame(self.stats.top_word_pairs(k, by=by))

    def pairs_table(self) -> Any:
        """One row per scored pair with (e, n, c): only when the run kept per-pair rows (``per_pair=True``)."""
        import pandas as pd

        if any(c.probs is None for c in self.chunks):
            raise ValueError("per-pair rows were not kept: run with per_pair=True")
        frames = []
        for c in sorted(self.chunks, key=lambda c: c.start):
            chunk = self.source.chunk(c.start, c.stop)
            frames.append(pd.DataFrame({
                "index": np.arange(c.start, c.stop), "id": chunk.ids, "premise_word": chunk.premise_words,
                "hypothesis_word": chunk.hypothesis_words, "template_type": chunk.template_types,
                "premise": chunk.premises, "hypothesis": chunk.hypotheses,
                **{label: c.probs[:, j] for j, label in enumerate(LABELS)},
            }))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def write_pairs_csv(self, path: str | Path) -> int:
        """Stream the per-pair rows (``per_pair=True`` runs) to a CSV file, chunk by chunk: the authors' columns
        plus ``entailment``, ``neutral``, ``contradiction``. Returns the number of rows."""
        from ..stimuli.nli_probes import CSV_COLUMNS
        from ..stimuli.spreadsheet_safe import safe_writer

        if any(c.probs is None for c in self.chunks):
            raise ValueError("per-pair rows were not kept: run with per_pair=True")
        n = 0
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = safe_writer(handle)
            writer.writerow([*CSV_COLUMNS, *LABELS])
            for c in sorted(self.chunks, key=lambda c: c.start):
                for pair, p in zip(self.source.iter_pairs(c.start, c.stop), c.probs, strict=True):
                    writer.writerow([*pair.csv_row(), *(repr(float(x)) for x in p)])
                    n += 1
        return n

    # -- charts -------------------------------------------------------------------------------------------
    def chart(self) -> Any:
        """Bars of NN, FN, T:tau at both levels (1 = neutral everywhere, the unbiased value)."""
        import altair as alt

        data = self.scores_table()
        title = f"{self.probe}: neutrality of {self.model}" + (" (DEMO model)" if self.is_demo else "")
        return (
            alt.Chart(data, title=title)
            .mark_bar()
            .encode(
                x=alt.X("value:Q", scale=alt.Scale(domain=[0, 1]), title="score (1 = all neutral)"),
                y=alt.Y("measure:N", sort=None, title=None),
                row=alt.Row("level:N", title=None),
                tooltip=["level", "measure", alt.Tooltip("value:Q", format=".3f")],
            )
        )

    def heatmap(self, label: str = "neutral") -> Any:
        """Premise word x hypothesis word, colour = mean P(label) over templates."""
        import altair as alt

        if label not in LABELS:
            raise ValueError(f"`label` must be one of {LABELS}, got {label!r}")
        data = self.word_pairs_table()
        return (
            alt.Chart(data, title=f"mean P({label}) per word pair, {self.model}")
            .mark_rect()
            .encode(
                x=alt.X("hypothesis_word:N", sort=None, title="hypothesis word"),
                y=alt.Y("premise_word:N", sort=None, title="premise word"),
                color=alt.Color(f"{label}:Q", scale=alt.Scale(domain=[0, 1])),
                tooltip=["premise_word", "hypothesis_word", "n_pairs", *[alt.Tooltip(f"{lb}:Q", format=".3f")
                                                                         for lb in LABELS]],
            )
        )


# -- the study ---------------------------------------------------------------------------------------------
def _iv_run(chunk_size: int, top_k: int, taus: Sequence[float], engine: str) -> None:
    if int(chunk_size) < 1:
        raise ValueError(f"`chunk_size` must be a positive number of pairs, got {chunk_size}")
    if int(top_k) < 0:
        raise ValueError(f"`top_k` must be >= 0, got {top_k}")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")
    NeutralityStats(tuple(taus))  # validates taus


def _iv_address(address: str) -> str:
    """A scheduler address ``[scheme://]host:port`` (port a number), else NliRunError naming the form."""
    import re

    if not isinstance(address, str) or not re.fullmatch(r"(?:[a-z]+://)?[^\s/:]+(?::\d{1,5})?", address.strip()):
        raise NliRunError(f"scheduler address {address!r} is not of the form tcp://host:8786")
    return address.strip()


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
        _iv_run(chunk_size, top_k, taus, "local")
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

    def __repr__(self) -> str:
        return f"NliProbe({self.source.name!r}, {self.n_pairs:,} pairs, model={self.model_name!r})"

    @property
    def model_name(self) -> str:
        spec = self.model_spec
        return spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))

    @property
    def model(self) -> Any:
        """The classifier in this process (loaded on first use)."""
        if self._model is None:
            self._model = _cached_model(self.model_spec, self.model_options)
        return self._model

    def stop(self) -> None:
        """Ask a running :meth:`run` (e.g. in a widget's thread) to stop after the chunk in progress;
        it returns the partial result (``complete`` is False) and finished chunks stay in ``results_dir``."""
        self._stop.set()

    def chunk_ranges(self) -> list[tuple[int, int]]:
        return [(a, min(a + self.chunk_size, self.n_pairs)) for a in range(0, self.n_pairs, self.chunk_size)]

    # -- single pairs and one word pair, scored on demand (the widget's cell click and free text) ----------------
    def predict_pair(self, premise: str, hypothesis: str) -> dict[str, float]:
        """``{"entailment": e, "neutral": n, "contradiction": c}`` of one typed pair."""
        P = check_probabilities(self.model.predict([premise], [hypothesis]), 1, name=self.model_name)
        return {label: float(P[0, j]) for j, label in enumerate(LABELS)}

    def word_pair_rows(self, premise_word: str, hypothesis_word: str, *, limit: int | None = None) -> Any:
        """The sentence pairs of one (premise word, hypothesis word), scored now: one row each with (e, n, c).

        For a template probe these are one contiguous block of indices; for a CSV file the rows are found by
        a scan (up to ``limit`` of them)."""
        import pandas as pd

        from ..stimuli.nli_probes import PairChunk, TemplateProbe

        chunk = PairChunk(0)
        if isinstance(self.source, TemplateProbe):
            r = self.source.word_pair_range(premise_word, hypothesis_word)
            stop = r.stop if limit is None else min(r.stop, r.start + int(limit))
            pairs = list(self.source.iter_pairs(r.start, min(stop, max(r.start, self.n_pairs))))
        else:
            pairs = []
            for pair in self.source.iter_pairs(0, self.n_pairs):
                if (pair.premise_word, pair.hypothesis_word) == (premise_word, hypothesis_word):
                    pairs.append(pair)
                    if limit is not None and len(pairs) >= limit:
                        break
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
        from ..models.fingerprints import FingerprintError, model_fingerprint, object_fingerprint

        try:
            try:
                return model_fingerprint(self.model_spec)
            except FingerprintError:
                if not isinstance(self.model_spec, str):
                    raise
                return object_fingerprint(self.model)  # e.g. a user-registered name: fingerprint what it loads
        except FingerprintError as err:
            raise NliRunError(f"results_dir needs a model whose content can be fingerprinted: {err}") from None

    def _determines(self, per_pair: bool) -> dict[str, Any]:
        """Everything that fixes the numbers of this run (compared exactly on resume)."""
        from ..stimuli.fingerprints import pairs_fingerprint

        options = {k: v for k, v in sorted(self.model_options.items()) if k not in NEUTRAL_OPTIONS}
        return {"pairs": pairs_fingerprint(self.source), "n_pairs": self.n_pairs, "model": self.model_fingerprint(),
                "model_options": json.loads(json.dumps(options, default=str)), "taus": list(self.taus),
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
        _iv_run(self.chunk_size, self.top_k, self.taus, engine)
        if not (np.isfinite(connect_timeout) and connect_timeout > 0):
            raise ValueError(f"`connect_timeout` must be a positive number of seconds, got {connect_timeout}")
        out_dir = None if results_dir is None else Path(results_dir).expanduser()
        done = self._open_results(out_dir, per_pair, fresh)
        todo = [(a, b) for a, b in self.chunk_ranges() if a not in done]
        t0 = time.perf_counter()
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=self.n_pairs, initial=sum(c.stop - c.start for c in done.values()),
                       desc=f"NLI probe {self.source.name}", unit="pair")

        partial: list[NliProbeResult] = []

        def finished(c: ChunkResult) -> None:
            done[c.start] = c
            if out_dir is not None:
                c.save(chunk_path(out_dir, c.start, c.stop))
            if bar is not None:
                bar.update(c.stop - c.start)
            if on_chunk is not None:  # running merge in arrival order: cheap, for display only
                if not partial:
                    partial.append(self._reduce(done.values(), time.perf_counter() - t0, engine))
                else:
                    partial[0] = partial[0].add(c, seconds=time.perf_counter() - t0)
                on_chunk(partial[0])

        self._stop.clear()
        try:
            if engine == "local":
                for a, b in todo:
                    if self._stop.is_set():
                        break
                    finished(score_chunk(self.model, self.source, a, b, taus=self.taus, top_k=self.top_k,
                                         per_pair=per_pair))
            else:
                self._run_dask(todo, finished, scheduler, workers, per_pair, connect_timeout)
        finally:
            if bar is not None:
                bar.close()
        return self._reduce(done.values(), time.perf_counter() - t0, engine)

    def _reduce(self, parts: Any, seconds: float, engine: str) -> NliProbeResult:
        description = ""
        if self._model is not None or engine == "local":
            description = getattr(self.model, "description", "")
        elif isinstance(self.model_spec, str):
            from ..models.registry import available_models

            description = available_models().get(self.model_spec, "")
        else:
            description = str(getattr(self.model_spec, "description", ""))
        notes: tuple[str, ...] = tuple(getattr(self, "_resume_notes", ()))
        if self.n_pairs < len(self.source):
            notes = (f"a subset: the first {self.n_pairs:,} of {len(self.source):,} pairs", *notes)
        return NliProbeResult.reduce(
            list(parts), taus=self.taus, top_k=self.top_k, model=self.model_name, model_description=description,
            probe=self.source.name, source=self.source, n_pairs=self.n_pairs, seconds=seconds, engine=engine,
            notes=notes,
        )

    def _run_dask(self, todo: list[tuple[int, int]], finished: Callable[[ChunkResult], None],
                  scheduler: str | None, workers: int | None, per_pair: bool, connect_timeout: float) -> None:
        try:
            from distributed import Client, LocalCluster, as_completed
        except ImportError as err:  # pragma: no cover - the scale extra is part of test
            raise NliRunError("the Dask engine needs `distributed`: pip install 'embias-widgets[scale]'") from err
        cluster = None
        if scheduler is None:
            n = int(workers or 1)
            if n < 1:
                raise ValueError(f"`workers` must be >= 1, got {workers}")
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            address = cluster.scheduler_address
        else:
            address = scheduler
        try:
            try:
                client = Client(_iv_address(address), timeout=f"{connect_timeout}s")
            except NliRunError:
                raise
            except Exception as err:  # refused, timed out, or something that is not a Dask scheduler answered
                raise NliRunError(f"no Dask scheduler answers at {address} within {connect_timeout:g} s "
                                  f"({type(err).__name__}: {str(err)[:120]}); start one (dask scheduler) or use "
                                  "--workers N for a local cluster") from None
            try:
                spec = self.model_spec
                if not isinstance(spec, str):  # an object: ship it once to every worker
                    spec = client.scatter(spec, broadcast=True)
                source = client.scatter(self.source, broadcast=True)  # sent once, not with every task
                futures = [client.submit(_dask_task, spec, self.model_options, source, a, b, self.taus,
                                         self.top_k, per_pair, key=f"nli-chunk-{a}-{b}-{id(self)}", pure=False)
                           for a, b in todo]
                for future in as_completed(futures):
                    finished(future.result())
                    if self._stop.is_set():
                        client.cancel(futures)
                        break
            finally:
                client.close()
        finally:
            if cluster is not None:
                cluster.close()


# -- debiasing before / after -----------------------------------------------------------------------------------
def debias_comparison(pairs: Any, model: Any, *, words: Sequence[str] = ("he", "she"), random_seed: int = 0,
                      **probe_options: Any) -> Any:
    """NN/FN/T of a probe before debiasing, after projecting the ``words`` direction out of the model's input
    word embeddings, and after projecting out a random direction (Dev et al. 2020, section 4; the control of
    Tables 8, 12, 14). Tidy DataFrame: level, measure, model variant, value."""
    import pandas as pd

    from ..models.nli_classifiers.debias import debias_input_embeddings, random_control

    clf = load_nli_model(model) if not is_nli_classifier(model) else model
    variants = {"before": clf, "debiased": debias_input_embeddings(clf, words=words),
                "random direction": random_control(clf, 1, seed=random_seed)}
    rows = []
    for variant, m in variants.items():
        result = NliProbe(pairs, m, **probe_options).run()
        for level, scores in result.scores().items():
            rows.extend({"level": level, "measure": k, "variant": variant, "value": v} for k, v in scores.items())
    return pd.DataFrame(rows, columns=["level", "measure", "variant", "value"])


__all__ = [
    "ENGINES",
    "ChunkResult",
    "NliProbe",
    "NliProbeResult",
    "NliRunError",
    "debias_comparison",
    "score_chunk",
    "threshold_key",
]
