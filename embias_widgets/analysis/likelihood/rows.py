"""One scored pair (:class:`PairRow`) and the records made of it: the JSON item of ``embias pll`` and the
row the paired-likelihood table draws (tokens with their log-probabilities and heat shades)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...models.language_models.scoring import PairScores, TokenScores
from ...stimuli.pairs import SentencePair
from .pair_checks import minimal_edit_warning

__all__ = ["NAMINGS", "PairRow", "item_record", "rounded_preference", "shade_scale", "table_row"]

NAMINGS = ("stereo", "crows")
"""How an item names its sentences: ``stereo``/``anti`` or CrowS-Pairs' ``sent_more``/``sent_less``."""


@dataclass(frozen=True)
class PairRow:
    """One pair and its scores, or why it could not be scored."""

    pair: SentencePair
    scores: PairScores | None
    error: str | None = None
    unrelated_wins: tuple[bool, bool] | None = None  # (stereo > unrelated, anti > unrelated)

    @property
    def difference(self) -> float | None:
        """``score(stereo) - score(anti)``, ``None`` when unscored."""
        return None if self.scores is None else self.scores.difference

    @property
    def preferred(self) -> str | None:
        """``"stereo"``, ``"anti"`` or ``"tie"`` (exact scores), ``None`` when unscored."""
        return None if self.scores is None else self.scores.preferred


def rounded_preference(row: PairRow, decimals: int | None) -> int | None:
    """``sign(score(stereo) - score(anti))`` after rounding both to ``decimals`` (CrowS-Pairs' ``metric.py``)."""
    if row.scores is None:
        return None
    s, a = row.scores.stereo.score, row.scores.anti.score
    if decimals is not None:
        s, a = round(s, decimals), round(a, decimals)
    return 1 if s > a else -1 if s < a else 0


def item_record(row: PairRow, naming: str, decimals: int | None) -> dict[str, Any]:
    """One JSON-ready record of a pair: CrowS naming (``sent_more_score``) or stereo/anti."""
    p, sc = row.pair, row.scores
    item: dict[str, Any] = {"bias_type": p.bias_type}
    if p.pair_id:
        item["pair_id"] = p.pair_id
    if p.sense_key:
        item["sense_key"] = p.sense_key
    if naming == "crows":  # sent_more is the more stereotypical sentence in both directions
        item.update(sent_more=p.sent_more, sent_less=p.sent_less, stereo_antistereo=p.direction)
        if sc is not None:
            item.update(sent_more_score=sc.stereo.score, sent_less_score=sc.anti.score)
    else:
        item.update(stereo=p.stereo, anti=p.anti, direction=p.direction)
        if sc is not None:
            item.update(stereo_score=sc.stereo.score, anti_score=sc.anti.score)
    if sc is not None:
        item.update(difference=sc.difference, preferred=sc.preferred, score=int(rounded_preference(row, decimals) == 1))
    if p.unrelated is not None:
        item["unrelated"] = p.unrelated
        if row.unrelated_wins is not None:
            item["stereo_beats_unrelated"], item["anti_beats_unrelated"] = row.unrelated_wins
    if row.error:
        item["error"] = row.error
    return item


def shade_scale(rows: Sequence[PairRow]) -> float:
    """The largest ``-log P`` of any scored token: the log-probability drawn with the darkest shade."""
    worst = 0.0
    for row in rows:
        if row.scores is None:
            continue
        for side in (row.scores.stereo, row.scores.anti):
            values = [-v for v in side.log_probs if not math.isnan(v)]
            worst = max(worst, *values, 0.0)
    return max(worst, 1e-9)


def _side(scores: TokenScores, scale: float) -> dict[str, Any]:
    tokens = scores.token_rows()
    for tok in tokens:
        lp = tok["log_prob"]
        tok["shade"] = None if lp is None else min(1.0, max(0.0, -lp / scale))
    return {"text": scores.text, "score": scores.score, "tokens": tokens}


def table_row(index: int, row: PairRow, scale: float) -> dict[str, Any]:
    """What the table draws for one pair: per token log P and a heat shade in [0, 1] (1 = least likely,
    ``-log P / scale``), the sentence scores, their difference, the preferred side, a minimal-edit warning."""
    item: dict[str, Any] = {
        "index": index,
        "bias_type": row.pair.bias_type or "(none)",
        "sense_key": row.pair.sense_key,
        "direction": row.pair.direction,
        "error": row.error or "",
        "warning": minimal_edit_warning(row.pair.stereo, row.pair.anti),
    }
    if row.scores is None:
        item.update(
            stereo={"text": row.pair.stereo, "score": None, "tokens": []},
            anti={"text": row.pair.anti, "score": None, "tokens": []},
            difference=None,
            preferred="",
        )
    else:
        item.update(
            stereo=_side(row.scores.stereo, scale),
            anti=_side(row.scores.anti, scale),
            difference=row.scores.difference,
            preferred=row.scores.preferred,
        )
    return item
