"""Token ids of a template probe's pairs built from each sentence part tokenised once.

A probe of Dev et al. (2020) is premise words x hypothesis words x templates; a pair's premise is a subject
part and a template's tail (``"A driver"`` + ``" bought a phone ."``), its hypothesis another subject part and
the same tail (:class:`~embias_widgets.stimuli.nli_probes.PairParts`). Tokenising every pair costs more than a
small model's forward pass, and the gender-occupation probe's 1.9 million pairs have 168 subject parts and
1,968 tails. :class:`PairTokens` tokenises each part once (``add_special_tokens=False``) and assembles the
cross-encoder's input ``prefix + first + tail + middle + second + tail + suffix`` (BERT: ``[CLS] a [SEP] b
[SEP]``, token types 0 then 1; RoBERTa: ``<s> a </s></s> b </s>``), the special tokens and types read off the
tokenizer's own encoding of one pair. Where a tokenizer does not compose so (a SentencePiece model that marks
a word's start differently at the start of a text), the assembled ids are compared with the tokenizer's own for
every subject part and a spread of tails before use, and the caller tokenises whole pairs instead.

Assembly is vectorised: each pair is 7 segments of a pool of token ids; a batch's ``(rows, length)`` ids are one
``np.repeat`` of segment offsets plus a running index (a ragged gather), no Python loop over pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: How many pairs the one-time check per probe compares with the tokenizer's own encoding (every subject
#: part, then tails spread over the templates).
CHECK_PAIRS = 256


class PairTokens:
    """Each sentence part tokenised once; pairs assembled from the pieces (see the module docstring)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self._ids: dict[str, np.ndarray] = {}
        self._layout: tuple[list[int], list[int], list[int], np.ndarray] | None = None
        self._pools: dict[tuple, Any] = {}

    def pieces(self, texts: Any) -> list[np.ndarray]:
        """Token ids (no special tokens) of each text, each distinct text tokenised once."""
        new = [t for t in dict.fromkeys(texts) if t not in self._ids]
        if new:
            for text, ids in zip(new, self.tokenizer(new, add_special_tokens=False)["input_ids"], strict=True):
                self._ids[text] = np.asarray(ids, dtype=np.int64)
        return [self._ids[t] for t in texts]

    def _encode(self, premises: list[str], hypotheses: list[str]) -> tuple[list[list[int]], list[list[int]] | None]:
        enc = self.tokenizer(premises, hypotheses, add_special_tokens=True, truncation=False,
                             return_token_type_ids=True)
        return enc["input_ids"], enc.get("token_type_ids")

    def layout(self, premise: str, hypothesis: str) -> tuple[list[int], list[int], list[int], np.ndarray] | None:
        """``(prefix, middle, suffix, types of the 7 segments)`` read off the tokenizer's encoding of one pair,
        or None where its ids are not ``prefix + a + middle + b + suffix`` with one token type per segment."""
        if self._layout is None:
            self._layout = self._read_layout(premise, hypothesis) or ([], [], [], np.zeros(0, dtype=np.int64))
        return self._layout if len(self._layout[3]) else None

    def _read_layout(self, premise: str, hypothesis: str) -> tuple[list[int], list[int], list[int], np.ndarray] | None:
        ids, types = self._encode([premise], [hypothesis])
        row, a, b = list(ids[0]), *(p.tolist() for p in self.pieces([premise, hypothesis]))
        i = next((k for k in range(len(row) - len(a) + 1) if row[k : k + len(a)] == a), None)
        if i is None or not a or not b:
            return None
        j = next((k for k in range(i + len(a), len(row) - len(b) + 1) if row[k : k + len(b)] == b), None)
        if j is None:
            return None
        type_row = list(types[0]) if types is not None else [0] * len(row)
        spans = ((0, i), (i, i + len(a)), (i + len(a), j), (j, j + len(b)), (j + len(b), len(row)))
        found = [set(type_row[lo:hi]) or {0} for lo, hi in spans]
        if any(len(v) != 1 for v in found):
            return None
        prefix_t, a_t, middle_t, b_t, suffix_t = (v.pop() for v in found)
        seg_types = np.array([prefix_t, a_t, a_t, middle_t, b_t, b_t, suffix_t], dtype=np.int64)
        return row[:i], row[i + len(a) : j], row[j + len(b) :], seg_types

    def _pool(self, parts: Any) -> Any:
        """``(pool ids, pool types per entry, offsets, lengths, entry base indices)`` of a probe's parts, checked
        against the tokenizer once; None where the pieces do not compose."""
        key = (parts.first, parts.second, parts.tails)
        if key in self._pools:
            return self._pools[key]
        layout = self.layout(parts.first[0] + parts.tails[0], parts.second[0] + parts.tails[0])
        pool = None
        if layout is not None:
            prefix, middle, suffix, _ = layout
            entries = [np.asarray(x, dtype=np.int64) for x in (prefix, middle, suffix)]
            entries += self.pieces(parts.first) + self.pieces(parts.second) + self.pieces(parts.tails)
            lengths = np.array([len(e) for e in entries], dtype=np.int64)
            offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
            base = np.array([3, 3 + len(parts.first), 3 + len(parts.first) + len(parts.second)], dtype=np.int64)
            pool = (np.concatenate(entries), offsets, lengths, base)
            if not self._composes(parts, pool):
                pool = None
        self._pools[key] = pool
        return pool

    def _sample(self, parts: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pairs covering every subject part, then tails spread over the templates."""
        n_f, n_s, n_t = len(parts.first), len(parts.second), len(parts.tails)
        n = max(n_f, n_s, min(CHECK_PAIRS, n_t))
        k = np.arange(n, dtype=np.int64)
        return k % n_f, k % n_s, (k * max(1, n_t // max(1, min(n, n_t)))) % n_t

    def _composes(self, parts: Any, pool: Any) -> bool:
        p, h, t = self._sample(parts)
        premises = [parts.first[i] + parts.tails[j] for i, j in zip(p.tolist(), t.tolist(), strict=True)]
        hypotheses = [parts.second[i] + parts.tails[j] for i, j in zip(h.tolist(), t.tolist(), strict=True)]
        want_ids, want_types = self._encode(premises, hypotheses)
        segments = self._segments(pool, p, h, t)
        for k, row in enumerate(want_ids):
            ids, types = self._rows(pool, segments, np.array([k]))
            if ids[0].tolist() != list(row):
                return False
            if want_types is not None and types[0].tolist() != list(want_types[k]):
                return False
        return True

    def _segments(self, pool: Any, p: np.ndarray, h: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per pair, the 7 segments' pool offsets and lengths, ``(n, 7)`` each."""
        _, offsets, lengths, base = pool
        zeros = np.zeros_like(p)
        entry = np.stack([zeros, base[0] + p, base[2] + t, zeros + 1, base[1] + h, base[2] + t, zeros + 2], axis=1)
        return offsets[entry], lengths[entry]

    def _rows(self, pool: Any, segments: tuple[np.ndarray, np.ndarray], rows: np.ndarray, width: int | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, types)`` of ``rows``, each ``(len(rows), width)`` int64: a ragged gather; rows shorter than
        ``width`` are padded at the end (:func:`pad_rows`), rows of one length need no ``width``."""
        ids_pool = pool[0]
        off, lens = segments[0][rows].ravel(), segments[1][rows].ravel()
        total = int(lens.sum())
        starts = np.cumsum(lens) - lens
        index = np.repeat(off - starts, lens) + np.arange(total, dtype=np.int64)
        types = np.repeat(np.tile(self._layout[3], len(rows)), lens)
        row_lengths = segments[1][rows].sum(axis=1)
        if width is None or bool((row_lengths == width).all()):
            return ids_pool[index].reshape(len(rows), -1), types.reshape(len(rows), -1)
        return pad_rows(ids_pool[index], types, row_lengths, width, self.pad_id)

    @property
    def pad_id(self) -> int:
        return int(getattr(self.tokenizer, "pad_token_id", None) or 0)

    def assemble(self, parts: Any) -> Any:
        """``(lengths (n,), rows_of(index array) -> (ids, types))`` for the pairs of ``parts``, or None where this
        tokenizer's pieces do not compose into its own pair encoding (then tokenise whole pairs)."""
        pool = self._pool(parts)
        if pool is None:
            return None
        segments = self._segments(pool, parts.p, parts.h, parts.t)
        lengths = segments[1].sum(axis=1)
        return lengths, lambda rows, width=None: self._rows(pool, segments, rows, width)


def pad_rows(ids: np.ndarray, types: np.ndarray, lengths: np.ndarray, width: int, pad_id: int
             ) -> tuple[np.ndarray, np.ndarray]:
    """Rows given flat (``ids``, ``types``: the rows' tokens one after the other, row ``r`` ``lengths[r]`` long)
    as ``(rows, width)`` matrices, each row padded at the end with ``pad_id`` (type 0)."""
    n, total = len(lengths), int(np.sum(lengths))
    rows = np.repeat(np.arange(n), lengths)
    cols = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    out_ids, out_types = np.full((n, width), pad_id, dtype=np.int64), np.zeros((n, width), dtype=np.int64)
    out_ids[rows, cols], out_types[rows, cols] = ids, types
    return out_ids, out_types
