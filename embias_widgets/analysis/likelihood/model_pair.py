"""Two models' results on the same pairs: per pair, which sentence each prefers and whether they disagree, and the
paired change of the pair bias score (McNemar's exact test on the discordant pairs, a paired bootstrap interval;
:func:`~embias_widgets.metrics.paired.pair_score_change`). What the paired-likelihood table shows when it holds a
baseline model beside its own."""

from __future__ import annotations

from typing import Any

from ...metrics.paired import pair_score_change
from ...metrics.score_intervals import DEFAULT_LEVEL
from .result import PairedLikelihoodResult
from .rows import rounded_preference

__all__ = ["model_disagreements"]

_SIDE = {1: "stereo", -1: "anti", 0: "tie"}


def model_disagreements(result: PairedLikelihoodResult, baseline: PairedLikelihoodResult, *,
                        level: float = DEFAULT_LEVEL, n_resamples: int = 2_000, seed: int = 0) -> dict[str, Any]:
    """``{"baseline_model", "model", "rows", "n_pairs", "n_disagree", "change"}``: per row index of ``result``
    (the pair at the same index in ``baseline``, which must hold the same pairs) the baseline's preferred side
    after its metric's rounding and whether it differs from ``result``'s (``rows``: ``{index: {"preferred",
    "disagrees"}}``, unscored pairs left out); ``change``: the paired change of the pair bias score from the
    baseline to ``result`` over the pairs both scored (:meth:`~embias_widgets.metrics.paired.PairedChange.to_dict`),
    None when no pair was scored by both. The pairs are compared at the level of items: each model's own
    preference, so two tokenizers or metrics compare fairly."""
    if len(result.rows) != len(baseline.rows) or any(
            (a.pair.stereo, a.pair.anti) != (b.pair.stereo, b.pair.anti)
            for a, b in zip(result.rows, baseline.rows, strict=True)):
        raise ValueError("the two results must hold the same pairs in the same order: score the baseline model on "
                         "the table's pairs")
    rows: dict[int, dict[str, Any]] = {}
    before, after = [], []
    for i, (a, b) in enumerate(zip(result.rows, baseline.rows, strict=True)):
        pa, pb = rounded_preference(a, result.decimals), rounded_preference(b, baseline.decimals)
        if pa is None or pb is None:
            continue
        rows[i] = {"preferred": _SIDE[pb], "disagrees": pa != pb}
        before.append(pb == 1)
        after.append(pa == 1)
    change = None
    if before:
        reference = 0.0 if result.convention == "zhou" else 50.0
        change = pair_score_change(before, after, reference=reference, level=level, n_resamples=n_resamples,
                                   rng=seed).to_dict()
    return {"baseline_model": baseline.model, "model": result.model, "rows": rows, "n_pairs": len(rows),
            "n_disagree": sum(r["disagrees"] for r in rows.values()), "change": change}
