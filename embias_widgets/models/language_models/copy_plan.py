"""PLL's masked copies as arrays: which sentence and position each copy masks, its batch, and its ids.

PLL (Salazar et al. 2020) scores token ``t`` of sentence ``S`` on a copy of ``S`` with ``t`` masked; a copy is
named by its sentence's ids and ``(position,)`` or, for PLL-word-l2r (Kauf & Ivanova 2023), ``(position, also
masked)``. :class:`CopyPlan` reads the copies still to compute, grouped by sentence, once into arrays (each
copy's sentence, position and width, each distinct sentence's ids in one padded matrix per width), packs
equal-width batches under a token budget (:func:`~.batching.pack_lengths`, the batches of
:func:`~.batching.pack_by_length`), and builds each batch's ids from its distinct sentences with array
operations: converting each copy's row from Python cost a tenth of a no-cost model's PLL run, finding its
sentence again with ``torch.unique`` another tenth, and hashing each copy's id tuple (a key per copy) a tenth.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from .batching import host_to, pack_lengths


class Copies(NamedTuple):
    """A batch of masked copies before masking: ``ids[r] == sentences[index[r]]``."""

    ids: Any  # (copies, width)
    mask: Any  # (copies, width) attention mask, or None when every row fills the width
    sentences: Any  # (distinct sentences, width), each once, in order of first appearance
    index: Any  # (copies,): each copy's row of ``sentences``
    positions: Any  # (copies,): the position each copy masks (its target)
    also: Any  # (2, n): (row, position) of every further masked token (PLL-word-l2r), or None


def copy_key(position: int, also: Sequence[int]) -> tuple:
    """A masked copy's key within its sentence: ``(position,)``, or ``(position, also masked)`` when the copy
    masks more (a PLL-word-l2r copy that masks one token is PLL's copy, computed once)."""
    return (position, tuple(int(j) for j in also)) if len(also) else (position,)


class CopyPlan:
    """The copies of ``groups`` (``(ids, copies)`` per sentence, each copy ``(position,)`` or ``(position, also
    masked)``), numbered in that order, in equal-width batches of at most ``budget`` tokens.

    ``pad_to``: widths rounded up to multiples of it (length buckets, rows padded with ``pad_id`` and an
    attention mask); None: exact lengths. ``batches``: arrays of copy numbers, ascending in a batch.
    """

    def __init__(self, groups: list[tuple[tuple[int, ...], list[tuple]]], *, budget: int,
                 pad_to: int | None = None, pad_id: int = 0) -> None:
        texts = [ids for ids, _ in groups]
        counts = np.fromiter((len(rest) for _, rest in groups), np.int64, len(groups))
        self.groups = groups
        self.sentence = np.repeat(np.arange(len(groups)), counts)  # non-decreasing: a batch's sentences in order
        n = int(counts.sum())
        copies = [r for _, rest in groups for r in rest]
        self.position = np.fromiter(map(itemgetter(0), copies), np.int64, n)
        longer = np.flatnonzero(np.fromiter(map(len, copies), np.int64, n) > 1).tolist()  # PLL-word-l2r's
        self._also = np.array([(k, j) for k in longer for j in copies[k][1]], dtype=np.int64).reshape(-1, 2)
        lengths = np.fromiter(map(len, texts), np.int64, len(texts))
        widths = lengths if not pad_to else -(-lengths // pad_to) * pad_to
        self.width = widths[self.sentence]
        self.batches = pack_lengths(self.width, budget)
        self._row = np.empty(len(texts), dtype=np.int64)  # each sentence's row in its width's matrix
        self._ids: dict[int, np.ndarray] = {}
        self._filled: dict[int, np.ndarray] = {}
        for width in np.unique(widths).tolist():
            members = np.flatnonzero(widths == width)
            self._row[members] = np.arange(len(members))
            filled = np.arange(width)[None, :] < lengths[members][:, None]
            ids = np.full((len(members), width), pad_id, dtype=np.int64)
            ids[filled] = np.fromiter(chain.from_iterable(texts[s] for s in members.tolist()), np.int64,
                                      int(lengths[members].sum()))
            self._ids[width], self._filled[width] = ids, filled

    def copies(self, torch: Any, batch: np.ndarray, device: Any) -> Copies:
        """The batch's :class:`Copies` on ``device``: its distinct sentences go over, the copies are made there."""
        width = int(self.width[batch[0]])
        sentence = self.sentence[batch]  # non-decreasing: each distinct sentence is one run
        new = np.empty(len(batch), dtype=bool)
        new[0], new[1:] = True, sentence[1:] != sentence[:-1]
        distinct, inverse = sentence[new], np.cumsum(new) - 1
        rows = self._row[distinct]
        index = host_to(torch, torch.from_numpy(inverse), device)
        sentences = host_to(torch, torch.from_numpy(self._ids[width][rows]), device)
        ids = sentences.index_select(0, index)
        filled = self._filled[width][rows]
        mask = None
        if not bool(filled.all()):
            mask = host_to(torch, torch.from_numpy(filled.astype(np.int64)), device).index_select(0, index)
        positions = host_to(torch, torch.from_numpy(self.position[batch]), device)
        also = None
        if len(self._also):
            here = np.isin(self._also[:, 0], batch)
            if here.any():
                pairs = self._also[here]
                pairs[:, 0] = np.searchsorted(batch, pairs[:, 0])  # key index -> row of the batch
                also = host_to(torch, torch.from_numpy(np.ascontiguousarray(pairs.T)), device)
        return Copies(ids, mask, sentences, index, positions, also)
