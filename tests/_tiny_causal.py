"""A tiny random GPT-2-style causal LM with a byte-level BPE tokenizer trained here (no download).

``GPT2LMHeadModel`` (2 layers, 32 wide, seeded, ``initializer_range`` 0.5 so that answers' scores differ by more
than float rounding) and a ``GPT2TokenizerFast`` that adds no special token, with ``<|endoftext|>`` as BOS, EOS
and UNK, as GPT-2 ships. Shared by the BBQ scoring, study, command-line and widget tests.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from _tiny_families import CORPUS


def gpt2_tokenizer(texts: Sequence[str] = (), vocab_size: int = 600):
    """A GPT-2-style byte-level BPE tokenizer trained on the family corpus and ``texts``."""
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tk.train_from_iterator([*CORPUS * 20, *texts], trainer)
    return transformers.GPT2TokenizerFast(tokenizer_object=tk, bos_token="<|endoftext|>",
                                          eos_token="<|endoftext|>", unk_token="<|endoftext|>")


def gpt2_model(tokenizer, *, positions: int = 256, seed: int = 0, spread: float = 0.5, layers: int = 2,
               width: int = 32):
    """A seeded random ``GPT2LMHeadModel`` over ``tokenizer``'s vocabulary, in eval mode."""
    import torch
    import transformers

    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_embd=width, n_layer=layers, n_head=2,
                                     n_positions=positions, bos_token_id=tokenizer.bos_token_id,
                                     eos_token_id=tokenizer.eos_token_id, initializer_range=spread)
    torch.manual_seed(seed)
    return transformers.GPT2LMHeadModel(config).eval()


def save_gpt2(folder: Path, texts: Sequence[str] = (), *, positions: int = 256, vocab_size: int = 600) -> Path:
    """A model directory (weights + tokenizer) that ``from_pretrained`` opens by path."""
    tokenizer = gpt2_tokenizer(texts, vocab_size)
    gpt2_model(tokenizer, positions=positions).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@functools.cache
def tiny_gpt2_dir() -> Path:
    """One saved tiny GPT-2 per test process (the family corpus only; 256 positions)."""
    folder = Path(tempfile.mkdtemp(prefix="embias-tiny-gpt2-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return save_gpt2(folder)
