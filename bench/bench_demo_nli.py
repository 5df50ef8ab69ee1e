"""What the bi-encoder demo NLI model buys: each distinct sentence encoded once.

    python bench/bench_demo_nli.py                 # table; --json for machine output
    python bench/bench_demo_nli.py --occupations 2 --templates 60   # quicker

Same process, same pairs (a slice of Dev et al.'s gender-occupation probe:
``--occupations`` premise words x 6 gendered words x ``--templates``
templates spread over the 1,968), one torch thread by default:

* ``bi-encoder, cached``: ``embias-demo-nli``'s ``predict`` (each distinct
  sentence through MiniLM once, then the head on every pair);
* ``bi-encoder, per slot``: the same model and head, but every premise and
  hypothesis slot encoded (no reuse): the plain baseline of a bi-encoder;
* ``cross-encoder``: a MiniLM-sized cross-encoder (``BertForSequenceClassification``
  with MiniLM's encoder weights and a 3-label head, through the project's
  ``CrossEncoderNli``): what a transformer NLI model of the same size costs,
  one pass of ``[CLS] premise [SEP] hypothesis [SEP]`` per pair.

Then the whole probe (1,912,896 pairs over 330,624 distinct sentences) is
extrapolated from the measured per-sentence encoder time and per-pair head
time, against the measured per-pair cross-encoder time. Medians of
``--repeat`` runs (the cache is cleared before each cached run).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--occupations", type=int, default=3)
    ap.add_argument("--templates", type=int, default=80)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli
    from embias_widgets.models.nli_classifiers.demo_nli import encoder_dir, load_demo_nli, pair_features, softmax
    from embias_widgets.stimuli.nli_probes import load_probe, templates

    torch.set_num_threads(args.threads)
    whole = load_probe("gender-occupation")
    chosen = templates()[:: max(1, len(templates()) // args.templates)][: args.templates]
    part = load_probe("gender-occupation", premise_words=whole.premise_words[: args.occupations], template_list=chosen)
    chunk = part.chunk(0, len(part))
    P, H = chunk.premises, chunk.hypotheses
    n_pairs, n_distinct = len(P), len(set(P) | set(H))

    demo = load_demo_nli()
    config = BertConfig.from_pretrained(encoder_dir())
    config.num_labels = 3
    config.id2label = {0: "entailment", 1: "neutral", 2: "contradiction"}
    config.label2id = {v: k for k, v in config.id2label.items()}
    cross_model = BertForSequenceClassification.from_pretrained(encoder_dir(), config=config).eval()
    cross = CrossEncoderNli(cross_model, demo.tokenizer, device="cpu", token_budget=8192)

    def cached():
        demo.clear_cache()
        demo.predict(P, H)

    def per_slot():
        u, v = demo._encode_new(list(P)), demo._encode_new(list(H))
        return softmax(demo.logits_from_features(pair_features(u, v)))

    def head_only():
        u, v = demo.encode(P), demo.encode(H)  # cached: what remains is lookup + head
        return softmax(demo.logits_from_features(pair_features(u, v)))

    def crossed():
        cross.predict(P, H)

    times = {}
    for name, fn in (("bi-encoder, cached", cached), ("bi-encoder, per slot", per_slot),
                     ("cross-encoder (MiniLM size)", crossed), ("head + cache lookups only", head_only)):
        runs = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - t0)
        times[name] = statistics.median(runs)
    agree = float(np.abs(per_slot() - demo.predict(P, H)).max())

    enc_per_sentence = (times["bi-encoder, cached"] - times["head + cache lookups only"]) / n_distinct
    head_per_pair = times["head + cache lookups only"] / n_pairs
    cross_per_pair = times["cross-encoder (MiniLM size)"] / n_pairs
    whole_distinct = (len(whole.premise_words) + len(whole.hypothesis_words)) * len(whole.templates)
    whole_bi = whole_distinct * enc_per_sentence + len(whole) * head_per_pair
    whole_cross = len(whole) * cross_per_pair
    out = {
        "pairs": n_pairs, "distinct_sentences": n_distinct, "threads": args.threads,
        "seconds": {k: round(v, 3) for k, v in times.items()},
        "pairs_per_s": {k: round(n_pairs / v, 1) for k, v in times.items() if "head" not in k},
        "speedup_cached_vs_per_slot": round(times["bi-encoder, per slot"] / times["bi-encoder, cached"], 2),
        "speedup_cached_vs_cross": round(times["cross-encoder (MiniLM size)"] / times["bi-encoder, cached"], 2),
        "max_abs_diff_cached_vs_per_slot": agree,
        "whole_probe": {"pairs": len(whole), "distinct_sentences": whole_distinct,
                        "bi_encoder_cached_min": round(whole_bi / 60, 1),
                        "cross_encoder_min": round(whole_cross / 60, 1),
                        "ratio": round(whole_cross / whole_bi, 1)},
    }
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{n_pairs:,} pairs over {n_distinct:,} distinct sentences, {args.threads} torch thread(s), "
          f"median of {args.repeat}")
    for k, v in times.items():
        rate = f"{n_pairs / v:9.0f} pairs/s" if "head" not in k else ""
        print(f"  {k:30s} {v:8.3f} s {rate}")
    print(f"  cached vs per slot: {out['speedup_cached_vs_per_slot']}x; cached vs cross-encoder: "
          f"{out['speedup_cached_vs_cross']}x; max |diff| cached vs per slot {agree:.1e}")
    w = out["whole_probe"]
    print(f"whole probe ({w['pairs']:,} pairs, {w['distinct_sentences']:,} distinct sentences), extrapolated: "
          f"bi-encoder {w['bi_encoder_cached_min']} min, cross-encoder {w['cross_encoder_min']} min ({w['ratio']}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
