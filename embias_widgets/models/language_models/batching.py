"""Batches of equal-length sequences under a token budget (no padding, so no row depends on its batch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


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


def pack_lengths(lengths: np.ndarray, token_budget: int) -> list[np.ndarray]:
    """:func:`pack_by_length` vectorised: the same batches (index arrays), for an array of lengths."""
    if token_budget < 1:
        raise ValueError(f"`token_budget` must be a positive number of tokens, got {token_budget}")
    lengths = np.asarray(lengths, dtype=np.int64)
    if not len(lengths):
        return []
    order = np.argsort(lengths, kind="stable")  # by length, then by index
    ordered = lengths[order]
    edges = np.flatnonzero(np.diff(ordered)) + 1
    batches = []
    for lo, hi in zip(np.concatenate([[0], edges]).tolist(), np.concatenate([edges, [len(order)]]).tolist(),
                      strict=True):
        rows = max(1, token_budget // max(int(ordered[lo]), 1))
        batches.extend(order[i : min(i + rows, hi)] for i in range(lo, hi, rows))
    return batches
