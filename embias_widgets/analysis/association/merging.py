"""Items the model maps to one vector (``"rose"`` and ``"Rose"`` under a lowercasing model): one item.

Counting both would weigh one vector twice in s(w, A, B), d and p; the first spelling is kept and the
others are recorded (:class:`MergedItems`) so that the editor and the notes can say so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MergedItems:
    """Items of one set that the model maps to one vector (e.g. "rose" and "Rose" under a
    lowercasing model): counted once, as ``item``; ``same_as`` were merged into it."""

    set: str
    item: str
    same_as: tuple[str, ...]

    def message(self) -> str:
        """The note: which items were counted once."""
        others = ", ".join(repr(s) for s in self.same_as)
        return f"{self.set}: {others} and {self.item!r} are one item to the model (same vector); counted once"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``{"set", "item", "same_as"}``."""
        return {"set": self.set, "item": self.item, "same_as": list(self.same_as)}


def merge_same_vectors(
    key: str, items: Sequence[str], vectors: Mapping[str, np.ndarray]
) -> tuple[tuple[str, ...], tuple[MergedItems, ...]]:
    """``items`` with identical vectors kept once (the first), and what was merged into each kept item."""
    first: dict[bytes, str] = {}
    merged: dict[str, list[str]] = {}
    kept = []
    for item in items:
        fingerprint = np.ascontiguousarray(vectors[item]).tobytes()
        if fingerprint in first:
            merged.setdefault(first[fingerprint], []).append(item)
            continue
        first[fingerprint] = item
        kept.append(item)
    return tuple(kept), tuple(MergedItems(key, item, tuple(same)) for item, same in merged.items())
