"""Dask workers on GPUs and what a worker costs (issue 29, section 3), tested on the CPU.

``device_plan`` spreads CUDA workers over the visible GPUs (one per GPU when the numbers agree, each its own
``cuda:k``; every worker ``cuda:0`` where each sees only its own GPU: dask-cuda, or a scheduler's workers
started with ``CUDA_VISIBLE_DEVICES``); CUDA without a GPU is refused with one clear error. A Dask run's chunks
name the process that scored them and its warm-up, and the result's notes state the cluster's costs.
"""

from __future__ import annotations

import pytest

from embias_widgets.analysis.nli import NliProbe, dask_runner
from embias_widgets.analysis.nli.chunks import ChunkResult, score_chunk, warm_up, worker_costs
from embias_widgets.analysis.nli.dask_runner import ShippedModel, cluster_note, device_plan, worker_model
from embias_widgets.analysis.nli.resume import NliRunError
from embias_widgets.stimuli.nli_probes import user_probe

WORKERS = ["tcp://10.0.0.2:4000", "tcp://10.0.0.1:4000", "tcp://10.0.0.1:3999", "tcp://10.0.0.3:1"]


def test_cuda_workers_are_spread_over_the_visible_gpus_one_per_gpu() -> None:
    plan = device_plan(WORKERS, "cuda", 4)
    assert sorted(plan.values()) == ["cuda:0", "cuda:1", "cuda:2", "cuda:3"]
    assert plan == {a: f"cuda:{i}" for i, a in enumerate(sorted(WORKERS))}  # address order: stable
    assert sorted(device_plan(WORKERS, "cuda:1", 2).values()) == ["cuda:0", "cuda:0", "cuda:1", "cuda:1"]
    assert set(device_plan(WORKERS, "cuda", 0, own_gpu=True).values()) == {"cuda:0"}  # each sees its own


def test_cpu_runs_have_no_plan_and_cuda_without_a_gpu_is_refused() -> None:
    assert device_plan(WORKERS, "cpu", 8) == {} and device_plan(WORKERS, None, 8) == {}
    with pytest.raises(NliRunError, match="torch sees no CUDA GPU here: use --device cpu"):
        device_plan(WORKERS, "cuda", 0)
    with pytest.raises(NliRunError, match="no CUDA GPU"):
        NliProbe(user_probe(["nurse"], ["man"]), "embias-demo-nli", limit=4,
                 model_options={"device": "cuda"}).run(workers=1)


class _Placed:
    name, device = "placed", "cpu"

    def __init__(self, device: str = "cpu") -> None:
        self.device = device

    def to_device(self, device: str) -> _Placed:
        return _Placed(device)

    def predict(self, premises, hypotheses):  # pragma: no cover - an NLI classifier's protocol
        raise AssertionError("not scored here")


def test_a_worker_moves_a_classifier_object_to_its_planned_device_once() -> None:
    model = _Placed()
    moved = worker_model(model, {}, "cuda:1")
    assert moved.device == "cuda:1" and worker_model(model, {}, "cuda:1") is moved
    assert worker_model(model, {}, None) is model and worker_model(model, {}, "cpu") is model


def test_a_shipped_model_is_unpickled_once_per_worker_and_never_mistaken_for_another(monkeypatch) -> None:
    """A classifier object travels as its pickle (ShippedModel); a worker unpickles each shipment once, places
    it once per device, keeps two shipments at most, and tells shipments apart by their token, not by id."""
    monkeypatch.setattr(dask_runner, "_SHIPPED", {})
    first, second, third = (ShippedModel(_Placed()) for _ in range(3))
    assert first.token != second.token and "MB" in repr(first)
    got = worker_model(first, {}, None)
    assert isinstance(got, _Placed) and worker_model(first, {}, None) is got  # unpickled once
    moved = worker_model(first, {}, "cuda:1")
    assert moved.device == "cuda:1" and worker_model(first, {}, "cuda:1") is moved
    other = worker_model(second, {}, "cuda:1")
    assert other is not moved and other.device == "cuda:1"  # another shipment: its own model
    worker_model(third, {}, None)
    assert list(dask_runner._SHIPPED) == [second.token, third.token]  # the oldest went
    assert worker_model(first, {}, None) is not got  # shipped again: unpickled again, not the old object


class _Counts:
    name = "counts"

    def __init__(self) -> None:
        self.calls = 0

    def predict(self, premises, hypotheses):
        import numpy as np

        self.calls += 1
        return np.full((len(premises), 3), 1 / 3)


def test_warm_up_runs_once_per_classifier_and_costs_are_summed_per_worker() -> None:
    clf, source = _Counts(), user_probe(["nurse", "pilot"], ["man"])
    assert warm_up(clf, source) > 0 and clf.calls == 1
    assert warm_up(clf, source) == 0.0 and clf.calls == 1
    chunks = [score_chunk(clf, source, a, a + 100, taus=(0.5,), top_k=2) for a in (0, 100, 200)]
    chunks[0].warmup_seconds = 0.5
    assert all(c.worker == chunks[0].worker and c.worker.endswith(f":{__import__('os').getpid()}") for c in chunks)
    row = worker_costs(chunks)[chunks[0].worker]
    assert row["chunks"] == 3 and row["pairs"] == 300 and row["warmup_seconds"] == 0.5
    assert row["seconds"] == pytest.approx(sum(c.seconds for c in chunks))
    note = cluster_note({"workers": 1, "start_seconds": 1.25, "ship_seconds": 0.5, "devices": {"a": "cuda:0"}},
                        chunks)
    assert note.startswith("Dask: 1 workers on cuda:0; cluster start 1.2 s") and "0.50-0.50 s" in note


def test_worker_and_warm_up_survive_the_chunk_file(tmp_path) -> None:
    c = score_chunk(_Counts(), user_probe(["nurse"], ["man"]), 0, 10, taus=(0.5,), top_k=2)
    c.warmup_seconds = 0.25
    c.save(tmp_path / "c.npz")
    back = ChunkResult.load(tmp_path / "c.npz")
    assert (back.worker, back.warmup_seconds) == (c.worker, 0.25)


def test_workers_that_see_every_gpu_are_each_set_to_their_own(monkeypatch) -> None:
    """Without dask-cuda a local cluster's workers see every GPU; a report's sections load models with
    device="cuda", so each worker's current CUDA device is set to its planned GPU (cuda:0, cuda:1 in address
    order), not left at every worker's cuda:0."""
    import torch

    class Worker:
        def __init__(self, address: str) -> None:
            self.address = address

    class Client:
        def scheduler_info(self):
            return {"workers": {a: {} for a in WORKERS}}

        def run(self, fn, *args):
            return {a: fn(*args, dask_worker=Worker(a)) for a in WORKERS}

    chosen: list[str] = []
    monkeypatch.setattr(dask_runner, "visible_gpus", lambda: 2)
    monkeypatch.setattr(torch.cuda, "set_device", chosen.append)
    plan = dask_runner.spread_gpus(Client())
    assert plan == device_plan(WORKERS, "cuda", 2) and sorted(set(plan.values())) == ["cuda:0", "cuda:1"]
    assert sorted(chosen) == ["cuda:0", "cuda:0", "cuda:1", "cuda:1"]
    monkeypatch.setattr(dask_runner, "visible_gpus", lambda: 0)
    with pytest.raises(NliRunError, match="no CUDA GPU"):
        dask_runner.spread_gpus(Client())
