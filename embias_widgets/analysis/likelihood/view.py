"""What the paired-likelihood table shows of a result: which rows in which order (filter, sort, group) and
the summary bar's numbers for those rows. Computed here, so that the widget only copies them to its traits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...metrics.likelihood import CONVENTION_LABELS, CONVENTIONS, StereoSetScore, pair_bias_score
from ...models.language_models.scoring import METRIC_LABELS
from .groups import GROUPINGS, group_of, group_scores
from .intervals import group_test, stereoset_record
from .rows import PairRow, shade_scale

__all__ = ["SORTS", "TableView", "table_view"]

SORTS = ("input", "difference", "-difference", "abs")
"""Row orders: as typed, difference high first, low first, largest ``|difference|`` first."""


@dataclass(frozen=True)
class TableView:
    """``order``: indices of the rows to show (scored rows sorted, then the failed ones; grouped when asked);
    ``summary``: the bias score of the shown scored rows, its reference line, labels and every group's score."""

    order: tuple[int, ...]
    summary: dict[str, Any] = field(default_factory=dict)


def _order(rows: Sequence[PairRow], shown: list[int], sort_by: str, group_by: str) -> tuple[list[int], list[int]]:
    scored = [i for i in shown if rows[i].scores is not None]
    failed = [i for i in shown if rows[i].scores is None]
    if sort_by != "input":
        key = {
            "difference": lambda i: -rows[i].difference,
            "-difference": lambda i: rows[i].difference,
            "abs": lambda i: -abs(rows[i].difference),
        }[sort_by]
        scored = sorted(scored, key=key)
    order = scored + failed
    if group_by:  # stable: groups in first-seen order, the chosen sort inside each
        first_seen: dict[str, int] = {}
        for row in rows:
            first_seen.setdefault(group_of(row, group_by), len(first_seen))
        order = sorted(order, key=lambda i: first_seen[group_of(rows[i], group_by)])
    return order, scored


def table_view(
    rows: Sequence[PairRow],
    *,
    metric: str,
    convention: str,
    decimals: int | None,
    notes: Sequence[str] = (),
    stereoset: StereoSetScore | None = None,
    bias_type: str = "",
    sort_by: str = "input",
    group_by: str = "",
) -> TableView:
    """The rows of ``bias_type`` ("" = all) in ``sort_by`` order, grouped by ``group_by``, and their summary:
    the pair bias score of the shown scored rows (:func:`~embias_widgets.metrics.likelihood.pair_bias_score`)
    and, with ``group_by``, every group's (:func:`~.groups.group_scores`)."""
    if sort_by not in SORTS:
        raise ValueError(f"`sort_by` must be one of {SORTS}, got {sort_by!r}")
    if group_by not in GROUPINGS:
        raise ValueError(f"`group_by` must be one of {sorted(GROUPINGS)}, got {group_by!r}")
    shown = [i for i, r in enumerate(rows) if not bias_type or (r.pair.bias_type or "(none)") == bias_type]
    order, scored = _order(rows, shown, sort_by, group_by)
    chosen = [rows[i] for i in scored]
    reference = CONVENTIONS[convention]
    summary: dict[str, Any] = {
        "metric": metric,
        "metric_label": METRIC_LABELS[metric],
        "convention": convention,
        "convention_label": CONVENTION_LABELS[convention],
        "reference": reference,
        "axis": [reference - 50.0, reference + 50.0],
        "group": bias_type or "all pairs",
        "notes": list(notes),
        "shade_scale": shade_scale(rows),
        "group_by": group_by,
        "group_by_label": GROUPINGS.get(group_by, ""),
        "groups": group_scores(chosen, group_by, metric=metric, convention=convention, decimals=decimals)
        if group_by
        else [],
    }
    summary.update(_score_of(chosen, convention, decimals))
    if stereoset is not None and not bias_type and chosen:
        summary["stereoset"] = stereoset_record(stereoset, by_type=False)  # with target bootstrap intervals
    return TableView(tuple(order), summary)


def _score_of(rows: Sequence[PairRow], convention: str, decimals: int | None) -> dict[str, Any]:
    """The pair bias score of ``rows`` with CrowS-Pairs' per-direction sub-scores."""
    if not rows:
        return {"score": None, "n": 0, "n_stereo_preferred": 0, "n_ties": 0}
    bias = pair_bias_score(
        [r.scores.stereo.score for r in rows],
        [r.scores.anti.score for r in rows],
        directions=[r.pair.direction for r in rows],
        convention=convention,
        decimals=decimals,
    )
    return {
        "score": bias.score,
        # score_interval (Wilson of k/n), percent_of_decided (+ interval), n_decided, p_value (sign test), its method
        **group_test(bias, convention),
        "percent_stereo": bias.percent_stereo,
        "n": bias.n,
        "n_stereo_preferred": bias.n_stereo_preferred,
        "n_ties": bias.n_ties,
        "decimals": bias.decimals,
        "by_direction": {
            k: {"percent_of_decided": g.percent_of_decided, "n": g.n, "n_ties": g.n_ties, "p_value": g.p_value}
            for k, g in bias.by_direction.items()
        },
    }
