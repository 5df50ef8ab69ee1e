"""Half precision against float32 on the embedded models, in this process: how far bfloat16 and float16
move sentence vectors (all-MiniLM-L6-v2, cosine distance) and per-token log-probabilities (the demo masked
LM, PLL), and how long each takes relative to float32. The bounds stated in
``embias_widgets.models.runtime.DTYPE_TOLERANCE`` come from these figures (with room to spare).

    python bench/bench_dtype.py [--device cpu|cuda] [--sentences N]

Prints, per dtype: the largest and the median difference from float32, and time / float32's time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

SENTENCES = [
    "The nurse said that she would be late for the meeting.",
    "The engineer fixed the bridge before the storm arrived.",
    "My neighbour is a quiet man who repairs old clocks.",
    "She is an accomplished violinist and a patient teacher.",
    "Poor people are often blamed for their own hardship.",
    "The children played in the garden until it was dark.",
    "He was afraid of the dog that barked all night long.",
    "They moved to the city to look for better paid work.",
]


def _vectors(dtype: str | None, device: str, sentences: list[str]) -> tuple[np.ndarray, float]:
    from embias_widgets.models import load_model
    from embias_widgets.models.sentence_encoders import clear_encoding_cache

    clear_encoding_cache()
    encoder = load_model("all-MiniLM-L6-v2", device=device, dtype=dtype)
    start = time.perf_counter()
    vectors = encoder.encode(sentences).vectors
    return vectors, time.perf_counter() - start


def _token_scores(dtype: str | None, device: str, sentences: list[str]) -> tuple[np.ndarray, float]:
    from embias_widgets.models.language_models import load_likelihood_model

    scorer = load_likelihood_model("embias-demo-mlm", device=device, dtype=dtype, progress=False)
    start = time.perf_counter()
    scores = scorer.score_sentences(sentences, "pll")
    took = time.perf_counter() - start
    return np.concatenate([s.log_probs[s.counted] for s in scores]), took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--sentences", type=int, default=len(SENTENCES))
    args = parser.parse_args()
    sentences = (SENTENCES * (1 + args.sentences // len(SENTENCES)))[: args.sentences]
    sentences = [f"{s} ({i})" for i, s in enumerate(sentences)]
    base_v, base_vt = _vectors(None, args.device, sentences)
    base_s, base_st = _token_scores(None, args.device, sentences)
    print(f"float32: vectors {base_vt:.2f}s, PLL {base_st:.2f}s ({len(base_s)} tokens)")
    for dtype in ("bfloat16", "float16"):
        v, vt = _vectors(dtype, args.device, sentences)
        cosine = 1 - np.sum(v * base_v, axis=1) / np.linalg.norm(v, axis=1) / np.linalg.norm(base_v, axis=1)
        s, st = _token_scores(dtype, args.device, sentences)
        diff = np.abs(s - base_s)
        print(f"{dtype}: vectors cosine distance max {cosine.max():.2e} median {np.median(cosine):.2e}, "
              f"time x{vt / base_vt:.2f}; PLL per token |diff| max {diff.max():.2e} median {np.median(diff):.2e}, "
              f"time x{st / base_st:.2f}")


if __name__ == "__main__":
    main()
