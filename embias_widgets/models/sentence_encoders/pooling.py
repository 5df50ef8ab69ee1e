"""Pooling transformer hidden states into sentence vectors (May et al. 2019's SEAT encoders).

A transformer encoder maps a sentence's tokens t_1..t_n (special tokens
included, padding excluded) to hidden states h_l(t_i) at each layer l. The
sentence vector is ``combine_l pool_i h_l(t_i)`` with

- ``pool``: ``mean`` (mean over non-padding tokens, the sentence-transformers
  convention), ``max`` (element-wise max), ``first`` (the first token, [CLS]
  for BERT as May et al. use), ``last`` (the last non-padding token, as they
  use for GPT), ``weighted_mean`` (token i of n weighted by its position,
  ``sum_i i h_i / sum_i i``: Muennighoff 2022, SGPT), ``mean_sqrt_len``
  (``sum_i h_i / sqrt(n)``); several joined by ``+`` (``"first+mean"``) are
  concatenated in that order, as sentence-transformers' ``Pooling`` does for
  several modes (Reimers & Gurevych 2019);
- ``layer``: ``"last"`` (default), an int index into ``hidden_states``
  (0 = embedding output, negative counts from the top), or ``"sum"`` /
  ``"mean"`` over all of them (May et al.'s ELMo: pool over the sequence,
  then sum over layers), or ``"sum-last4"``.

torch is imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

POOLINGS = ("mean", "max", "first", "last", "weighted_mean", "mean_sqrt_len")
#: sentence-transformers' names for our poolings (``1_Pooling/config.json``), in its order of concatenation.
SENTENCE_TRANSFORMERS_POOLINGS = {
    "cls": "first",
    "max": "max",
    "mean": "mean",
    "mean_sqrt_len_tokens": "mean_sqrt_len",
    "weightedmean": "weighted_mean",
    "lasttoken": "last",
}
LAYER_COMBINATIONS = ("last", "sum", "mean", "sum-last4")
"""``sum``/``mean`` combine every hidden state (embeddings included); ``sum-last4`` sums the last four
(the BERT feature convention that LMMS uses, Loureiro & Jorge 2019)."""


def check_pooling(pooling: str) -> str:
    """``pooling`` checked: one of :data:`POOLINGS`, or several joined by ``+``."""
    modes = pooling.split("+") if isinstance(pooling, str) else [pooling]
    for mode in modes:
        if mode not in POOLINGS:
            ours = SENTENCE_TRANSFORMERS_POOLINGS.get(mode) if isinstance(mode, str) else None
            hint = f" (sentence-transformers' {mode!r} is {ours!r} here)" if ours and ours != mode else ""
            raise ValueError(f"unknown pooling {mode!r}: use one of {', '.join(POOLINGS)}, or several joined "
                             f"by '+'{hint}")
    return pooling


def pool_hidden_states(hidden: Any, attention_mask: Any, pooling: str) -> Any:
    """Pool ``(batch, tokens, dim)`` states over non-padding tokens -> ``(batch, dim)``
    (``(batch, k * dim)`` for ``k`` modes joined by ``+``, concatenated in order).

    Works with left or right padding: ``last`` takes the last position whose
    mask is 1, ``first`` the first such position; ``weighted_mean`` numbers
    the non-padding tokens 1..n wherever the padding is.
    """
    import torch

    if "+" in pooling:
        return torch.cat([pool_hidden_states(hidden, attention_mask, mode) for mode in pooling.split("+")], dim=-1)
    mask = attention_mask.to(hidden.dtype).unsqueeze(-1)
    if pooling in ("mean", "mean_sqrt_len"):
        count = mask.sum(dim=1).clamp(min=1.0)
        return (hidden * mask).sum(dim=1) / (count if pooling == "mean" else count.sqrt())
    if pooling == "weighted_mean":
        weights = mask.cumsum(dim=1) * mask  # 1..n over the non-padding tokens
        return (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
    if pooling == "max":
        return hidden.masked_fill(mask == 0, torch.finfo(hidden.dtype).min).max(dim=1).values
    positions = torch.arange(hidden.shape[1], device=hidden.device).expand_as(attention_mask)
    if pooling == "first":
        index = torch.where(attention_mask.bool(), positions, hidden.shape[1]).min(dim=1).values
    elif pooling == "last":
        index = torch.where(attention_mask.bool(), positions, -1).max(dim=1).values
    else:
        raise ValueError(f"unknown pooling {pooling!r}: use one of {', '.join(POOLINGS)}")
    return hidden[torch.arange(hidden.shape[0], device=hidden.device), index]


def check_layer(layer: int | str, n_hidden_states: int) -> int | str:
    """``layer`` checked against a model with ``n_hidden_states`` hidden states (digits as a string become an int)."""
    if isinstance(layer, bool) or not isinstance(layer, int | str):
        raise ValueError(f"unknown layer {layer!r}: use an int index, or one of {LAYER_COMBINATIONS}")
    if isinstance(layer, str):
        if layer.lstrip("-").isdigit():
            layer = int(layer)
        elif layer not in LAYER_COMBINATIONS:
            raise ValueError(f"unknown layer {layer!r}: use an int index, or one of {', '.join(LAYER_COMBINATIONS)}")
    if isinstance(layer, int) and not -n_hidden_states <= layer < n_hidden_states:
        raise ValueError(
            f"layer {layer} is out of range: this model has {n_hidden_states} hidden states "
            f"(0 = embeddings .. {n_hidden_states - 1} = last; negative counts from the top)"
        )
    return layer


def combined_layers(hidden_states: Sequence[Any], layer: str) -> Sequence[Any]:
    """The hidden states a layer combination (``sum``, ``mean``, ``sum-last4``) adds up."""
    return hidden_states[-4:] if layer == "sum-last4" else hidden_states
