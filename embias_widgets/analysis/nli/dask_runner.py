"""The Dask engine of an NLI probe: chunks as tasks on a ``dask.distributed`` cluster.

``scheduler="tcp://host:8786"`` uses a running scheduler, ``workers=N`` a ``LocalCluster`` of N
single-thread processes (:func:`local_cluster`). Each task gets an index range; a worker loads the model
once (the per-process cache of :func:`~.engine.cached_model`, keyed by the model's content fingerprint and
options) and returns the chunk's statistics; the client reduces them in chunk order, so the result equals
the local engine's exactly (same chunks, same model, same order of float sums) for a model whose
probabilities do not depend on what else is in a batch (a cross-encoder: batches of equal length, no
padding). A bi-encoder's sentence cache is per process, so which sentences share a padded encoder batch
depends on which worker ran what: the demo model's scores then agree to about 1e-10, not bit for bit.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ...stimuli.nli_probes import PairSource
from .chunks import ChunkResult, score_chunk
from .engine import cached_model
from .resume import NliRunError

#: Set in each worker process of a :func:`local_cluster` before it starts (glibc reads it at start-up). Dask sets
#: ``MALLOC_TRIM_THRESHOLD_`` there (memory goes back to the OS sooner), which also switches off glibc's dynamic
#: mmap threshold (``mallopt(3)``): every buffer over 128 KiB, i.e. every activation tensor, is then a fresh
#: ``mmap``, page-faulted in and unmapped again. Measured on a MiniLM-shaped cross-encoder (1,024 pairs, one
#: worker): 3.9x the page faults and 0.8 s more system CPU than in process; a 32 MiB threshold (glibc's
#: largest) brings both back to the in-process figures. ``bench/bench_nli_dask.py`` measures it.
WORKER_ENVIRON = {"MALLOC_MMAP_THRESHOLD_": 1 << 25}


#: Imported once by the fork server that starts :func:`local_cluster`'s workers (see :func:`worker_start_method`).
WORKER_PRELOAD = ("distributed", "numpy", "pandas", "scipy", "torch", "transformers",
                  "transformers.models.bert.modeling_bert", "transformers.models.roberta.modeling_roberta",
                  "transformers.models.albert.modeling_albert", "embias_widgets.analysis.nli.dask_runner",
                  "embias_widgets.models.nli_classifiers")
#: One BLAS / OpenMP thread per worker process (set in the fork server's environment before it imports torch).
_ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def worker_start_method() -> str:
    """How :func:`local_cluster` starts worker processes: ``"forkserver"`` where the platform has it, else Dask's
    default (``"spawn"``).

    A spawned worker imports torch, transformers, Dask and this package itself: about 6 s of CPU each
    (measured on this project's 2-core CI machine), so eight workers on two cores took minutes to start. A
    fork server imports :data:`WORKER_PRELOAD` once, in a process started with :data:`WORKER_ENVIRON` and one
    thread per BLAS/OpenMP pool (glibc and libgomp read their settings at process start), and each worker is a
    fork of it: its start costs a fork, not the imports. The fork server is started with the first cluster of
    a process and serves later ones."""
    import dask

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return str(dask.config.get("distributed.worker.multiprocessing-method"))
    from multiprocessing import forkserver

    from distributed.utils import get_mp_context

    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        context = get_mp_context()  # distributed sets its own preload list once; ours replaces it
    context.set_forkserver_preload(list(WORKER_PRELOAD))
    environ = {k: str(v) for k, v in {**WORKER_ENVIRON, **_ONE_THREAD}.items() if k not in os.environ}
    os.environ.update(environ)  # the fork server inherits this process's environment as it starts
    try:
        forkserver.ensure_running()
    finally:
        for key in environ:
            os.environ.pop(key, None)
    return "forkserver"


def local_cluster(n_workers: int) -> Any:
    """A ``LocalCluster`` of ``n_workers`` single-thread worker processes, each started with
    :data:`WORKER_ENVIRON` (unless Dask's ``distributed.nanny.pre-spawn-environ`` already sets the variable),
    forked from a fork server that has imported torch and this package once (:func:`worker_start_method`)."""
    import dask
    from distributed import LocalCluster

    preset = dask.config.get("distributed.nanny.pre-spawn-environ", default=None) or {}
    extra: dict[str, Any] = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()
                             if k not in preset}
    extra["distributed.worker.multiprocessing-method"] = worker_start_method()
    with dask.config.set(extra):  # read by each nanny as it is made, inside LocalCluster(...)
        return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)


def check_address(address: str) -> str:
    """A scheduler address ``[scheme://]host:port`` (port a number), else NliRunError naming the form."""
    if not isinstance(address, str) or not re.fullmatch(r"(?:[a-z]+://)?[^\s/:]+(?::\d{1,5})?", address.strip()):
        raise NliRunError(f"scheduler address {address!r} is not of the form tcp://host:8786")
    return address.strip()


def dask_task(spec: Any, options: dict[str, Any], source: PairSource, start: int, stop: int,
              taus: Sequence[float], top_k: int, per_pair: bool) -> ChunkResult:
    """One chunk on a worker, with the worker's cached model."""
    return score_chunk(cached_model(spec, options), source, start, stop, taus=taus, top_k=top_k, per_pair=per_pair)


def _connect(address: str, connect_timeout: float) -> Any:
    from distributed import Client

    try:
        return Client(check_address(address), timeout=f"{connect_timeout}s")
    except NliRunError:
        raise
    except Exception as err:  # refused, timed out, or something that is not a Dask scheduler answered
        raise NliRunError(f"no Dask scheduler answers at {address} within {connect_timeout:g} s "
                          f"({type(err).__name__}: {str(err)[:120]}); start one (dask scheduler) or use "
                          "--workers N for a local cluster") from None


def run_dask(spec: Any, options: dict[str, Any], source: PairSource, todo: Sequence[tuple[int, int]],
             finished: Callable[[ChunkResult], Any], *, taus: Sequence[float], top_k: int, per_pair: bool,
             scheduler: str | None, workers: int | None, connect_timeout: float, stop: threading.Event) -> None:
    """Score the ranges ``todo`` on a cluster, passing each chunk to ``finished`` as it arrives."""
    try:
        from distributed import as_completed
    except ImportError as err:  # pragma: no cover - the scale extra is part of test
        raise NliRunError("the Dask engine needs `distributed`: pip install 'embias-widgets[scale]'") from err
    cluster = None
    if scheduler is None:
        n = int(workers or 1)
        if n < 1:
            raise ValueError(f"`workers` must be >= 1, got {workers}")
        cluster = local_cluster(n)
        address = cluster.scheduler_address
    else:
        address = scheduler
    try:
        client = _connect(address, connect_timeout)
        try:
            if not isinstance(spec, str):  # an object: ship it once to every worker
                spec = client.scatter(spec, broadcast=True)
            shared = client.scatter(source, broadcast=True)  # sent once, not with every task
            futures = [client.submit(dask_task, spec, options, shared, a, b, taus, top_k, per_pair,
                                     key=f"nli-chunk-{a}-{b}-{id(todo)}", pure=False)
                       for a, b in todo]
            for future in as_completed(futures):
                finished(future.result())
                if stop.is_set():
                    client.cancel(futures)
                    break
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
