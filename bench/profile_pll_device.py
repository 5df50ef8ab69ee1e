"""Where PLL's time goes on a device: Python's profile and torch's (CPU and CUDA) of one ``score_sentences`` run.

    python bench/profile_pll_device.py --vocab vocab.txt [--device cuda] [--dtype bfloat16] [--out DIR]

The model and sentences of ``bench_gpu_scale.py``'s PLL section (a random-weight BERT-base masked LM, 200
CrowS-Pairs-length sentences). After a warm-up on other sentences of the same lengths: the run's wall time, its
forward passes (batches), the number of distinct lengths, and two tables, ``cProfile``'s functions by own time
and ``torch.profiler``'s operators by CPU time (device synchronisations and copies included), written to
``--out`` as text as soon as each is made. ``--nli`` adds ``CrossEncoderNli.predict`` rates on probe pairs.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_gpu_scale as g


def _write(out: Path | None, name: str, text: str) -> None:
    print(text[-6000:], flush=True)
    if out is not None:
        (out / name).write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--pad-to", type=int, default=None, help="the scorer's pad_to (length buckets)")
    ap.add_argument("--tiny", action="store_true", help="a 1-layer 32-wide model (a check on the CPU)")
    ap.add_argument("--nli", action="store_true", help="also CrossEncoderNli.predict rates on probe pairs")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import torch

    from embias_widgets.models.language_models import MaskedLMScorer

    out = Path(args.out) if args.out else None
    if args.tiny:
        g.SIZES["base"].update(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64)
    probe = g._probe()
    tokenizer = g._tokenizer(args.vocab)
    model = g._model("mlm", "base", tokenizer)
    warm, timed = g._sentences(probe, args.sentences, seed=11), g._sentences(probe, args.sentences, seed=12)
    scorer = MaskedLMScorer(model, tokenizer, device=args.device, dtype=args.dtype, progress=False,
                            last_layer_rows=True, pad_to=args.pad_to)
    scorer.score_sentences(warm, "pll")

    def run() -> float:
        scorer._masked.clear()
        scorer._tokenized.clear()
        g._sync(args.device)
        start = time.perf_counter()
        scorer.score_sentences(timed, "pll")
        g._sync(args.device)
        return time.perf_counter() - start

    walls = [run() for _ in range(3)]
    passes = scorer.forward_passes
    run()
    lengths = {len(t.ids) for t in scorer.tokenize_all(timed)}
    _write(out, "summary.txt", f"{args.device} {args.dtype} pad_to={args.pad_to}: walls "
           f"{[round(w, 3) for w in walls]} s for "
           f"{len(timed)} sentences ({len(timed) / min(walls):.0f} sentences/s); forward passes per run "
           f"{scorer.forward_passes - passes}; distinct lengths {len(lengths)}; token budget {scorer.token_budget}")
    profile = cProfile.Profile()
    profile.enable()
    run()
    profile.disable()
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(35)
    pstats.Stats(profile, stream=text).sort_stats("cumtime").print_stats(35)
    _write(out, "cprofile.txt", text.getvalue())
    activities = [torch.profiler.ProfilerActivity.CPU]
    if args.device.startswith("cuda"):
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities) as prof:
        run()
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=40)
    if args.device.startswith("cuda"):
        table += "\n" + prof.key_averages().table(sort_by="cuda_time_total", row_limit=25)
    _write(out, "torch_profile.txt", table)
    if args.nli:

        n = 256 if args.tiny else 32768
        pairs_w, pairs_t = g._sample_pairs(probe, n, seed=1), g._sample_pairs(probe, n, seed=2)
        lines = []
        for size in ("base", "large"):
            nli_model = g._model("nli", size, tokenizer)
            for pad_to in (None, 8):
                r = g._nli_rate(nli_model, tokenizer, args.device, args.dtype, pairs_w, pairs_t, pad_to)
                lines.append(f"nli {size} {args.dtype} pad_to={pad_to}: {r['rate']:.0f} pairs/s, tokenising "
                             f"{r['tokenize_share']:.2f} of predict")
                print(lines[-1], flush=True)
        _write(out, "nli.txt", "\n".join(lines))


if __name__ == "__main__":
    main()
