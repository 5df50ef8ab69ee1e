"""The notes a likelihood result carries: pairs left out, ties, pairs whose outcome depends on batching,
pairs of two identical sentences, sense keys WordNet lacks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...metrics.likelihood import PairBiasScore
from .rows import PairRow

__all__ = ["BATCH_TOLERANCE", "run_notes"]

BATCH_TOLERANCE = 1e-5
"""Sentence scores agree to about this much across batch sizes and devices (float32 sums)."""


def _where(row: PairRow) -> str:
    return row.pair.pair_id or row.pair.source or row.pair.stereo[:40]


def _shown(names: Sequence[str]) -> str:
    return ", ".join(repr(s) for s in names[:5]) + (" ..." if len(names) > 5 else "")


def run_notes(rows: Sequence[PairRow], bias: PairBiasScore | None, n_sense_key_problems: int) -> list[str]:
    """Every note of a run over ``rows`` (scored or not) whose scored pairs gave ``bias``."""
    notes = _unscored_note(rows)
    if bias is not None and bias.n_ties:
        rounded = "" if bias.decimals is None else f" after rounding to {bias.decimals} decimals"
        notes.append(
            f"{bias.n_ties} tie(s) (equal scores{rounded}; 'neutral' in CrowS-Pairs' metric.py) "
            "count in N but never as preferring the more stereotypical sentence"
        )
    if bias is not None:
        notes.extend(_fragile_notes([r for r in rows if r.scores is not None], bias.decimals))
    same = [_where(r) for r in rows if " ".join(r.pair.stereo.split()) == " ".join(r.pair.anti.split())]
    if same:
        notes.append(
            f"{len(same)} pair(s) have two identical sentences ({_shown(same)}): they can only tie; "
            "a pair must differ in its group term"
        )
    if n_sense_key_problems:
        notes.append(f"{n_sense_key_problems} sense key(s) are not WordNet 3.0 keys (see sense_key_problems)")
    return notes


def _unscored_note(rows: Sequence[PairRow]) -> list[str]:
    """Name each pair left out (index, id or file line) and why, e.g. its length against the model's limit."""
    errors = sum(r.scores is None for r in rows)
    if not errors:
        return []
    failed = [
        f"pair {i}{f' ({r.pair.pair_id or r.pair.source})' if r.pair.pair_id or r.pair.source else ''}: {r.error}"
        for i, r in enumerate(rows)
        if r.scores is None
    ]
    return [
        f"{errors} pair(s) could not be scored and are left out: "
        + "; ".join(failed[:3])
        + (f"; ... ({errors - 3} more: see each row's error)" if errors > 3 else "")
    ]


def _fragile_notes(rows: Sequence[PairRow], decimals: int | None) -> list[str]:
    """A note naming pairs whose outcome could change within the batch-size tolerance.

    Sentence scores agree across batch sizes to about :data:`BATCH_TOLERANCE`.
    Moving each score by up to that much, the (rounded) difference ranges from
    ``round(s - tol) - round(a + tol)`` to ``round(s + tol) - round(a - tol)``
    (rounding is monotone); when those two have different signs the pair could
    be preferred, tied or reversed in another batching.
    """
    tol = BATCH_TOLERANCE

    def rnd(v: float) -> float:
        return float(v if decimals is None else np.round(v, decimals))

    fragile = []
    for row in rows:
        s, a = row.scores.stereo.score, row.scores.anti.score
        low, high = rnd(s - tol) - rnd(a + tol), rnd(s + tol) - rnd(a - tol)
        if np.sign(low) != np.sign(high):
            fragile.append(_where(row))
    if not fragile:
        return []
    how = "" if decimals is None else f" after rounding to {decimals} decimals"
    return [
        f"{len(fragile)} pair(s) could be preferred, tied or reversed{how} if their scores moved by "
        f"{tol:g}, the batch-size tolerance ({_shown(fragile)}): their outcome can depend on batch size or device"
    ]
