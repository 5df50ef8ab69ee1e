"""Multiple choice by pseudo-log-likelihood for masked LMs: each choice's tokens scored in its context.

For a context ``x`` and a choice ``a`` the model reads ``S = x + " " + a`` (the text a causal LM scores,
:mod:`.choice_causal`), and the score is the PLL (Salazar et al. 2020) of the choice's tokens only, the context
left visible:

    PLL(a | x) = sum_{i in a} log P(w_i | S with w_i masked)

one masked copy of ``S`` per token of ``a``. A token belongs to ``a`` when it starts inside ``" " + a`` (the
tokenizer's offsets; a token of its own for the space counts, as in the causal continuation; a tokenizer without
offsets: the tokens after the context's own). The copies of every choice of every item go through the scorer's
batched PLL machinery together (:meth:`~.masked_lm.MaskedLMScorer.masked_log_probs`: equal-length batches under
the token budget, the masked row alone through the last layer and the head). A bidirectional model sees the
choice from every position, so nothing is shared between choices but the batches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .choice_causal import TARGET_DELIMITER
from .tokens import encode_texts, tokenize_many


def _choice_positions(encoded: Any, k: int, model_text: str, continuation: str, lowercase: bool) -> list[int]:
    """The positions of the tokens of ``continuation`` (the delimiter and the choice: the last characters of text
    ``k``), as a causal LM's continuation holds them: a token of its own for the space counts with the choice."""
    special = encoded.enc["special_tokens_mask"][k]
    start = len(model_text) - len(continuation.lower() if lowercase else continuation)
    return [i for i, ((a, _), sp) in enumerate(zip(encoded.offsets[k], special, strict=True)) if not sp and a >= start]


def masked_choice_requests(scorer: Any, contexts: Sequence[str], choices: Sequence[Sequence[str]], *,
                           delimiter: str = TARGET_DELIMITER) -> list[tuple[tuple[int, ...], list[int]]]:
    """``(token ids of S, the choice's positions)`` of every (context, choice), item by item; an item whose choice
    has no token, or a text the model cannot take (too long, unknown tokens only), raises naming the item."""
    texts = [x + delimiter + a for x, cs in zip(contexts, choices, strict=True) for a in cs]
    encoded = encode_texts(scorer.tokenizer, texts, lowercase=scorer.lowercase)
    toks = tokenize_many(scorer.tokenizer, texts, lowercase=scorer.lowercase, max_length=scorer.max_length,
                         encoded=encoded)
    bare = None
    if encoded.offsets is None:  # a tokenizer without offsets: the choice's tokens are those after the context's
        bare = encode_texts(scorer.tokenizer, list(contexts), lowercase=scorer.lowercase)
    out = []
    k = 0
    for item, (x, cs) in enumerate(zip(contexts, choices, strict=True)):
        for a in cs:
            if bare is None:
                positions = _choice_positions(encoded, k, encoded.model_texts[k], delimiter + a, scorer.lowercase)
            else:
                before = len(bare.content_positions(item))
                positions = encoded.content_positions(k)[before:]
            if not positions:
                raise ValueError(f"item {item} ({x[:40]!r}): the choice {a!r} has no token to score")
            out.append((toks[k].ids, positions))
            k += 1
    return out


def masked_choice_plls(scorer: Any, contexts: Sequence[str], choices: Sequence[Sequence[str]]
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``(PLL, n_tokens)``, each ``(items, choices)``: every choice's PLL in its context and its number of tokens."""
    n = len(contexts)
    k = len(choices[0]) if n else 0
    requests = masked_choice_requests(scorer, contexts, choices)
    values = scorer.masked_log_probs(requests) if requests else []
    totals = np.array([float(np.sum(v)) for v in values]).reshape(n, k)
    n_tokens = np.array([len(p) for _, p in requests], dtype=np.int64).reshape(n, k)
    return totals, n_tokens
