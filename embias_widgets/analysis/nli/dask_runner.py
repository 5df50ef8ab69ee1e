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
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...stimuli.nli_probes import PairSource
from .chunks import ChunkResult, forget_warm, score_chunk, warm_up, worker_costs
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


def gpu_cluster(n_workers: int) -> tuple[Any, bool]:
    """``(cluster, own_gpu)`` for GPU workers: dask-cuda's ``LocalCUDACluster`` where it is installed (each
    worker sees one GPU through its own ``CUDA_VISIBLE_DEVICES``: ``own_gpu`` True), else
    :func:`local_cluster`, whose workers see every GPU (:func:`device_plan` spreads them)."""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        return local_cluster(n_workers), False
    return LocalCUDACluster(n_workers=n_workers, threads_per_worker=1, dashboard_address=None), True


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
              taus: Sequence[float], top_k: int, per_pair: bool, plan: dict[str, str] | None = None) -> ChunkResult:
    """One chunk on a worker, with the worker's cached model (on the device ``plan`` gives this worker);
    the worker's first chunk also reports the model's fetch and first-use checks as ``warmup_seconds``."""
    t0 = time.perf_counter()
    device = _my_device(plan)
    model = worker_model(spec, options if device is None else {**options, "device": device}, device)
    warmup = warm_up(model, source)
    c = score_chunk(model, source, start, stop, taus=taus, top_k=top_k, per_pair=per_pair)
    c.warmup_seconds = (time.perf_counter() - t0 - c.seconds) if warmup else 0.0
    return c


def _my_device(plan: dict[str, str] | None) -> str | None:
    if not plan:
        return None
    from distributed import get_worker

    return plan.get(get_worker().address)


class ShippedModel:
    """A classifier object pickled once on the client, shipped to the workers as bytes.

    Scattered as the object itself, every copy (the client's to the first worker, then worker to worker as
    Dask replicates it) pickled and unpickled the torch model: 19.0 s to reach 16 workers on a lent 16-core
    machine for a MiniLM-sized cross-encoder (92 MB), a third of the run; here 2.7-5.7 s for 8 workers against
    0.8-1.1 s as bytes (``bench/bench_gpu_scale.py``, ``bench/bench_scale.py``). Each worker unpickles it once
    (:func:`worker_model`), under ``token``: a random name per shipment, so a worker in a long-lived cluster
    never takes one run's model for another's (an object's ``id`` can be reused once it is freed)."""

    def __init__(self, spec: Any) -> None:
        import uuid

        import cloudpickle

        self.token = uuid.uuid4().hex
        self.payload = cloudpickle.dumps(spec)

    def __repr__(self) -> str:
        return f"ShippedModel({self.token[:8]}, {len(self.payload) / 1e6:.0f} MB)"


def worker_model(spec: Any, options: dict[str, Any], device: str | None) -> Any:
    """The classifier of ``spec`` in this process, placed on ``device`` when one is given: a name is loaded with
    ``device=`` (:func:`~.engine.cached_model`), a :class:`ShippedModel` unpickled once, an object with a
    ``to_device`` method moved once."""
    shipped = isinstance(spec, ShippedModel)
    model = _unpacked(spec)[None] if shipped else cached_model(spec, options)
    if device is None or isinstance(spec, str) or getattr(model, "device", device) == device:
        return model
    mover = getattr(model, "to_device", None)
    if mover is None:
        return model
    # a shipment's placements live with it; an object's under its id, the entry holding the object (so the id
    # is not reused while the entry lives)
    placed = _unpacked(spec) if shipped else _PLACED.setdefault(id(model), {None: model})
    if device not in placed:
        placed[device] = mover(device)
    return placed[device]


def _unpacked(shipment: ShippedModel) -> dict[str | None, Any]:
    """The shipment's entry in this worker: ``None`` -> the model as shipped (unpickled on first use), and each
    device it was placed on; the oldest shipment goes when :data:`KEEP_SHIPPED` are kept."""
    if shipment.token not in _SHIPPED:
        import cloudpickle

        while len(_SHIPPED) >= KEEP_SHIPPED:
            for gone in _SHIPPED.pop(next(iter(_SHIPPED))).values():
                forget_warm(gone)
        _SHIPPED[shipment.token] = {None: cloudpickle.loads(shipment.payload)}
    return _SHIPPED[shipment.token]


#: Models of shipments a worker keeps, by token; each maps a device (None: as shipped) to the model there.
_SHIPPED: dict[str, dict[str | None, Any]] = {}
KEEP_SHIPPED = 2
#: An object passed in process (tests, the local engine): the object itself and its moved copies, by id.
_PLACED: dict[int, dict[str | None, Any]] = {}


def device_plan(addresses: Sequence[str], device: str | None, gpus: int, *, own_gpu: bool = False
                ) -> dict[str, str]:
    """Worker address -> the device its model goes to.

    ``device`` other than CUDA: none (``{}``; the options' device holds). ``"cuda"`` (or ``"cuda:k"``): the
    workers in address order over the ``gpus`` GPUs this process sees, ``cuda:0``, ``cuda:1``, ... (round
    robin: one worker per GPU when their numbers agree); ``own_gpu`` (dask-cuda's ``LocalCUDACluster``, or
    workers started with their own ``CUDA_VISIBLE_DEVICES``): every worker's first visible GPU, ``cuda:0``.
    Raises :class:`NliRunError` for CUDA without a GPU."""
    if device is None or not str(device).startswith("cuda"):
        return {}
    if own_gpu:
        return dict.fromkeys(addresses, "cuda:0")
    if gpus < 1:
        raise NliRunError(f"device {device!r} was asked for, but torch sees no CUDA GPU here: use --device cpu, or "
                          "run on a machine with a GPU")
    return {address: f"cuda:{i % gpus}" for i, address in enumerate(sorted(addresses))}


def spread_gpus(client: Any) -> dict[str, str]:
    """On a local cluster whose workers each see every GPU (no dask-cuda): set each worker's current CUDA device
    to the one :func:`device_plan` gives it, so a model a task loads with ``device="cuda"`` (a report's
    sections) goes to that worker's own GPU instead of every worker's ``cuda:0``. Returns the plan."""
    plan = device_plan(sorted(client.scheduler_info().get("workers", {})), "cuda", visible_gpus())
    client.run(_use_planned_gpu, plan)
    return plan


def _use_planned_gpu(plan: dict[str, str], dask_worker: Any = None) -> str | None:
    """In a worker (``client.run`` passes ``dask_worker``): ``torch.cuda.set_device`` to its planned GPU."""
    device = plan.get(dask_worker.address) if dask_worker is not None else None
    if device is not None:
        import torch

        torch.cuda.set_device(device)
    return device


def visible_gpus() -> int:
    """How many CUDA GPUs torch sees in this process (0 without torch's CUDA)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        return 0
    return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0


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
             scheduler: str | None, workers: int | None, connect_timeout: float, stop: threading.Event
             ) -> dict[str, Any]:
    """Score the ranges ``todo`` on a cluster, passing each chunk to ``finished`` as it arrives; returns what
    the cluster cost before the first task: ``workers``, ``start_seconds`` (a local cluster's start),
    ``ship_seconds`` (the model object and the pair source sent once to every worker) and ``devices``.

    With a CUDA device (``model_options={"device": "cuda"}`` or a classifier object on CUDA), a local cluster has
    one worker per visible GPU unless ``workers`` says otherwise, each placing the model on its own GPU
    (:func:`device_plan`; dask-cuda's ``LocalCUDACluster`` when it is installed); on a ``scheduler`` whose
    workers declare a ``GPU`` resource, each task asks for one."""
    return run_chunk_tasks(dask_task, spec, options, source, todo, finished, args=(taus, top_k, per_pair),
                           key="nli-chunk", scheduler=scheduler, workers=workers, connect_timeout=connect_timeout,
                           stop=stop)


def run_chunk_tasks(task: Callable[..., Any], spec: Any, options: dict[str, Any], shared: Any,
                    todo: Sequence[tuple[int, int]], finished: Callable[[Any], Any], *, args: Sequence[Any] = (),
                    key: str, scheduler: str | None, workers: int | None, connect_timeout: float,
                    stop: threading.Event, error: type[ValueError] = NliRunError, gpu_resource: bool = True
                    ) -> dict[str, Any]:
    """Run ``task(spec, options, shared, start, stop, *args, plan)`` for each range of ``todo`` on a cluster
    (a running ``scheduler``, else a local one of ``workers`` processes, or one per GPU for a CUDA device), and
    pass each chunk to ``finished`` as it arrives, until done or ``stop`` is set (the rest are cancelled).

    A model object is pickled once and shipped as bytes (:class:`ShippedModel`) and ``shared`` (the items) is
    sent once to every worker, not with each task; ``plan`` maps each worker to its GPU (:func:`device_plan`).
    With ``gpu_resource``, on a scheduler whose workers declare a ``GPU`` resource each CUDA task asks for one.
    Returns what the cluster cost before the first task (``workers``, ``start_seconds``, ``ship_seconds``,
    ``devices``); a cluster that cannot be reached or used raises ``error`` naming the fix. The engine of both
    the NLI probe and the BBQ scorer."""
    try:
        from distributed import as_completed
    except ImportError as err:  # pragma: no cover - the scale extra is part of test
        raise error("the Dask engine needs `distributed`: pip install 'embias-widgets[scale]'") from err
    device = options.get("device") if isinstance(spec, str) else getattr(spec, "device", options.get("device"))
    cuda = device is not None and str(device).startswith("cuda")
    gpus = visible_gpus() if cuda and scheduler is None else 0
    try:
        if cuda and scheduler is None and gpus < 1:
            device_plan(["-"], device, 0)  # raises: no GPU
    except NliRunError as err:
        raise error(str(err)) from None
    cluster, own_gpu, t0 = None, False, time.perf_counter()
    if scheduler is None:
        n = int(workers or (gpus if cuda else 1))
        if n < 1:
            raise ValueError(f"`workers` must be >= 1, got {workers}")
        cluster, own_gpu = gpu_cluster(n) if cuda else (local_cluster(n), False)
        address = cluster.scheduler_address
    else:
        address = scheduler
    cost: dict[str, Any] = {"start_seconds": time.perf_counter() - t0 if cluster is not None else 0.0}
    try:
        try:
            client = _connect(address, connect_timeout)
        except NliRunError as err:
            raise error(str(err)) from None
        try:
            infos = client.scheduler_info().get("workers", {})
            declared = any("GPU" in (w.get("resources") or {}) for w in infos.values())
            resources = {"GPU": 1} if gpu_resource and cuda and declared else None
            plan = device_plan(list(infos), device, gpus, own_gpu=own_gpu or (cuda and scheduler is not None))
            t1 = time.perf_counter()
            if not isinstance(spec, str):  # an object: pickled once, its bytes sent to every worker (hash=False:
                spec = client.scatter(ShippedModel(spec), broadcast=True, hash=False)  # no pickling to name it)
            shared = client.scatter(shared, broadcast=True, hash=False)  # sent once, not with every task
            cost.update(workers=len(infos), ship_seconds=time.perf_counter() - t1, devices=plan)
            futures = [client.submit(task, spec, options, shared, a, b, *args, plan, key=f"{key}-{a}-{b}-{id(todo)}",
                                     pure=False, resources=resources) for a, b in todo]
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
    return cost


def cluster_note(cost: dict[str, Any], chunks: Sequence[ChunkResult]) -> str:
    """One line for the result's notes: what the cluster cost besides scoring (:func:`run_dask`'s ``cost``) and
    each worker's warm-up before its first chunk (:attr:`ChunkResult.warmup_seconds`)."""
    per = worker_costs([c for c in chunks if c.worker])
    devices = sorted(set(cost.get("devices", {}).values()))
    where = f" on {', '.join(devices)}" if devices else ""
    text = (f"Dask: {cost.get('workers', len(per))} workers{where}; "
            f"cluster start {cost.get('start_seconds', 0):.1f} s; model and pairs shipped once to every worker in "
            f"{cost.get('ship_seconds', 0):.2f} s")
    if per:
        warm = [row["warmup_seconds"] for row in per.values()]
        cpu = sum(row["cpu_seconds"] for row in per.values())
        text += (f"; before its first chunk a worker spent {min(warm):.2f}-{max(warm):.2f} s (model fetched, "
                 f"first-use checks); scoring took {cpu:.1f} s of worker CPU in {len(per)} processes")
    return text
