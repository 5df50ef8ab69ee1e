"""Where a BBQ run's chunks are scored: in this process, or as tasks on a ``dask.distributed`` cluster.

The cluster side reuses the NLI probe's machinery (:mod:`embias_widgets.analysis.nli.dask_runner`):
``workers=N`` starts a ``LocalCluster`` of N single-thread processes forked from a fork server that imported torch
once, ``scheduler="tcp://host:8786"`` connects to a running one; a model given as an object is pickled once and
shipped as bytes; with a CUDA device each worker places the model on its own GPU. Each worker loads the model once
(:func:`worker_scorer`, keyed by the model's content fingerprint and options) and returns each chunk's
log-likelihoods; the client saves every chunk as it arrives. A causal chunk's numbers do not depend on which worker
scored it (batches of one context length, no padding before a scored token); a masked one's neither (equal-length
batches of masked copies).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ...models.fingerprints import FingerprintError, model_fingerprint
from ...models.language_models import load_likelihood_model
from ..nli.dask_runner import ShippedModel, run_chunk_tasks
from .chunks import BbqChunk, BbqRunError, score_chunk

ENGINES = ("local", "dask")
_SCORERS: dict[str, Any] = {}
_SHIPPED: dict[str, Any] = {}


def worker_scorer(spec: Any, options: dict[str, Any]) -> Any:
    """The scorer of ``spec`` in this process, loaded once: a name or directory under its content fingerprint
    and options (a model retrained into the same folder is loaded again), a shipped object unpickled once."""
    if isinstance(spec, ShippedModel):
        if spec.token not in _SHIPPED:
            import cloudpickle

            _SHIPPED.clear()  # one shipped model per worker at a time
            _SHIPPED[spec.token] = load_likelihood_model(cloudpickle.loads(spec.payload), **options)
        return _SHIPPED[spec.token]
    if not isinstance(spec, str):
        return load_likelihood_model(spec, **options)
    try:
        key = json.dumps([spec, options, model_fingerprint(spec)], sort_keys=True, default=str)
    except FingerprintError:
        return load_likelihood_model(spec, **options)
    if key not in _SCORERS:
        _SCORERS.clear()
        _SCORERS[key] = load_likelihood_model(spec, **options)
    return _SCORERS[key]


def bbq_task(spec: Any, options: dict[str, Any], items: Any, start: int, stop: int, answer_set: str,
             plan: dict[str, str] | None = None) -> BbqChunk:
    """One chunk on a worker, with the worker's own scorer (on the device ``plan`` gives this worker)."""
    if plan:
        from distributed import get_worker

        device = plan.get(get_worker().address)
        options = options if device is None else {**options, "device": device}
    return score_chunk(worker_scorer(spec, {**options, "progress": False}), items, start, stop, answer_set)


def run_local(scorer: Any, items: Any, todo: Sequence[tuple[int, int]], finished: Callable[[BbqChunk], Any], *,
              answer_set: str, stop: threading.Event) -> None:
    """Score the ranges ``todo`` in this process, one after another, until done or ``stop`` is set."""
    for a, b in todo:
        if stop.is_set():
            break
        finished(score_chunk(scorer, items, a, b, answer_set))


def run_dask(spec: Any, options: dict[str, Any], items: Any, todo: Sequence[tuple[int, int]],
             finished: Callable[[BbqChunk], Any], *, answer_set: str, scheduler: str | None, workers: int | None,
             connect_timeout: float, stop: threading.Event) -> dict[str, Any]:
    """Score the ranges ``todo`` on a cluster, handing each chunk to ``finished`` as it arrives; returns what the
    cluster cost before the first task (``workers``, ``start_seconds``, ``ship_seconds``, ``devices``). The
    cluster side is the NLI probe's (:func:`~embias_widgets.analysis.nli.dask_runner.run_chunk_tasks`); a task
    never asks a scheduler for a ``GPU`` resource."""
    return run_chunk_tasks(bbq_task, spec, options, items, todo, finished, args=(answer_set,), key="bbq-chunk",
                           scheduler=scheduler, workers=workers, connect_timeout=connect_timeout, stop=stop,
                           error=BbqRunError, gpu_resource=False)
