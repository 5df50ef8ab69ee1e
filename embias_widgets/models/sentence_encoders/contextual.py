"""Contextual word vectors: a word's vector in one sentence, from a transformer's last layer (CEAT's input).

For a sentence S encoded as tokens t_1..t_n (the model's special tokens added as it adds them) and a word at
character span [lo, hi) of S, the word's contextual vector is

    v(word, S) = mean_{i : t_i overlaps [lo, hi)} h_L(t_i)        (``subwords="mean"``, the default)
    v(word, S) = h_L(t_last)                                     (``subwords="last"``: the word's last token)

with ``h_L`` the last layer of the model's encoder (``model.base_model``: a masked LM's hidden states before
its prediction head, a sentence encoder's token states before pooling). Guo & Caliskan (2021) take the last
layer at the word's *last* subword token (their ``generate_ebd_bert.py`` looks up the last id of the word's
tokens) and encode without special tokens; ``"last"`` gives their token choice, ``"mean"`` treats every
subword alike. A token overlaps the span when its character offsets (from a fast tokenizer) intersect it.

Works with any adapter holding ``model`` and ``tokenizer``: a
:class:`~embias_widgets.models.sentence_encoders.TransformerSentenceEncoder` or a masked-LM scorer
(:class:`~embias_widgets.models.language_models.MaskedLMScorer`); their device, precision, lowercasing, token
limit and batch sizes are used. Each sentence is encoded once, however many words are read from it; a word
whose span falls beyond the token limit gets ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..runtime import inference
from .transformer import padded_batches

SUBWORDS = ("mean", "last")
Span = tuple[int, int]


def _adapter_parts(adapter: Any) -> tuple[Any, Any, int, int | None, int]:
    """model, tokenizer, token limit, token cap per batch, rows per batch; a clear error when not a transformer."""
    model, tokenizer = getattr(adapter, "model", None), getattr(adapter, "tokenizer", None)
    if model is None or tokenizer is None or not hasattr(model, "base_model"):
        raise ValueError(f"{getattr(adapter, 'name', adapter)!r} has no transformer token vectors: contextual "
                         "word vectors need a sentence encoder or masked LM from Hugging Face transformers")
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"the tokenizer of {getattr(adapter, 'name', 'this model')!r} is not a fast tokenizer: "
                         "a word's tokens are found from character offsets, which only fast tokenizers give")
    max_length = int(getattr(adapter, "max_length", None) or 512)
    return model, tokenizer, max_length, getattr(adapter, "token_budget", None), int(getattr(adapter, "batch_size", 64))


def word_vectors_in_context(adapter: Any, sentences: Sequence[str], spans: Sequence[Sequence[Span]], *,
                            subwords: str = "mean", progress: bool | None = None) -> list[list[np.ndarray | None]]:
    """``out[i][k]``: the contextual vector of the k-th span of sentence i (formula in the module docstring).

    ``spans[i]`` lists character spans ``(start, end)`` in ``sentences[i]``; ``None`` marks a span that the
    model's token limit cut off. Vectors are float64 numpy arrays of the model's hidden size.
    """
    if subwords not in SUBWORDS:
        raise ValueError(f"`subwords` must be one of {', '.join(SUBWORDS)}, got {subwords!r}")
    if len(spans) != len(sentences):
        raise ValueError(f"give one list of spans per sentence ({len(sentences)} sentences, {len(spans)} lists)")
    model, tokenizer, max_length, cap, batch_size = _adapter_parts(adapter)
    lowercase = bool(getattr(adapter, "lowercase", False))
    texts = [s.lower() if lowercase and len(s.lower()) == len(s) else s for s in sentences]
    lengths = [min(len(ids), max_length) for ids in tokenizer(texts, truncation=False, verbose=False)["input_ids"]]
    out: list[list[np.ndarray | None]] = [[] for _ in sentences]
    from tqdm.auto import tqdm

    batches = padded_batches(lengths, lengths, batch_size, cap)
    show = progress if progress is not None else len(sentences) >= 512
    encoder = model.base_model
    with inference(getattr(adapter, "device", "cpu"), getattr(adapter, "dtype", None)):
        for batch in tqdm(batches, desc=f"contextual vectors ({getattr(adapter, 'name', '')})", unit="batch",
                          disable=not show):
            enc = tokenizer([texts[i] for i in batch], padding=True, truncation=True, max_length=max_length,
                            return_offsets_mapping=True, return_tensors="pt")
            offsets = enc.pop("offset_mapping").tolist()
            hidden = encoder(**enc.to(getattr(adapter, "device", "cpu"))).last_hidden_state.float().cpu().numpy()
            for row, i in enumerate(batch):
                out[i] = [_span_vector(hidden[row], offsets[row], span, subwords) for span in spans[i]]
    return out


def _span_vector(hidden: np.ndarray, offsets: list[list[int]], span: Span, subwords: str) -> np.ndarray | None:
    lo, hi = span
    chosen = [t for t, (a, b) in enumerate(offsets) if b > a and a < hi and b > lo]
    if not chosen:
        return None
    rows = hidden[chosen].astype(np.float64)
    return rows.mean(axis=0) if subwords == "mean" else rows[-1]
