"""Text a language model cannot score honestly, refused with the reason.

- A tokenizer that turns ordinary text into unknown tokens only (a model directory whose ``vocab.txt`` and
  ``tokenizer.json`` are missing loads as a 5-token tokenizer: every sentence is ``[UNK] [UNK] ...``, every
  pair ties, and a CrowS-Pairs score of 0 would be published) is refused when the model loads, naming the
  model and its tokenizer files (:func:`check_tokenizer`).
- A sentence the model sees only as unknown tokens (an emoji-only sentence under BERT's WordPiece) has a
  likelihood that says nothing about its words; a sentence with typed control tokens (``[MASK] [SEP]``,
  ``<|endoftext|>``) is read as masks and separators, not words. Both are refused per sentence
  (:func:`unscorable_reason`), so a pair holding one is an error in its row, left out of ``n``, as the
  sentence encoders note sentences they see only as unknown tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import not_
from pathlib import Path
from typing import Any, NamedTuple

from ..sentence_encoders.hub import TOKENIZER_FILES

#: Ordinary text any tokenizer of a real model covers at least in part: words, punctuation, digits.
PROBE_TEXTS = ("The doctor said that she would call the nurse tomorrow.", "He is a man, and 42 people saw it!",
               "a the of and to in is it was for on , . ? 1 2 3")
VOCABULARY_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "spiece.model", "sentencepiece.bpe.model",
                    "tokenizer.model")


class TokenizerError(ValueError):
    """A tokenizer that cannot read ordinary text (its vocabulary files are missing or broken)."""


def _content(ids: Sequence[int], special: Sequence[bool]) -> list[int]:
    """The ids the tokenizer did not add (``special`` marks the ones it did)."""
    if len(ids) != len(special):
        raise ValueError(f"{len(ids)} token ids but {len(special)} special-token flags")
    return list(compress(ids, map(not_, special)))


def _unknown_only(unk: int | None, content: Sequence[int]) -> bool:
    """Whether every one of ``content`` is the unknown token ``unk`` (and there is at least one)."""
    return unk is not None and bool(content) and content.count(unk) == len(content)


def check_tokenizer(tokenizer: Any, name: str, path: str | Path | None = None) -> None:
    """:class:`TokenizerError` when ``tokenizer`` reads every one of :data:`PROBE_TEXTS` as unknown tokens
    only; the message names the model, its vocabulary size and, for a local directory, which tokenizer
    files it holds and which vocabulary files it lacks."""
    if getattr(tokenizer, "unk_token_id", None) is None:
        return  # byte-level tokenizers (GPT-2) have no unknown token: every text has tokens
    for text in PROBE_TEXTS:
        enc = tokenizer(text, return_special_tokens_mask=True)
        if not _unknown_only(tokenizer.unk_token_id, _content(enc["input_ids"], enc["special_tokens_mask"])):
            return
    unk = tokenizer.unk_token
    where = ""
    folder = Path(path).expanduser() if path is not None else None
    if folder is not None and folder.is_dir():
        held = [f for f in TOKENIZER_FILES if (folder / f).is_file()]
        where = (f"; {folder} holds {', '.join(held) or 'no tokenizer file'} but no vocabulary file "
                 f"({', '.join(VOCABULARY_FILES)})" if not any((folder / f).is_file() for f in VOCABULARY_FILES)
                 else f"; check its tokenizer files ({', '.join(held)})")
    raise TokenizerError(
        f"the tokenizer of {name} turns ordinary text into unknown tokens only ({PROBE_TEXTS[0]!r} -> {unk} ...; "
        f"a vocabulary of {len(tokenizer)} tokens){where}: every sentence would score alike. Save the tokenizer "
        "with the model (tokenizer.save_pretrained(...) writes vocab.txt or tokenizer.json)")


class ControlTokens(NamedTuple):
    """A tokenizer's control tokens as :func:`unscorable_reason` looks for them: their ids (the unknown token's
    left out), their written forms of more than two characters, lowercased, and the unknown token's id (None
    when it has none)."""

    ids: frozenset[int]
    written: tuple[tuple[str, str], ...]  # (token, token.lower())
    unk: int | None = None


def control_tokens(tokenizer: Any) -> ControlTokens:
    """:class:`ControlTokens` of ``tokenizer`` as it is now (read once per batch of texts: transformers builds
    ``all_special_tokens`` anew on every access, which cost a third of a no-cost model's PLL run per sentence)."""
    unk = getattr(tokenizer, "unk_token_id", None)  # a property that looks the token up on every read
    ids = frozenset(getattr(tokenizer, "all_special_ids", ()) or ()) - {unk}
    written = tuple((t, t.lower()) for t in getattr(tokenizer, "all_special_tokens", ()) or () if len(t) > 2)
    return ControlTokens(ids, written, unk)


def unscorable_reason(tokenizer: Any, text: str, ids: Sequence[int], special: Sequence[bool],
                      controls: ControlTokens) -> str:
    """Why ``text`` (tokenised as ``ids``, ``special`` marking the tokens the tokenizer added) cannot be
    scored: typed control tokens (read as such, or written out as ``[MASK]``, ``<s>`` in any case), or unknown
    tokens only; ``""`` when it can. ``controls``: :func:`control_tokens` of ``tokenizer`` (read once per batch)."""
    content = _content(ids, special)
    typed = [] if controls.ids.isdisjoint(content) else [i for i in content if i in controls.ids]
    names = list(dict.fromkeys(tokenizer.convert_ids_to_tokens(typed))) if typed else []
    lowered = text.lower()  # lowercasing (CrowS-Pairs on uncased models) turns [MASK] into "[ mask ]": same intent
    names += [t for t, low in controls.written if t not in names and low in lowered]
    if names:
        names.sort(key=lambda t: (lowered.find(t.lower()) % (len(lowered) + 1), t))
        several = len(names) > 1
        return (f"{text!r} holds the model's control token{'s' * several} {', '.join(names)} as typed text: the "
                f"model reads {'them' if several else 'it'} as a mask, separator or padding, not as words, so the "
                "sentence is not scored; reword or remove "
                f"{'them' if several else 'it'}")
    if _unknown_only(controls.unk, content):
        return (f"the model sees {text!r} only as unknown tokens ({tokenizer.unk_token}): its likelihood says "
                "nothing about its words, so the sentence is not scored (its pair is left out of n)")
    return ""
