"""Batches of equal-length sequences under a token budget (no padding, so no row depends on its batch), and
host-to-device copies that do not wait (PLL's masked copies: :mod:`.copy_plan`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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


def equal_parts(count: int, most: int) -> int:
    """The size of the equal parts that split ``count`` items into as few parts of at most ``most`` as possible
    (600 rows with at most 384: 2 x 300, not 384 + 216); 1 when there are none."""
    if count < 1:
        return 1
    return -(-count // -(-count // max(1, most)))


def host_to(torch: Any, tensor: Any, device: Any) -> Any:
    """``tensor`` (on the host) on ``device``; to a GPU from pinned memory without waiting. A plain ``.to("cuda")``
    from pageable memory waits for the stream, that is for every batch queued before it, so the host could not
    build the next batch while the GPU ran this one (a third of a bfloat16 PLL run on an H100)."""
    if torch.device(device).type != "cuda":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)


def check_pad_to(pad_to: Any, tokenizer: Any) -> int | None:
    """A scorer's ``pad_to`` (a positive number of tokens; None or 1: exact-length batches), else ValueError;
    padding needs the tokenizer's pad token."""
    if pad_to is None:
        return None
    if isinstance(pad_to, bool) or not isinstance(pad_to, int | np.integer) or pad_to < 1:
        raise ValueError(f"`pad_to` must be a positive number of tokens, got {pad_to!r}")
    if pad_to == 1:
        return None
    if getattr(tokenizer, "pad_token_id", None) is None:
        raise ValueError("`pad_to` pads batches, but this tokenizer has no pad token: leave pad_to out")
    return int(pad_to)
