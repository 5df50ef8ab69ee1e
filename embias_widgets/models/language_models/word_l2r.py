"""PLL-word-l2r (Kauf & Ivanova 2023): words from a tokenizer, and what each masked copy also masks.

The original PLL (Salazar et al. 2020) masks one token at a time, so a word split into pieces
("souvenir" -> ``so ##uven ##ir``) is scored with its other pieces visible, and each piece is easy
to guess: multi-token words get inflated scores. PLL-word-l2r masks the target token **and the
later tokens of the same word**:

    PLL-word-l2r(S) = sum_t log P(w_t | S with w_t and {w_j : j > t, word(j) = word(t)} masked)

(Kauf & Ivanova 2023, "A Better Way to Do Masked Language Model Scoring", ACL, §3; minicons'
``PLL_metric="within_word_l2r"``). Earlier pieces of the word stay visible (left to right).

Word boundaries come from the tokenizer's own word ids (``encoding.word_ids()`` of a fast
tokenizer, what minicons reads). Without them, from the token strings per tokenizer family:
WordPiece marks continuations with ``##``; byte-level BPE (``Ġ``) and SentencePiece (``▁``) mark
word starts, and byte-level BPE's pre-tokenizer also splits letters, digits and other characters
into separate words, which :func:`words_from_tokens` follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: Word-start markers of the prefix-marked families: byte-level BPE (GPT-2, RoBERTa) and SentencePiece.
BPE_START, SENTENCEPIECE_START, WORDPIECE_CONTINUE = "Ġ", "▁", "##"
FAMILIES = ("wordpiece", "bpe", "sentencepiece")


def word_ids_from_encoding(
    encoding: Any, special: Sequence[bool], *, batch_index: int | None = None
) -> tuple[int | None, ...] | None:
    """The word index of each token from a fast tokenizer's encoding (``None`` for special tokens), of the
    ``batch_index``-th text of a batch's; ``None`` when the tokenizer cannot say (slow tokenizers)."""
    try:
        ids = encoding.word_ids() if batch_index is None else encoding.word_ids(batch_index)
    except (AttributeError, ValueError, TypeError):
        return None
    if ids is None or len(ids) != len(special):
        return None
    return tuple(None if sp else (None if w is None else int(w)) for w, sp in zip(ids, special, strict=True))


def tokenizer_family(tokens: Sequence[str], vocabulary: Any = None) -> str:
    """``"wordpiece"``, ``"bpe"`` or ``"sentencepiece"``: the marker most common in ``vocabulary``
    (a token -> id mapping, e.g. ``tokenizer.get_vocab()``), else in ``tokens``."""
    pool = list(vocabulary) if vocabulary else list(tokens)
    counts = {
        "wordpiece": sum(t.startswith(WORDPIECE_CONTINUE) for t in pool),
        "bpe": sum(t.startswith(BPE_START) for t in pool),
        "sentencepiece": sum(t.startswith(SENTENCEPIECE_START) for t in pool),
    }
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] else "wordpiece"


def words_from_tokens(tokens: Sequence[str], special: Sequence[bool], family: str) -> tuple[int | None, ...]:
    """Word index per token from the token strings (``None`` for special tokens).

    - WordPiece: a token starting with ``##`` continues the previous word;
    - SentencePiece: a token starting with ``▁`` starts a word, any other continues one;
    - byte-level BPE: a token starting with ``Ġ`` starts a word, and so does one whose first
      character is of another class (letter, digit, other) than the previous token's last, as
      GPT-2's pre-tokenizer splits ``" ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+"``.

    The first token after a special token always starts a word.
    """
    if family not in FAMILIES:
        raise ValueError(f"`family` must be one of {FAMILIES}, got {family!r}")
    out: list[int | None] = []
    word = -1
    previous: str | None = None
    for token, sp in zip(tokens, special, strict=True):
        if sp:
            out.append(None)
            previous = None
            continue
        if previous is None or _starts_word(token, previous, family):
            word += 1
        out.append(word)
        previous = token
    return tuple(out)


def _starts_word(token: str, previous: str, family: str) -> bool:
    if family == "wordpiece":
        return not token.startswith(WORDPIECE_CONTINUE)
    if family == "sentencepiece":
        return token.startswith(SENTENCEPIECE_START)
    if token.startswith(BPE_START) or not token:
        return True
    before = previous.removeprefix(BPE_START)
    if not before:  # a lone space token: the word it starts goes on
        return False
    return _char_class(token[0]) != _char_class(before[-1])


def _char_class(char: str) -> str:
    return "letter" if char.isalpha() else "digit" if char.isnumeric() else "other"


def l2r_masks(word_ids: Sequence[int | None], positions: Sequence[int]) -> list[tuple[int, ...]]:
    """For each scored position t, the later positions also masked: those of t's word, from t + 1 up to
    the last scored position (as minicons' ``within_word_l2r``). Empty for a one-token word."""
    if not positions:
        return []
    last = max(positions)
    out = []
    for t in positions:
        word = word_ids[t]
        if word is None:
            out.append(())
            continue
        out.append(tuple(j for j in range(t + 1, last + 1) if word_ids[j] == word))
    return out
