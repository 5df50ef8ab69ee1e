"""What a chunk costs where it runs.

- ``ChunkResult.cpu_seconds``: measured in the process that scores it, kept in its file. The Dask bench
  (``bench/bench_nli_dask.py``) adds these up per run to get the workers' CPU time from inside the tasks; a
  classifier that sleeps must show wall time and almost no CPU time, one that computes must show its CPU time.
- ``local_cluster``: its workers start with glibc's mmap threshold raised (``WORKER_ENVIRON``), unless the
  Dask config already sets it.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from embias_widgets.analysis.nli.chunks import ChunkResult, score_chunk
from embias_widgets.stimuli.nli_probes import user_probe


class _Sleeps:
    name = "sleeps"

    def predict(self, premises, hypotheses):
        time.sleep(0.3)
        return np.full((len(premises), 3), 1 / 3)


class _Computes:
    name = "computes"

    def predict(self, premises, hypotheses):
        c0 = time.process_time()
        x = 0
        while time.process_time() - c0 < 0.3:
            x += sum(range(1000))
        return np.full((len(premises), 3), 1 / 3)


def _source():
    return user_probe(["doctor", "nurse"], ["man", "woman"])


def test_a_sleeping_classifier_takes_wall_time_not_cpu_time() -> None:
    c = score_chunk(_Sleeps(), _source(), 0, 4, taus=(0.5,), top_k=2)
    assert c.seconds >= 0.3
    assert 0 <= c.cpu_seconds < 0.15


def test_a_computing_classifier_takes_cpu_time() -> None:
    c = score_chunk(_Computes(), _source(), 0, 4, taus=(0.5,), top_k=2)
    assert c.cpu_seconds >= 0.3
    assert c.cpu_seconds <= c.seconds * 4 + 0.05  # process CPU over at most a few threads of this process


def test_cpu_seconds_survive_the_chunk_file_and_older_files_read_as_zero(tmp_path) -> None:
    c = score_chunk(_Computes(), _source(), 0, 4, taus=(0.5,), top_k=2)
    path = tmp_path / "chunk.npz"
    c.save(path)
    assert ChunkResult.load(path).cpu_seconds == c.cpu_seconds
    with np.load(path) as z:  # a file written before cpu_seconds existed
        arrays = {k: z[k] for k in z.files if k != "cpu_seconds"}
    old = tmp_path / "old.npz"
    np.savez(old, **arrays)
    loaded = ChunkResult.load(old)
    assert loaded.cpu_seconds == 0.0
    assert loaded.seconds == c.seconds and loaded.stats.count.tolist() == c.stats.count.tolist()


def _worker_env(name: str) -> list[str | None]:
    from distributed import Client

    from embias_widgets.analysis.nli.dask_runner import local_cluster

    with local_cluster(1) as cluster, Client(cluster) as client:
        return list(client.run(os.environ.get, name).values())


def test_local_cluster_workers_start_with_the_mmap_threshold(monkeypatch) -> None:
    pytest.importorskip("distributed")
    from embias_widgets.analysis.nli.dask_runner import WORKER_ENVIRON

    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)  # the nanny writes it here too; restored after
    assert _worker_env("MALLOC_MMAP_THRESHOLD_") == [str(WORKER_ENVIRON["MALLOC_MMAP_THRESHOLD_"])] == ["33554432"]


def test_a_threshold_set_in_the_dask_config_is_kept(monkeypatch) -> None:
    dask = pytest.importorskip("dask")
    pytest.importorskip("distributed")
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 1 << 20}):
        assert _worker_env("MALLOC_MMAP_THRESHOLD_") == ["1048576"]
