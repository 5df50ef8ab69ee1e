"""What a relation study accepts: ordered pairs and words, checked and cleaned before anything runs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Pair = tuple[str, str]
DEFAULT_GROUP = "words"


class RelationInputError(ValueError):
    """Pairs or words that cannot be used as given: names the item and the fix."""


def check_finite(items: Sequence[str], vectors: Any, where: str) -> None:
    """:class:`RelationInputError` naming the first item whose vector holds NaN or an infinite value (the
    relation vector is an SVD of the pairs' differences: one NaN fails it, or silently spoils every score)."""
    import numpy as np

    bad = [item for item, vec in zip(items, vectors, strict=True) if not np.all(np.isfinite(vec))]
    if bad:
        raise RelationInputError(
            f"{where}: the model's vector for {bad[0]!r} holds NaN or an infinite value, so the relation vector "
            "and every RIPA score would be meaningless; fix that vector or drop the word"
            + (f" ({len(bad)} such words: {', '.join(map(repr, bad[:5]))})" if len(bad) > 1 else ""))


def clean_pairs(pairs: Iterable[Sequence[str]]) -> tuple[Pair, ...]:
    """Validate ordered pairs: each exactly two non-empty words (stripped)."""
    out: list[Pair] = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, str):
            raise RelationInputError(
                f"pair {i} is the single string {pair!r}: give two words, e.g. ('she', 'he')"
            )
        words = [str(w).strip() for w in pair]
        if len(words) != 2:
            raise RelationInputError(
                f"pair {i} {tuple(pair)!r} has {len(words)} word(s): a pair needs exactly "
                "two (first, second), e.g. ('she', 'he')"
            )
        if not all(words):
            raise RelationInputError(
                f"pair {i} {tuple(pair)!r} has an empty word: fill it in or remove the pair"
            )
        out.append((words[0], words[1]))
    return tuple(out)


def clean_word_groups(
    words: Iterable[str] | Mapping[str, Iterable[str]],
) -> tuple[tuple[str, str], ...]:
    """``(group, word)`` for a flat list (group ``"words"``) or a ``{group: words}`` mapping.

    Words are stripped; empty ones and repeats within a group are dropped.
    """
    if isinstance(words, str):
        raise RelationInputError(
            f"words must be a list of words, got the string {words!r}: use [{words!r}]"
        )
    groups = words.items() if isinstance(words, Mapping) else [(DEFAULT_GROUP, words)]
    out: list[tuple[str, str]] = []
    for group, items in groups:
        if isinstance(items, str):
            raise RelationInputError(
                f"group {group!r} must be a list of words, got the string {items!r}"
            )
        seen: set[str] = set()
        for item in items:
            word = str(item).strip()
            if word and word not in seen:
                seen.add(word)
                out.append((str(group), word))
    return tuple(out)


def mirrored_pair_notes(pairs: Sequence[Pair]) -> list[str]:
    """Pairs given in both orders: their differences cancel (d and -d), so they add nothing to the
    relation vector's direction and, if all pairs are mirrored, its sign is arbitrary."""
    seen = set(pairs)
    mirrored = [(a, b) for a, b in pairs if (b, a) in seen and a < b]
    if not mirrored:
        return []
    shown = ", ".join(f"({a!r}, {b!r})" for a, b in mirrored)
    return [
        f"pair(s) {shown} also given in the other order: their differences cancel (d and -d), so they "
        "carry no direction and the sign of b can be arbitrary; keep one order per pair (the order gives "
        "the direction, Ethayarajh et al. 2019)"
    ]
