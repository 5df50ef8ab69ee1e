"""The local engine of an NLI probe, the per-process model cache, and what collects finished chunks.

Engines (:meth:`~embias_widgets.analysis.nli.NliProbe.run`):

- ``"local"`` (default, :func:`run_local`): in this process, chunk after chunk, one model.
- ``"dask"`` (:mod:`.dask_runner`): each task an index range on a ``dask.distributed`` cluster.

Both hand every finished chunk to a :class:`ChunkCollector`, which saves it to the results directory,
advances the progress bar and passes the result reduced so far to ``on_chunk`` (the widget draws partial
results with it).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...models.fingerprints import FingerprintError, model_fingerprint
from ...models.nli_classifiers import load_nli_model
from ...stimuli.nli_probes import PairSource
from .chunks import ChunkResult, score_chunk
from .resume import chunk_path

ENGINES = ("local", "dask")

_WORKER_MODELS: dict[str, Any] = {}


def cached_model(spec: Any, options: dict[str, Any]) -> Any:
    """The classifier of ``spec`` in this process, loaded once (a Dask worker keeps it across tasks).

    Kept under the model's content fingerprint, not its name: a model retrained into the same folder is
    loaded again. A model that cannot be fingerprinted (a user-registered name) is loaded each time."""
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


class ChunkCollector:
    """Finished chunks by start: saved to ``out_dir``, counted on a progress bar, reduced for ``on_chunk``.

    ``reduce(done_chunks, seconds)`` builds a result of the chunks so far (the study's reduction);
    afterwards each new chunk is merged into it in arrival order (cheap, for display only)."""

    def __init__(self, done: dict[int, ChunkResult], *, out_dir: Path | None, reduce: Callable[..., Any],
                 on_chunk: Callable[[Any], Any] | None = None, bar: Any = None) -> None:
        self.done = done
        self.out_dir = out_dir
        self.reduce = reduce
        self.on_chunk = on_chunk
        self.bar = bar
        self.t0 = time.perf_counter()
        self._partial: Any = None

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0

    def __call__(self, c: ChunkResult) -> None:
        self.done[c.start] = c
        if self.out_dir is not None:
            c.save(chunk_path(self.out_dir, c.start, c.stop))
        if self.bar is not None:
            self.bar.update(c.stop - c.start)
        if self.on_chunk is not None:
            if self._partial is None:
                self._partial = self.reduce(self.done.values(), self.seconds)
            else:
                self._partial = self._partial.add(c, seconds=self.seconds)
            self.on_chunk(self._partial)


def run_local(model: Any, source: PairSource, todo: Sequence[tuple[int, int]], finished: Callable[[ChunkResult], Any],
              *, taus: Sequence[float], top_k: int, per_pair: bool, stop: threading.Event) -> None:
    """Score the ranges ``todo`` in this process, one after the other, until done or ``stop`` is set."""
    for a, b in todo:
        if stop.is_set():
            break
        finished(score_chunk(model, source, a, b, taus=taus, top_k=top_k, per_pair=per_pair))
