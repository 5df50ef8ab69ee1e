"""Arbitrary sentence pairs tokenised by the fast tokenizer's Rust backend directly.

``tokenizer(premises, hypotheses)`` of a ``transformers`` fast tokenizer hands the whole batch to its Rust
backend (``tokenizers.Tokenizer.encode_batch``) and then builds a Python dictionary per pair and copies every
field into lists; for probe-length pairs that conversion costs more than the encoding. Measured on a lent H100
machine (16 cores, BERT-base in bfloat16, 32,768 probe pairs): tokenising took 76% of
``CrossEncoderNli.predict`` (24,300 pairs/s), and here (2 cores) the backend's own batch call with its ids and
type ids read off takes 0.62-0.94 s for those pairs against 1.40-1.55 s for the wrapper.

:func:`backend_pair_encoding` calls the backend directly (``encode_batch_fast`` where the installed
``tokenizers`` has it: no character offsets) and returns ``(input_ids, token_type_ids)``. Every call first
encodes up to :data:`CHECK_PAIRS` of its pairs, spread over the batch, through the tokenizer itself (which
also sets the backend's truncation and padding to this call's: none), and uses the backend's result only when
those agree id for id and type for type; a tokenizer that disagrees once (Python-side preprocessing the
backend does not do) is not asked again, and the caller encodes through the tokenizer as before.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Pairs of each call encoded both ways and compared before the backend's encoding is used.
CHECK_PAIRS = 16

#: Tokenizers whose backend encoding disagreed with their own (never asked again).
_DISAGREES: weakref.WeakSet = weakref.WeakSet()


def backend_pair_encoding(
    tokenizer: Any, premises: Sequence[str], hypotheses: Sequence[str]
) -> tuple[list[list[int]], list[list[int]] | None] | None:
    """``(input_ids, token_type_ids)`` of every ``[CLS] premise [SEP] hypothesis [SEP]`` (the tokenizer's own
    special tokens, no truncation, no padding) from the Rust backend, or None where the backend cannot be used
    (a slow tokenizer, or one whose backend disagrees with it on the checked pairs)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None or not hasattr(backend, "encode_batch") or _known_to_disagree(tokenizer):
        return None
    n = len(premises)
    check = sorted(set(np.linspace(0, n - 1, min(CHECK_PAIRS, n)).round().astype(int).tolist()))
    own = tokenizer([premises[i] for i in check], [hypotheses[i] for i in check], add_special_tokens=True,
                    truncation=False, return_token_type_ids=True)
    encode = getattr(backend, "encode_batch_fast", None) or backend.encode_batch
    try:
        encodings = encode(list(zip(premises, hypotheses, strict=True)), add_special_tokens=True)
    except (TypeError, ValueError, AttributeError):
        return _disagrees(tokenizer)
    ids = [e.ids for e in encodings]
    own_types = own.get("token_type_ids")
    types = [e.type_ids for e in encodings] if own_types is not None else None
    if [ids[i] for i in check] != [list(r) for r in own["input_ids"]]:
        return _disagrees(tokenizer)
    if types is not None and [types[i] for i in check] != [list(r) for r in own_types]:
        return _disagrees(tokenizer)
    return ids, types


def _known_to_disagree(tokenizer: Any) -> bool:
    try:
        return tokenizer in _DISAGREES
    except TypeError:
        return False


def _disagrees(tokenizer: Any) -> None:
    with contextlib.suppress(TypeError):  # a tokenizer that cannot be weakly referenced is checked each call
        _DISAGREES.add(tokenizer)
    return None
