"""Batches of equal-length sequences under a token budget (no padding, so no row depends on its batch)."""

from __future__ import annotations

from collections.abc import Sequence


def pack_by_length(lengths: Sequence[int], token_budget: int) -> list[list[int]]:
    """Indices grouped into batches of equal length with ``rows * length <= token_budget``.

    Equal lengths mean no padding, so a row's result does not depend on which
    other rows share its batch; a sequence longer than the budget gets a batch
    of its own. Batches are in order of length, then of index.
    """
    if token_budget < 1:
        raise ValueError(f"`token_budget` must be a positive number of tokens, got {token_budget}")
    by_length: dict[int, list[int]] = {}
    for index, length in enumerate(lengths):
        by_length.setdefault(int(length), []).append(index)
    batches = []
    for length in sorted(by_length):
        rows = max(1, token_budget // max(length, 1))
        members = by_length[length]
        batches.extend(members[i : i + rows] for i in range(0, len(members), rows))
    return batches
