"""Dask scaling of an NLI probe: 1 against 2 single-thread worker processes, wall time and CPU time.

    python bench/bench_nli.py --only dask                       # both models, table
    python bench/bench_nli.py --only dask --dask-model cross    # the fixed-work model only
    python bench/bench_nli_dask.py --dask-pairs 2048 --chunk-size 512 --dask-model cross   # a quick look

Two models, same probe slice (the first ``--dask-pairs`` pairs of gender-occupation-authors), same chunks:

* ``cross``: MiniLM-L6's encoder under a seeded random 3-way head (``nli_common.minilm_cross_encoder``),
  saved to a temporary folder and loaded BY PATH in each worker through the engine's per-process
  :func:`~embias_widgets.analysis.nli.engine.cached_model`: every pair is one transformer pass, so the work
  per pair is fixed and two workers should take half the time;
* ``demo``: ``embias-demo-nli``, a bi-encoder that encodes each distinct sentence once PER PROCESS. Two
  workers each encode the sentences their chunks need, and a sentence needed by chunks on both workers is
  encoded twice: the sentences each worker encoded (``n_encoded``, read in the workers) say how much.

Per run: wall seconds (workers warmed and the model loaded before the clock starts), and CPU seconds read
three ways that should agree: ``resource.getrusage(RUSAGE_SELF)`` run INSIDE each worker before and after
(``client.run``), ``psutil`` read from outside by pid, and the sum of each chunk's ``cpu_seconds``
(``time.process_time`` around the chunk, inside the task). The trustworthy speedup on a shared machine is the
CPU-time one: one worker's CPU seconds against the busiest of two workers' (what the wall ratio would be if
each worker had a core to itself). ``--sentence-counts`` adds, without any model, the distinct sentences
each worker would encode over larger slices for two chunkings (a counting classifier on the same cluster).
``--worker-env`` compares one worker started with Dask's own environment (``MALLOC_TRIM_THRESHOLD_``, which
switches off glibc's dynamic mmap threshold) and one of the engine's ``local_cluster`` (mmap threshold 32 MiB):
user and system CPU seconds and page faults, against the same chunks in process.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from typing import Any

from nli_common import DEMO, PROBE, demo_registered, minilm_cross_encoder, tiny_model_dir

#: Per process (each Dask worker its own): distinct sentences the counting classifier has seen.
SEEN: set[str] = set()


class CountingNli:
    """A classifier that does no inference and counts the distinct sentences it is given in this process
    (what a bi-encoder with a sentence cache would encode); it sleeps 0.2 ms per new sentence."""

    name, description = "counting", "constant (1/3, 1/3, 1/3); counts distinct sentences per process"

    def predict(self, premises: Any, hypotheses: Any) -> Any:
        import numpy as np

        new = set(premises) | set(hypotheses)
        new -= SEEN
        SEEN.update(new)
        time.sleep(2e-4 * len(new))  # a bi-encoder's cost is its new sentences: keep the scheduler's timing alike
        return np.full((len(premises), 3), 1 / 3)


def _worker_state(model: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Run INSIDE a worker: its pid, torch threads, own CPU seconds so far, sentences encoded so far."""
    import torch

    from embias_widgets.analysis.nli.engine import cached_model

    encoded = getattr(cached_model(model, options), "n_encoded", None) if isinstance(model, str) else len(SEEN)
    usage = resource.getrusage(resource.RUSAGE_SELF)  # after the (first call's) model load
    return {"pid": os.getpid(), "torch_threads": torch.get_num_threads(), "cpu_s": usage.ru_utime + usage.ru_stime,
            "user_s": usage.ru_utime, "sys_s": usage.ru_stime, "page_faults": usage.ru_minflt,
            "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "encoded": encoded,
            "malloc_env": {k: os.environ.get(k) for k in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")}}


def _psutil_cpu(pids: list[int]) -> dict[int, float]:
    import psutil

    return {pid: sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids}


def dask_run(n_workers: int, model: Any, options: dict[str, Any], limit: int, chunk: int,
             plain: bool = False) -> dict[str, Any]:
    """One probe run on the engine's :func:`local_cluster` of ``n_workers`` single-thread processes (``plain``:
    a LocalCluster with Dask's own worker environment), start-up and model load excluded."""
    from distributed import Client, LocalCluster

    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.analysis.nli.dask_runner import local_cluster

    if plain:
        os.environ.pop("MALLOC_MMAP_THRESHOLD_", None)  # a nanny made by local_cluster() left it here
    made = (LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
            if plain else local_cluster(n_workers))
    with made as cluster, Client(cluster) as client:
        before = client.run(_worker_state, model, options)  # also warms every worker: imports, model load
        pids = [s["pid"] for s in before.values()]
        ps_before = _psutil_cpu(pids)
        probe = NliProbe(PROBE, model, limit=limit, chunk_size=chunk, model_options=options)
        c0, t0 = time.process_time(), time.perf_counter()
        result = probe.run(scheduler=cluster.scheduler_address)
        seconds, client_cpu = time.perf_counter() - t0, time.process_time() - c0
        ps_after = _psutil_cpu(pids)
        after = client.run(_worker_state, model, options)
    if sorted(after) != sorted(before) or [s["pid"] for s in after.values()] != pids:
        raise RuntimeError("a Dask worker restarted during the run")
    cpu = {w: after[w]["cpu_s"] - before[w]["cpu_s"] for w in before}
    encoded = {w: (after[w]["encoded"] or 0) - (before[w]["encoded"] or 0) for w in before}
    return {
        "seconds": seconds, "result": result,
        "torch_threads_per_worker": sorted({s["torch_threads"] for s in before.values()}),
        "omp_num_threads_in_workers": sorted({str(s["omp_num_threads"]) for s in before.values()}),
        "worker_cpu_s_getrusage": sorted(cpu.values()),
        "worker_cpu_s_psutil": sorted(ps_after[p] - ps_before[p] for p in pids),
        "chunks_cpu_s_in_task": sum(c.cpu_seconds for c in result.chunks),
        "client_and_scheduler_cpu_s": client_cpu,
        "sentences_encoded_per_worker": sorted(encoded.values()) if any(encoded.values()) else None,
        "user_sys_s_page_faults": [[after[w][k] - before[w][k] for k in ("user_s", "sys_s", "page_faults")]
                                   for w in before],
        "malloc_env": next(iter(before.values()))["malloc_env"],
    }


def _compare(label: str, model: Any, options: dict[str, Any], limit: int, chunk: int,
             local: bool) -> dict[str, Any]:
    import numpy as np

    from embias_widgets.analysis.nli import NliProbe

    out: dict[str, Any] = {"model": label, "pairs": limit, "chunk_size": chunk, "chunks": -(-limit // chunk),
                           "cpu_count": os.cpu_count(), "load_avg_before": os.getloadavg()}
    scores = []
    if local:
        probe = NliProbe(PROBE, model, limit=limit, chunk_size=chunk, model_options=options)
        probe.model  # noqa: B018 - load outside the timing
        encoded0 = getattr(probe.model, "n_encoded", 0)
        c0, t0 = time.process_time(), time.perf_counter()
        res = probe.run()
        out["local"] = {"seconds": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
        if hasattr(probe.model, "n_encoded"):
            out["local"]["sentences_encoded"] = probe.model.n_encoded - encoded0
        scores.append(res.scores())
    runs = {n: dask_run(n, model, options, limit, chunk) for n in (1, 2)}
    for n, run in runs.items():
        scores.append(run.pop("result").scores())
        out[f"dask_{n}_worker{'s' if n > 1 else ''}"] = run
    one, two = runs[1], runs[2]
    cpu1, cpu2 = sum(one["worker_cpu_s_getrusage"]), two["worker_cpu_s_getrusage"]
    out["speedup_wall_2_vs_1"] = one["seconds"] / two["seconds"]
    # what 2 workers would do with a core each: one worker's CPU against the busier of the two
    out["speedup_cpu_time_2_vs_1"] = cpu1 / max(cpu2)
    out["work_2_vs_1"] = sum(cpu2) / cpu1  # CPU seconds of all the work: 1.0 when splitting adds nothing
    out["cores_used"] = {"dask_1_worker": cpu1 / one["seconds"], "dask_2_workers": sum(cpu2) / two["seconds"]}
    if one["sentences_encoded_per_worker"]:
        out["sentences_encoded_2_vs_1"] = sum(two["sentences_encoded_per_worker"]) / sum(
            one["sentences_encoded_per_worker"])
    ref = scores[0].to_dict()
    out["equal_scores"] = all(s == scores[0] for s in scores)
    out["max_abs_diff_scores"] = max(float(np.max(np.abs(np.asarray(s.to_dict()[lv][k]) - np.asarray(ref[lv][k]))))
                                     for s in scores for lv in ("pairs", "word_pairs") for k in ref[lv])
    out["load_avg_after"] = os.getloadavg()
    return out


def scheduler_cost(chunk: int, n_chunks: int = 50) -> dict[str, Any]:
    """What a chunk costs on Dask beyond the local engine: a classifier that does no inference, ``n_chunks``
    chunks in process and on one worker (the pairs are generated and reduced in both)."""
    from embias_widgets.analysis.nli import NliProbe

    limit = n_chunks * chunk
    t0 = time.perf_counter()
    NliProbe(PROBE, CountingNli(), limit=limit, chunk_size=chunk).run()
    local = time.perf_counter() - t0
    dask = dask_run(1, CountingNli(), {}, limit, chunk)["seconds"]
    return {"chunks": n_chunks, "local_s": local, "dask_1_worker_s": dask,
            "ms_per_chunk": 1000 * (dask - local) / n_chunks}


def worker_environment(folder: str, limit: int = 1024, chunk: int = 256) -> dict[str, Any]:
    """The cross-encoder on ``limit`` pairs: in process, on one worker with Dask's own environment
    (``MALLOC_TRIM_THRESHOLD_`` set, so glibc's mmap threshold stays at 128 KiB) and on one worker of the engine's
    :func:`local_cluster` (``MALLOC_MMAP_THRESHOLD_`` 32 MiB): user and system CPU seconds, page faults."""
    from embias_widgets.analysis.nli import NliProbe

    options = {"device": "cpu"}
    probe = NliProbe(PROBE, folder, limit=limit, chunk_size=chunk, model_options=options)
    probe.model  # noqa: B018
    u0 = resource.getrusage(resource.RUSAGE_SELF)
    probe.run()
    u1 = resource.getrusage(resource.RUSAGE_SELF)
    out: dict[str, Any] = {"pairs": limit, "in_process": [u1.ru_utime - u0.ru_utime, u1.ru_stime - u0.ru_stime,
                                                         u1.ru_minflt - u0.ru_minflt]}
    for name, plain in (("dask_default_env", True), ("local_cluster", False)):
        run = dask_run(1, folder, options, limit, chunk, plain=plain)
        out[name] = run["user_sys_s_page_faults"][0] + [run["malloc_env"]]
    return out


def sentence_counts(limits: list[int], chunks: list[int]) -> list[dict[str, Any]]:
    """Distinct sentences per worker of a bi-encoder, 1 vs 2 workers, per slice and chunk size (no model:
    :class:`CountingNli` on the same Dask engine)."""
    from embias_widgets.stimuli.nli_probes import load_probe

    probe = load_probe(PROBE)
    block = len(probe.hypothesis_words) * len(probe.templates)  # one premise word's pairs
    rows = []
    for limit in limits:
        for chunk in chunks:
            row: dict[str, Any] = {"pairs": limit, "chunk_size": chunk, "premise_word_blocks": limit / block}
            for n in (1, 2):
                row[f"workers_{n}"] = dask_run(n, CountingNli(), {}, limit, chunk)["sentences_encoded_per_worker"]
            row["sum_2_vs_1"] = sum(row["workers_2"]) / sum(row["workers_1"])
            rows.append(row)
    return rows


def bench_dask(limit: int, chunk: int, which: list[str], local: bool = True, counts: bool = False,
               env: bool = False) -> dict[str, Any]:
    """The sections of ``--only dask`` of ``bench_nli.py``."""
    import torch

    torch.set_num_threads(1)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        if "cross" in which:
            model, tok = minilm_cross_encoder()
            model.save_pretrained(folder)
            tok.save_pretrained(folder)
            if env:
                out["worker_environment (user s, sys s, page faults)"] = worker_environment(folder)
            out["cross"] = _compare("MiniLM-L6 cross-encoder, random 3-way head (loaded by path)", folder,
                                    {"device": "cpu"}, limit, chunk, local)
        if "demo" in which:
            spec, options = (DEMO, {}) if demo_registered() else (tiny_model_dir(), {"device": "cpu"})
            out["demo"] = _compare(spec, spec, options, limit, chunk, local)
    out["scheduler"] = scheduler_cost(chunk)
    if counts:
        out["sentence_counts"] = sentence_counts([limit, 8 * 11808], [chunk, 11808])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(ap)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    section = run_from_args(args)
    print(json.dumps(section, indent=1) if args.json else format_section(section))
    return 0


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--dask-pairs", type=int, default=16384)
    ap.add_argument("--chunk-size", type=int, default=2048)
    ap.add_argument("--dask-model", choices=("cross", "demo"), action="append",
                    help="cross: fixed work per pair; demo: the bi-encoder (default: both)")
    ap.add_argument("--no-dask-local", action="store_true", help="skip the in-process baseline")
    ap.add_argument("--worker-env", action="store_true",
                    help="CPU and page faults of one worker with Dask's environment and with the engine's")
    ap.add_argument("--sentence-counts", action="store_true",
                    help="distinct sentences per worker for two chunkings (no model)")


def run_from_args(args: argparse.Namespace) -> dict[str, Any]:
    return bench_dask(args.dask_pairs, args.chunk_size, args.dask_model or ["cross", "demo"],
                      local=not args.no_dask_local, counts=args.sentence_counts, env=args.worker_env)


def format_section(section: dict[str, Any]) -> str:
    lines = []
    for name, part in section.items():
        lines.append(f"-- {name}")
        rows = part if isinstance(part, list) else [part]
        for row in rows:
            for key, value in row.items():
                text = json.dumps(value) if isinstance(value, dict | list | tuple) else value
                lines.append(f"  {key}: {text}")
            lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    import bench_nli_dask  # the workers unpickle CountingNli and _worker_state by reference, from this module

    raise SystemExit(bench_nli_dask.main())
