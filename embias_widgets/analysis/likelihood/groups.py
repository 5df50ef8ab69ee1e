"""The pair bias score of every group of pairs (a bias or sense type, or a sense key), with each group's
unpaired mean sentence scores: the numbers of a grouped table and of a per-group summary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...metrics.likelihood import CONVENTIONS, pair_bias_score
from ...metrics.likelihood.pair_intervals import pair_score_test
from .rows import PairRow
from .senses import sense_note

__all__ = ["GROUPINGS", "group_of", "group_scores"]

GROUPINGS = {"": "no grouping", "bias_type": "bias type / sense type", "sense_key": "sense key"}
"""How rows and the summary can be grouped (SSSB files carry the sense type in ``bias_type``)."""


def group_of(row: PairRow, group_by: str) -> str:
    """The group a row belongs to: its bias (sense) type or its sense key, ``(none)`` when blank."""
    if group_by == "sense_key":
        return row.pair.sense_key or "(none)"
    return row.pair.bias_type or "(none)"


def group_scores(
    rows: Sequence[PairRow], group_by: str, *, metric: str, convention: str, decimals: int | None
) -> list[dict[str, Any]]:
    """The pair bias score of every group of the scored ``rows`` (by bias/sense type or by sense key).

    Each group's score is the pair bias score of its pairs (Zhou, Kaneko & Bollegala 2022, eq. 6, in
    ``convention``) with its Wilson interval, the share of its decided pairs with theirs and the sign test of
    the decided pairs (:func:`~embias_widgets.metrics.likelihood.pair_intervals.pair_score_test`). Beside it,
    ``mean_stereo``/``mean_anti``: the mean score of the group's distinct
    stereotypical and anti-stereotypical sentences (PLL, AUL, AULA; ``None`` for CPS, whose sentence score
    depends on the partner sentence), a comparison that needs no pairing (SSSB's nationality and race
    sentences are not balanced minimal pairs, so pairs are formed by a rule; see
    :func:`~embias_widgets.stimuli.pairs.sssb_pairs`).
    """
    rows = [r for r in rows if r.scores is not None]
    if not rows:
        return []
    labels = [group_of(r, group_by) for r in rows]
    bias = pair_bias_score(
        [r.scores.stereo.score for r in rows],
        [r.scores.anti.score for r in rows],
        bias_types=labels,
        convention=convention,
        decimals=decimals,
    )
    out = []
    for name, g in bias.by_bias_type.items():
        members = [r for r, label in zip(rows, labels, strict=True) if label == name]
        out.append(
            {
                "name": name,
                "score": g.score,
                **pair_score_test(g.n_stereo_preferred, g.n, g.n_ties, reference=CONVENTIONS[convention]),
                "percent_stereo": g.percent_stereo,
                "n": g.n,
                "n_stereo_preferred": g.n_stereo_preferred,
                "n_ties": g.n_ties,
                **_sentence_means(members, metric),
                **_about(members, name, group_by),
            }
        )
    return out


def _sentence_means(members: Sequence[PairRow], metric: str) -> dict[str, Any]:
    """Mean score of the distinct stereo and anti sentences of a group (``None`` for CPS)."""
    stereo = {r.pair.stereo: r.scores.stereo.score for r in members}
    anti = {r.pair.anti: r.scores.anti.score for r in members}
    # CPS scores a sentence on the tokens it shares with its partner: no partner-free sentence score
    unpaired = metric != "cps"
    return {
        "mean_stereo": sum(stereo.values()) / len(stereo) if unpaired else None,
        "mean_anti": sum(anti.values()) / len(anti) if unpaired else None,
        "n_stereo_sentences": len(stereo),
        "n_anti_sentences": len(anti),
    }


def _about(members: Sequence[PairRow], name: str, group_by: str) -> dict[str, Any]:
    """A sense key's gloss (or why there is none); a type's sense keys."""
    if group_by == "sense_key":
        gloss, problem = sense_note(name)
        return {"gloss": gloss, "problem": problem}
    return {"sense_keys": list(dict.fromkeys(r.pair.sense_key for r in members if r.pair.sense_key))}
