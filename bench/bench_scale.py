"""The pipeline's ceilings with a model that costs nothing, and Dask's scaling: one run prints all.

    python bench/bench_scale.py                 # everything (about 3-4 minutes on an idle 2-core machine)
    python bench/bench_scale.py --only nli,pll  # nli | pll | dask
    python bench/bench_scale.py --json

Every figure is a ratio against a baseline timed in the same process (one torch thread), after a warm-up.

1. **NLI pipeline ceiling**: ``NliProbe("gender-occupation", model).run()`` with a 1-layer, 16-wide BERT
   sequence classifier over MiniLM's 30,522-entry vocabulary (``nli_common.free_model``), so what is timed is
   the pipeline: pairs, tokens, batches, reduction. Ours: the template probe's chunks as indices into sentence
   parts, each part tokenised once, pair ids assembled by a vectorised gather (``predict_parts``). Baseline:
   the same probe through pair objects and the tokenizer on every pair (the earlier path, which a source
   without ``pair_parts`` still takes). Both scores must be bit-identical (checked on the baseline's pairs). Also: the
   model's forward passes alone on the same batches (what the pipeline cannot beat with this model).
2. **PLL ceiling**: ``MaskedLMScorer.score_sentences`` (PLL, Salazar et al. 2020) of ``--sentences`` CrowS-Pairs
   sentences (Nangia et al. 2020) with the same 1-layer, 16-wide BERT as a masked LM. Baseline: four parts of the
   earlier path (one tokenizer call per sentence, each masked copy's row converted from Python and its
   sentence found again by ``torch.unique``, the vocabulary head without row tiles, with its maximum and ``exp`` out
   of place, and the garbage collector running); the rest of today's path is in both, so the ratio understates the
   change. Per-token log-probabilities: the largest difference. Also: the share of the exact vocabulary head (``log
   softmax`` over 30,522 entries per masked token, :mod:`~embias_widgets.models.language_models.vocab_blocks`), its
   cost per logit, the run without it (the pipeline's own ceiling), and its floor: the ``exp`` of every logit alone,
   timed on a cache-resident block. With this model the head is not free: each masked token costs 30,522 logits of 16
   multiply-adds and an ``exp``, about 461,000 logits a sentence.
3. **Dask scaling**: ``NliProbe(...).run(workers=N)`` for N = 1, 2 with a MiniLM-shaped cross-encoder object
   (random 3-way head; ``nli_common.minilm_cross_encoder``) on the first ``--dask-pairs`` pairs: wall time
   ratio, and per worker (from the result's chunks) its warm-up before the first chunk beyond imports (model
   fetched, first-use checks), the cluster's start and the model shipped once per worker.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from nli_common import ROOT, free_model, load_avg, minilm_cross_encoder  # sets sys.path and HF_HUB_OFFLINE

from embias_widgets.models.language_models.copy_plan import CopyPlan
from embias_widgets.models.language_models.vocab_blocks import target_log_probs as vocab_target_log_probs
from embias_widgets.stimuli.nli_probes import PairSource


def _timed(fn: Any, repeat: int = 3) -> tuple[float, Any]:
    """Best wall time of ``repeat`` runs and the last output."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


class PairObjects(PairSource):
    """A probe's pairs without ``pair_parts``: the engine takes pair objects and the tokenizer sees every pair."""

    def __init__(self, probe: Any) -> None:
        self.probe, self.name = probe, probe.name

    def __len__(self) -> int:
        return len(self.probe)

    def iter_pairs(self, start: int = 0, stop: int | None = None) -> Any:
        return self.probe.iter_pairs(start, stop)


def bench_nli(n_ours: int, n_base: int) -> dict[str, Any]:
    import numpy as np

    from embias_widgets.analysis.nli.chunks import score_chunk
    from embias_widgets.models.language_models.batching import pack_lengths
    from embias_widgets.models.nli_classifiers import CrossEncoderNli
    from embias_widgets.stimuli.nli_probes import load_probe

    model, tokenizer = free_model("nli")
    clf = CrossEncoderNli(model, tokenizer, device="cpu")
    probe = load_probe("gender-occupation")
    ours_chunk = score_chunk(clf, probe, 0, n_base, taus=(0.5,), top_k=1, per_pair=True)  # warm-up too
    base_chunk = score_chunk(clf, PairObjects(probe), 0, n_base, taus=(0.5,), top_k=1, per_pair=True)
    identical = bool(np.array_equal(ours_chunk.probs, base_chunk.probs))

    from embias_widgets.analysis.nli import NliProbe

    t_base, _ = _timed(lambda: NliProbe(PairObjects(probe), clf, limit=n_base).run(), repeat=2)
    t_ours, _ = _timed(lambda: NliProbe(probe, clf, limit=n_ours).run(), repeat=3)
    # the model alone on the same batches (assembled beforehand)
    parts = probe.pair_parts(0, 4096)
    lengths, rows_of = clf._pieces.assemble(parts)
    batches = [rows_of(b) for b in pack_lengths(lengths, clf.token_budget)]
    logits_of = clf._logits_function()

    def model_only() -> None:
        import torch

        with torch.inference_mode():
            for ids, types in batches:
                x = torch.from_numpy(ids)
                logits_of(x, token_type_ids=torch.from_numpy(types))

    t_model, _ = _timed(model_only, repeat=3)
    rate, base_rate, model_rate = n_ours / t_ours, n_base / t_base, 4096 / t_model
    return {"what": "NliProbe.run, gender-occupation, 1-layer 16-wide BERT (30,522 vocab), 1 thread",
            "pairs_per_s": round(rate), "baseline_pairs_per_s": round(base_rate), "ratio": round(rate / base_rate, 2),
            "target_pairs_per_s": 150_000, "model_forward_only_pairs_per_s": round(model_rate),
            "pipeline_share_of_time": round(1 - rate / model_rate, 3),
            "bit_identical_to_baseline": identical, "pairs": n_ours, "baseline_pairs": n_base}


def bench_pll(n_sentences: int) -> dict[str, Any]:
    import torch

    from embias_widgets.models.language_models import MaskedLMScorer
    from embias_widgets.models.language_models.head_split import HeadSplit
    from embias_widgets.stimuli.pairs import read_crows_pairs

    model, tokenizer = free_model("mlm")
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    crows = read_crows_pairs(ROOT.parent / "shared" / "data" / "crows_pairs" / "crows_pairs_anonymized.csv")
    sentences = [s for p in crows[: (n_sentences + 1) // 2] for s in (p.stereo, p.anti)][:n_sentences]
    scorer.score_sentences(sentences[:4])
    head = {"seconds": 0.0, "rows": 0}
    original = HeadSplit.log_probs

    def counted(self: Any, states: Any, targets: Any) -> Any:
        t0 = time.perf_counter()
        out = original(self, states, targets)
        head["seconds"] += time.perf_counter() - t0
        head["rows"] += int(targets.shape[0])
        return out

    def run() -> None:
        scorer._masked.clear()
        scorer._tokenized.clear()
        scorer.score_sentences(sentences)

    HeadSplit.log_probs = counted
    try:
        seconds, _ = _timed(run, repeat=1)
    finally:
        HeadSplit.log_probs = original
    from embias_widgets.models.language_models import head_split

    ours_s, _ = _timed(run, repeat=5)
    ours_values = [s.log_probs for s in scorer.score_sentences(sentences)]
    from embias_widgets.models.language_models import masked_lm

    # the earlier path: the head without row tiles and with exp out of place, one tokenizer call per
    # sentence, every masked copy's row converted from Python, the garbage collector running

    batched, copies, paused = masked_lm.tokenize_many, CopyPlan.copies, MaskedLMScorer.score_sentences
    head_split.target_log_probs = _previous_target_log_probs
    masked_lm.tokenize_many = lambda tok, texts, **kw: [batched(tok, [t], **kw)[0] for t in texts]
    CopyPlan.copies = _previous_copies
    MaskedLMScorer.score_sentences = paused.__wrapped__  # the garbage collector running, as it did
    try:
        base_s, _ = _timed(run, repeat=5)
        base_values = [s.log_probs for s in scorer.score_sentences(sentences)]
    finally:
        head_split.target_log_probs = vocab_target_log_probs
        masked_lm.tokenize_many, CopyPlan.copies, MaskedLMScorer.score_sentences = batched, copies, paused
    z, buf = torch.randn(256, 1024), torch.empty(256, 1024)  # one L2-resident block, as the head uses
    t_exp, _ = _timed(lambda: torch.exp(z, out=buf), repeat=20)
    logits = head["rows"] * model.config.vocab_size
    exp_floor = logits / z.numel() * t_exp
    HeadSplit.log_probs = lambda self, states, targets: torch.zeros(targets.shape[0], dtype=torch.float64)
    try:  # everything but the exact vocabulary head: tokens, masked copies, the encoder, the queue
        pipeline_s, _ = _timed(run, repeat=3)
    finally:
        HeadSplit.log_probs = original
    return {"what": "MaskedLMScorer.score_sentences PLL, CrowS-Pairs sentences, 1-layer 16-wide BERT MLM, 1 thread",
            "sentences_per_s": round(n_sentences / ours_s, 1), "target_sentences_per_s": 2000,
            "baseline_sentences_per_s": round(n_sentences / base_s, 1), "ratio": round(base_s / ours_s, 2),
            "token_log_prob_max_abs_diff_from_baseline": _largest_diff(ours_values, base_values),
            "allowed_diff": 1e-6,
            "masked_tokens": head["rows"], "head_share_of_time": round(head["seconds"] / seconds, 3),
            "head_ns_per_logit": round(head["seconds"] / logits * 1e9, 3), "seconds": round(ours_s, 3),
            "without_the_head_sentences_per_s": round(n_sentences / pipeline_s, 1),
            "exp_of_every_logit_in_cache_s": round(exp_floor, 3),
            "sentences_per_s_if_only_the_exp_of_the_logits_cost": round(n_sentences / exp_floor, 1)}


def _largest_diff(ours: list[Any], base: list[Any]) -> float:
    """The largest ``|ours - base|`` over every scored token (NaN marks the unscored ones: they must match)."""
    import numpy as np

    a, b = np.concatenate(ours), np.concatenate(base)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return float("inf")
    return float(np.nanmax(np.abs(a - b)))


def _previous_copies(plan: Any, torch: Any, batch: Any, device: Any) -> Any:
    """A batch's copies by the earlier path: every row converted from Python, the distinct sentences found again
    by ``torch.unique`` (as the encoder loop did), the positions from Python (exact lengths: no mask)."""
    from embias_widgets.models.language_models.copy_plan import Copies

    keys = [(ids, r) for ids, rest in plan.groups for r in rest]
    keys = [keys[k] for k in batch.tolist()]
    ids = torch.tensor([k[0] for k in keys])
    return Copies(ids, None, *torch.unique(ids, dim=0, return_inverse=True), torch.tensor([k[1][0] for k in keys]),
                  None)


def _previous_target_log_probs(x: Any, weight: Any, bias: Any, targets: Any, *, block: int = 1024) -> Any:
    """``vocab_blocks.target_log_probs`` by the earlier path (``exp(z - max)`` into a new block, not in place)."""
    import torch

    rows, vocab = x.shape[0], weight.shape[0]
    maxes, sums = [], []
    picked = torch.empty(rows, dtype=x.dtype, device=x.device)
    for lo in range(0, vocab, block):
        hi = min(vocab, lo + block)
        z = torch.nn.functional.linear(x, weight[lo:hi], None if bias is None else bias[lo:hi])
        top = z.amax(dim=1, keepdim=True)
        sums.append(torch.exp(z - top).sum(dim=1))
        maxes.append(top[:, 0])
        here = ((targets >= lo) & (targets < hi)).nonzero()[:, 0]
        if here.numel():
            picked[here] = z[here, targets[here] - lo]
    m_c, s_c = torch.stack(maxes, dim=1).double(), torch.stack(sums, dim=1).double()
    m = m_c.amax(dim=1, keepdim=True)
    return picked.double() - (m[:, 0] + torch.log((s_c * torch.exp(m_c - m)).sum(dim=1)))


def bench_dask(n_pairs: int, chunk: int) -> dict[str, Any]:
    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.analysis.nli.chunks import worker_costs
    from embias_widgets.models.nli_classifiers import CrossEncoderNli

    model, tokenizer = minilm_cross_encoder()
    clf = CrossEncoderNli(model, tokenizer, device="cpu")
    out: dict[str, Any] = {"what": f"NliProbe.run(workers=N), MiniLM-shaped cross-encoder object, {n_pairs:,} "
                                   f"pairs of gender-occupation, chunks of {chunk}"}
    NliProbe("gender-occupation", clf, limit=64, chunk_size=32).run(workers=1)  # the fork server's imports
    walls = {}
    for n in (1, 2):
        t0 = time.perf_counter()
        result = NliProbe("gender-occupation", clf, limit=n_pairs, chunk_size=chunk).run(workers=n)
        walls[n] = time.perf_counter() - t0
        per = worker_costs(result.chunks)
        out[f"{n}_workers"] = {"wall_s": round(walls[n], 2),
                               "warmup_s_per_worker": [round(r["warmup_seconds"], 3) for r in per.values()],
                               "cpu_s_per_worker": [round(r["cpu_seconds"], 2) for r in per.values()],
                               "note": result.notes[-1]}
    out["wall_ratio_2_vs_1"] = round(walls[1] / walls[2], 2)
    out["target_ratio"] = 1.8
    return out


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="nli,pll,dask")
    ap.add_argument("--pairs", type=int, default=65536, help="pairs of our NLI run (the baseline: an eighth)")
    ap.add_argument("--sentences", type=int, default=1000)
    ap.add_argument("--dask-pairs", type=int, default=32768)
    ap.add_argument("--chunk-size", type=int, default=2048)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    sections = {"nli": lambda: bench_nli(args.pairs, max(1024, args.pairs // 8)),
                "pll": lambda: bench_pll(args.sentences),
                "dask": lambda: bench_dask(args.dask_pairs, args.chunk_size)}
    out: dict[str, Any] = {"load_avg_before": load_avg()}
    for name in args.only.split(","):
        out[name] = sections[name]()
        if not args.json:
            print(f"-- {name}\n" + "\n".join(f"  {k}: {v}" for k, v in out[name].items()), flush=True)
    out["load_avg_after"] = load_avg()
    print(json.dumps(out, indent=1) if args.json else f"load average {out['load_avg_before']:.1f} -> "
          f"{out['load_avg_after']:.1f} (2 cores; other work on the machine slows both sides of each ratio)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
