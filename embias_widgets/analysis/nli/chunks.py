"""One chunk of an NLI probe: the unit of work of every engine, and the file it leaves behind.

A chunk is an index range ``start .. stop-1`` of a pair source. :func:`score_chunk` generates its pairs,
scores them with the classifier and reduces them at once to sufficient statistics
(:class:`~embias_widgets.metrics.neutrality.NeutralityStats`: per word pair and per template sums and
counts, what the two-way intervals resample) plus its top-k pairs by entailment and by contradiction; the
pairs themselves are dropped, so memory does not grow with the probe. :class:`ChunkResult` is what remains,
saved to and loaded from one ``.npz`` file (a file without the per-template sums, written by an earlier
version, is refused by :meth:`ChunkResult.load` and re-scored).
"""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...metrics.neutrality import LABELS, NeutralityStats, TemplateStats, TopPairs
from ...models.nli_classifiers import check_probabilities
from ...stimuli.nli_probes import PairSource
from .templates import template_label

#: The labels whose top pairs a chunk keeps.
TOP_LABELS = ("entailment", "contradiction")


@dataclass
class ChunkResult:
    """What a chunk of pairs ``start .. stop-1`` leaves behind."""

    start: int
    stop: int
    stats: NeutralityStats
    top: dict[str, TopPairs]  # "entailment", "contradiction" -> k largest, by pair index
    top_probs: dict[int, np.ndarray]  # (e, n, c) of every pair in ``top``
    seconds: float = 0.0
    probs: np.ndarray | None = None  # (stop - start, 3) when per-pair rows are kept
    cpu_seconds: float = 0.0  # CPU time of the process that scored it, during the chunk (process_time)
    worker: str = ""  # "host:pid" of the process that scored it
    warmup_seconds: float = 0.0  # before this chunk, in its process: the model fetched and its first-use checks

    def save(self, path: Path) -> None:
        """Write atomically (temporary file, then rename)."""
        idx = np.array(sorted(self.top_probs), dtype=np.int64)
        arrays: dict[str, Any] = dict(
            range=np.array([self.start, self.stop]), taus=np.array(self.stats.taus), seconds=np.array(self.seconds),
            cpu_seconds=np.array(self.cpu_seconds), worker=np.array(self.worker),
            warmup_seconds=np.array(self.warmup_seconds),
            keys_p=np.array([k[0] for k in self.stats.keys], dtype=str),
            keys_h=np.array([k[1] for k in self.stats.keys], dtype=str),
            count=self.stats.count, sums=self.stats.sums, argmax=self.stats.argmax, above=self.stats.above,
            top_idx=idx, top_probs=np.array([self.top_probs[i] for i in idx]).reshape(-1, 3),
        )
        for label, top in self.top.items():
            arrays[f"top_{label}_k"] = np.array(top.k)
            arrays[f"top_{label}_values"] = top.values
            arrays[f"top_{label}_indices"] = top.indices
        if self.probs is not None:
            arrays["probs"] = self.probs
        if self.stats.squares is not None:  # sum of n_i^2 per word pair: the pairs' own spread
            arrays["squares"] = self.stats.squares
        t = self.stats.templates
        if t is not None:  # per-template sums: what the two-way intervals resample
            arrays.update(tkeys=np.array(t.keys, dtype=str), tcount=t.count, tsums=t.sums, targmax=t.argmax,
                          tabove=t.above)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as handle:
            np.savez(handle, **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> ChunkResult:
        """Read a chunk file (raises on a damaged file; :func:`open_results` turns that into a note)."""
        with np.load(path, allow_pickle=False) as z:
            if "tkeys" not in z.files or "squares" not in z.files:
                raise KeyError("no per-template sums (a file of an earlier version)")
            keys = list(zip(z["keys_p"].tolist(), z["keys_h"].tolist(), strict=True))
            templates = TemplateStats(z["tkeys"].tolist(), z["tcount"], z["tsums"], z["targmax"], z["tabove"])
            stats = NeutralityStats(tuple(z["taus"].tolist()), keys, z["count"], z["sums"], z["argmax"], z["above"],
                                    z["squares"], templates)
            top = {label: TopPairs(int(z[f"top_{label}_k"]), z[f"top_{label}_values"], z[f"top_{label}_indices"])
                   for label in TOP_LABELS}
            top_probs = dict(zip(z["top_idx"].tolist(), z["top_probs"], strict=True))
            start, stop = (int(x) for x in z["range"])
            probs = z["probs"] if "probs" in z.files else None
            cpu = float(z["cpu_seconds"]) if "cpu_seconds" in z.files else 0.0  # files of earlier versions lack it
            worker = str(z["worker"]) if "worker" in z.files else ""
            warmup = float(z["warmup_seconds"]) if "warmup_seconds" in z.files else 0.0
            return cls(start, stop, stats, top, top_probs, float(z["seconds"]), probs, cpu, worker, warmup)


def score_chunk(classifier: Any, source: PairSource, start: int, stop: int, *, taus: Sequence[float],
                top_k: int, per_pair: bool = False) -> ChunkResult:
    """Generate pairs ``start .. stop-1``, score them, reduce them (the unit of work of every engine).

    ``seconds`` is the chunk's wall time; ``cpu_seconds`` the CPU time of this process meanwhile (all its
    threads: on a Dask worker, what the worker spent on the chunk, whatever the neighbours on the machine do)."""
    t0, c0 = time.perf_counter(), time.process_time()
    raw, premise_words, hypothesis_words, templates = _predict(classifier, source, start, stop)
    P = check_probabilities(raw, stop - start, name=getattr(classifier, "name", "classifier"))
    stats = NeutralityStats.from_probs(P, premise_words, hypothesis_words, taus, templates)
    index = np.arange(start, stop, dtype=np.int64)
    top = {label: TopPairs(top_k).update(P[:, LABELS.index(label)], index) for label in TOP_LABELS}
    kept = {int(i) for t in top.values() for i in t.indices}
    return ChunkResult(start, stop, stats, top, {i: P[i - start].copy() for i in kept},
                       time.perf_counter() - t0, P if per_pair else None, time.process_time() - c0, worker_name())


def template_key(verb: str, obj: str, template_type: str, premise: str, premise_word: str) -> str:
    """The template a pair was built from, for the two-way intervals: ``"VERB a/an OBJECT"`` when the pair knows
    them (:func:`~.templates.template_label`), else the premise's frame after its slot word (a pairs file in the
    authors' layout: "The awful person bought an apple." -> "person bought an apple."), else the template
    type."""
    if verb and obj:
        return template_label(verb, obj)
    found = re.search(rf"(?<!\w){re.escape(premise_word)}(?!\w)", premise, flags=re.IGNORECASE) if premise_word \
        else None
    frame = premise[found.end():].strip() if found else ""
    return frame or template_type or "(none)"


def worker_name() -> str:
    """This process as chunks name it, ``host:pid`` (read at each call: a forked worker has its own pid)."""
    return f"{socket.gethostname()}:{os.getpid()}"


_WARM: set[int] = set()


def warm_up(classifier: Any, source: PairSource) -> float:
    """Seconds spent on ``classifier``'s first-use work in this process (the ``[CLS]``-row check against the full
    pass, the probe's sentence parts tokenised and checked), done once per classifier object on two pairs;
    0 once done. An engine calls it before a worker's first chunk, so a chunk's ``seconds`` is scoring only and
    the warm-up is ``ChunkResult.warmup_seconds``."""
    if id(classifier) in _WARM or not len(source):
        return 0.0
    t0 = time.perf_counter()
    _predict(classifier, source, 0, min(2, len(source)))
    _WARM.add(id(classifier))
    return time.perf_counter() - t0


def forget_warm(classifier: Any) -> None:
    """Drop ``classifier`` from the warmed-up set (a worker dropping a shipped model: its id may be reused)."""
    _WARM.discard(id(classifier))


def worker_costs(chunks: Sequence[ChunkResult]) -> dict[str, dict[str, float]]:
    """Per process that scored chunks (``ChunkResult.worker``): ``chunks``, ``pairs``, ``seconds`` (scoring wall
    time), ``cpu_seconds`` and ``warmup_seconds`` (model fetched, first-use checks), summed over its chunks."""
    out: dict[str, dict[str, float]] = {}
    for c in chunks:
        row = out.setdefault(c.worker or "?", dict.fromkeys(
            ("chunks", "pairs", "seconds", "cpu_seconds", "warmup_seconds"), 0.0))
        row["chunks"] += 1
        row["pairs"] += c.stop - c.start
        row["seconds"] += c.seconds
        row["cpu_seconds"] += c.cpu_seconds
        row["warmup_seconds"] += c.warmup_seconds
    return out


def _predict(classifier: Any, source: PairSource, start: int,
             stop: int) -> tuple[Any, list[str], list[str], list[str]]:
    """``(probabilities, premise word, hypothesis word, template)`` per pair of pairs ``start .. stop-1`` (the
    template as :func:`~.templates.template_label` names it).

    A template probe gives its pairs as indices into sentence parts (``pair_parts``), no pair objects: a
    classifier with ``predict_parts`` (the cross-encoder) builds token ids from parts tokenised once, any other
    gets the sentences as strings. Other sources give their pairs (``chunk``)."""
    parts_of = getattr(source, "pair_parts", None)
    parts = parts_of(start, stop) if parts_of is not None else None
    if parts is None:
        chunk = source.chunk(start, stop)
        templates = [template_key(*row) for row in zip(chunk.verbs, chunk.objects, chunk.template_types,
                                                       chunk.premises, chunk.premise_words, strict=True)]
        return (classifier.predict(chunk.premises, chunk.hypotheses), chunk.premise_words, chunk.hypothesis_words,
                templates)
    predict_parts = getattr(classifier, "predict_parts", None)
    raw = predict_parts(parts) if predict_parts is not None else classifier.predict(parts.premises(),
                                                                                   parts.hypotheses())
    labels = np.array([template_label(t.verb, t.object) for t in source.templates], dtype=object)
    return raw, parts.pair_premise_words(), parts.pair_hypothesis_words(), labels[parts.t].tolist()
