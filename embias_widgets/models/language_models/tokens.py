"""Sentences as a model sees them: tokenising with display pieces, and aligning the two sentences of a pair."""

from __future__ import annotations

import contextlib
import difflib
import weakref
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .scoring import Tokenized, content_positions
from .text_checks import ControlTokens, control_tokens, unscorable_reason
from .word_l2r import tokenizer_family, word_ids_from_encoding, words_from_tokens

#: Tokenizer family per tokenizer, for word boundaries without word ids.
_FAMILIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tokenize(tokenizer: Any, text: str, *, lowercase: bool, max_length: int | None) -> Tokenized:
    """Tokenise ``text`` with special tokens; lowercase first for uncased models (CrowS-Pairs)."""
    return tokenize_many(tokenizer, [text], lowercase=lowercase, max_length=max_length)[0]


class Encoded(NamedTuple):
    """One tokenizer call's output for texts: what the model reads (lowercased for uncased models), the
    encoding (ids, special-token masks, word ids) and the character offsets (None where the tokenizer gives none)."""

    model_texts: list[str]
    enc: Any
    offsets: Any

    def ids(self, k: int) -> tuple[int, ...]:
        """Text ``k``'s token ids, as :class:`Tokenized` holds them."""
        return tuple(int(i) for i in self.enc["input_ids"][k])

    def content_positions(self, k: int) -> list[int]:
        """Text ``k``'s positions that are not special tokens (the ones PLL masks)."""
        return content_positions(self.enc["special_tokens_mask"][k])


def encode_texts(tokenizer: Any, texts: Sequence[str], *, lowercase: bool) -> Encoded:
    """One call of the tokenizer for ``texts`` (strings; :func:`tokenize_many` checks them first)."""
    model_texts = [text.lower() if lowercase else text for text in texts]
    try:
        enc = tokenizer(model_texts, return_special_tokens_mask=True, return_offsets_mapping=True)
        return Encoded(model_texts, enc, enc["offset_mapping"])
    except (NotImplementedError, ValueError, TypeError):
        return Encoded(model_texts, tokenizer(model_texts, return_special_tokens_mask=True), None)


def tokenize_many(tokenizer: Any, texts: Sequence[str], *, lowercase: bool, max_length: int | None,
                  encoded: Encoded | None = None) -> list[Tokenized]:
    """:func:`tokenize` of each text, with one call of the tokenizer for all of them (a fast tokenizer encodes a
    batch in Rust; called once per sentence, its Python wrapper cost as much as the encoding). The same tokens,
    offsets and word ids as one call per text (nothing is padded); the first text that cannot be scored raises,
    as it would one by one. ``encoded``: :func:`encode_texts` of ``texts``, when already made."""
    bad = next((k for k, text in enumerate(texts) if not isinstance(text, str) or not text.strip()), None)
    if bad is not None:  # the texts before it first, so the first text that cannot be scored is the one named
        tokenize_many(tokenizer, texts[:bad], lowercase=lowercase, max_length=max_length)
        raise ValueError(f"cannot score an empty sentence ({texts[bad]!r}): type some words")
    if not texts:
        return []
    model_texts, enc, offsets = encoded or encode_texts(tokenizer, texts, lowercase=lowercase)
    controls = control_tokens(tokenizer)
    rust = getattr(enc, "encodings", None) or None  # a fast tokenizer's encodings hold each text's tokens
    return [
        _tokenized(tokenizer, text, model_text, enc["input_ids"][k], enc["special_tokens_mask"][k],
                   None if offsets is None else offsets[k], word_ids_from_encoding(enc, enc["special_tokens_mask"][k],
                                                                                   batch_index=k),
                   max_length, controls, None if rust is None else _encoding_tokens(tokenizer, rust[k], controls.unk))
        for k, (text, model_text) in enumerate(zip(texts, model_texts, strict=True))
    ]


def _encoding_tokens(tokenizer: Any, encoding: Any, unk: int | None) -> tuple[str, ...]:
    """``tokenizer.convert_ids_to_tokens(ids)`` from a fast tokenizer's encoding (no call per token): its token
    strings, except that a unigram model (SentencePiece) writes an unknown piece as the text it covers, where
    the vocabulary names it by the unknown token (tested against ``convert_ids_to_tokens`` for WordPiece,
    byte-level BPE, SentencePiece BPE and unigram)."""
    tokens = tuple(encoding.tokens)
    if unk is not None and unk in encoding.ids:
        name = tokenizer.unk_token
        tokens = tuple(name if i == unk else t for i, t in zip(encoding.ids, tokens, strict=True))
    return tokens


def _tokenized(tokenizer: Any, text: str, model_text: str, input_ids: Sequence[int], special_mask: Sequence[int],
               offsets: Any, words: tuple[int | None, ...] | None, max_length: int | None,
               controls: ControlTokens, tokens: tuple[str, ...] | None = None) -> Tokenized:
    ids = tuple(map(int, input_ids))
    special = tuple(map(bool, special_mask))
    reason = unscorable_reason(tokenizer, text, ids, special, controls)  # typed control tokens, unknown only
    if reason:
        raise ValueError(reason)
    if tokens is None:
        tokens = tuple(tokenizer.convert_ids_to_tokens(list(ids)))
    if max_length is not None and len(ids) > max_length:
        raise ValueError(
            f"{text[:60]!r}... has {len(ids)} tokens but the model takes at most {max_length}: "
            "shorten or split the sentence"
        )
    display = text if len(text) == len(model_text) else model_text
    pieces, spaces = _display_pieces(tokens, special, offsets, display)
    if words is None:
        words = words_from_tokens(tokens, special, _family(tokenizer, tokens))
    return Tokenized(text, ids, tokens, pieces, spaces, special, words)


def _family(tokenizer: Any, tokens: Sequence[str]) -> str:
    """The tokenizer's family (:func:`~.word_l2r.tokenizer_family` of its vocabulary, else of ``tokens``),
    once per tokenizer."""
    try:
        return _FAMILIES[tokenizer]
    except (KeyError, TypeError):
        pass
    try:
        vocabulary = tokenizer.get_vocab()
    except (AttributeError, NotImplementedError):
        vocabulary = None
    family = tokenizer_family(tokens, vocabulary)
    with contextlib.suppress(TypeError):  # a tokenizer that cannot be weakly referenced is asked each time
        _FAMILIES[tokenizer] = family
    return family


def _display_pieces(
    tokens: Sequence[str], special: Sequence[bool], offsets: Any, text: str
) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    pieces: list[str] = []
    spaces: list[bool] = []
    prev_end: int | None = None
    if offsets is not None:  # each piece as the text writes it; a space before it where the text has a gap
        for token, is_special, (start, end) in zip(tokens, special, offsets, strict=True):
            if is_special:
                spaces.append(bool(pieces))
                pieces.append(token)
                continue
            pieces.append(text[start:end] or token)
            spaces.append(prev_end is not None and start > prev_end)
            prev_end = end
        return tuple(pieces), tuple(spaces)
    for i, token in enumerate(tokens):
        if special[i]:
            spaces.append(bool(pieces))
            pieces.append(token)
            continue
        word_start = not token.startswith("##")
        clean = token.removeprefix("##").lstrip("Ġ▁")
        pieces.append(clean or token)
        spaces.append(prev_end is not None and (word_start or token[:1] in "Ġ▁"))
        prev_end = i
    return tuple(pieces), tuple(spaces)


def modified_flags(length: int, shared: Iterable[int]) -> np.ndarray:
    """Boolean array: True where a position is not among ``shared``."""
    flags = np.ones(length, dtype=bool)
    flags[list(shared)] = False
    return flags


# -- alignment -------------------------------------------------------------------------------
def shared_positions(
    ids_a: Sequence[int], ids_b: Sequence[int], *, autojunk: bool = False
) -> tuple[list[int], list[int]]:
    """Positions of the tokens two sequences share, from difflib's ``equal`` blocks.

    As CrowS-Pairs' ``get_span`` (Nangia et al. 2020): align the token-id
    sequences with ``difflib.SequenceMatcher`` and keep the ``equal`` opcodes;
    everything else is a modified token. CrowS-Pairs leaves difflib's
    ``autojunk`` heuristic on, which changes alignments only for sequences of
    200 tokens or more; it is off here unless asked for.
    """
    matcher = difflib.SequenceMatcher(None, list(ids_a), list(ids_b), autojunk=autojunk)
    left: list[int] = []
    right: list[int] = []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            left.extend(range(a0, a1))
            right.extend(range(b0, b1))
    return left, right
