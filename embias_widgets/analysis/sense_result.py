"""The result of a :class:`~embias_widgets.analysis.senses.SenseAssociationTest`: the sense WEAT and its
word-level twins (Zhou, Kaneko & Bollegala 2022), with how every item was read and what was merged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..metrics import AssociationResult
from ..metrics.senses import MaxSenseResult
from ..palette import altair_scale
from .association import MergedItems

LEVELS = ("sense", "word_average", "word_max")
LEVEL_TITLES = {
    "sense": "senses as given",
    "word_average": "word (eq. 7 average of senses)",
    "word_max": "word (max over sense pairs)",
}


@dataclass(frozen=True)
class ResolvedItem:
    """How one item was read: a sense key, or a lemma with the keys it stands for."""

    item: str
    lemma: str
    keys: tuple[str, ...]  # one key for a key item; all the lemma's keys for a lemma item
    is_key: bool


@dataclass(frozen=True)
class SenseAssociationResult:
    """Sense WEAT and its word-level twins."""

    test: str
    model: str
    options: str
    senses: str
    categories: dict[str, str]
    items: dict[str, tuple[ResolvedItem, ...]]
    sense: MaxSenseResult | AssociationResult
    word_average: AssociationResult
    word_max: MaxSenseResult
    lemma_keys: dict[str, tuple[str, ...]]  # every lemma's sense keys, the rows of its word-level groups
    notes: tuple[str, ...]
    merged: tuple[MergedItems, ...] = field(default=())
    """Items of one set that share a lemma: one word at the word level, counted once there."""
    word_items: dict[str, tuple[ResolvedItem, ...]] | None = field(default=None)
    """The items of the word-level twins, one per lemma and set (``items`` when ``None``)."""

    def level_items(self, level: str) -> dict[str, tuple[ResolvedItem, ...]]:
        """The items behind the rows of ``level``: as given for ``"sense"``, one per lemma for the word levels."""
        return self.items if level == "sense" or self.word_items is None else self.word_items

    def core(self, level: str = "sense") -> AssociationResult:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
        res = getattr(self, level)
        return res.result if isinstance(res, MaxSenseResult) else res

    @property
    def effect_size(self) -> float | None:
        return self.core().effect_size

    @property
    def pvalue(self) -> float:
        return self.core().pvalue

    def summary(self) -> str:
        parts = []
        for level in LEVELS:
            d = self.core(level).effect_size
            parts.append(f"{level} d = {'undefined' if d is None else f'{d:+.3f}'} (p = {self.core(level).pvalue:.3g})")
        return f"{self.test} on {self.model}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: the sense result in the CLI's usual fields, the twins beside it."""
        core = self.core()
        out: dict[str, Any] = {
            "test": self.test,
            "model": self.model,
            "options": self.options,
            "effect_size": core.effect_size,
            "effect_size_note": core.effect_size_note,
            "p_value": core.pvalue,
            "statistic": core.statistic,
            "exact": core.exact,
            "method": core.method,
            "alternative": core.alternative,
            "n_permutations": core.n_permutations,
            "variant": core.variant,
            "ddof": core.ddof,
            **{f"num_{k}": len(v) for k, v in self.items.items()},
            "categories": self.categories,
            "senses": self.senses,
            "items": {k: [r.item for r in v] for k, v in self.items.items()},
            "word_level": {
                level: {"effect_size": self.core(level).effect_size, "p_value": self.core(level).pvalue}
                for level in ("word_average", "word_max")
            },
            "merged": [{"set": m.set, "item": m.item, "same_as": list(m.same_as)} for m in self.merged],
            "notes": list(self.notes),
        }
        return out

    def _keys(self, level: str, r: ResolvedItem) -> tuple[str, ...]:
        if level == "word_max":
            return self.lemma_keys[r.lemma]
        if r.is_key or self.senses == "max":
            return r.keys
        return (f"{r.lemma} (eq. 7 average)",)

    def _winner_keys(self, level: str, index: int, side: str) -> tuple[str, str]:
        res = getattr(self, level)
        if not isinstance(res, MaxSenseResult):
            return "", ""
        items = self.level_items(level)
        targets = [*items["targ1"], *items["targ2"]]
        attrs = items["attr1" if side == "a" else "attr2"]
        w = res.winners
        t_sense = int(getattr(w, f"target_sense_{side}")[index])
        a_item = int(getattr(w, f"attribute_{side}")[index])
        a_sense = int(getattr(w, f"attribute_sense_{side}")[index])
        return self._keys(level, targets[index])[t_sense], self._keys(level, attrs[a_item])[a_sense]

    def per_item(self) -> Any:
        """Tidy DataFrame: one row per (level, target item) with s(w, A, B) and the winning senses."""
        import pandas as pd

        rows = []
        for level in LEVELS:
            items = self.level_items(level)
            targets = [("targ1", r) for r in items["targ1"]] + [("targ2", r) for r in items["targ2"]]
            core = self.core(level)
            assoc = np.concatenate([core.association_x, core.association_y])
            for i, (key, item) in enumerate(targets):
                won_t_a, won_a = self._winner_keys(level, i, "a")
                won_t_b, won_b = self._winner_keys(level, i, "b")
                rows.append(
                    {
                        "level": level,
                        "set": key,
                        "category": self.categories[key],
                        "item": item.item,
                        "lemma": item.lemma,
                        "association": float(assoc[i]),
                        "target_sense_vs_attr1": won_t_a,
                        "attr1_sense": won_a,
                        "target_sense_vs_attr2": won_t_b,
                        "attr2_sense": won_b,
                    }
                )
        return pd.DataFrame(rows)

    def levels(self) -> Any:
        """DataFrame: effect size and p-value per level (sense result and its word-level twins)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "level": level,
                    "title": LEVEL_TITLES[level],
                    "effect_size": self.core(level).effect_size,
                    "p_value": self.core(level).pvalue,
                    "variant": self.core(level).variant,
                }
                for level in LEVELS
            ]
        )

    def chart(self) -> Any:
        """altair: effect size per level side by side (the sense-vs-word contrast of Zhou et al. Table 2)."""
        import altair as alt

        frame = self.levels().dropna(subset=["effect_size"])
        colors = {LEVEL_TITLES[k]: c for k, c in zip(LEVELS, altair_scale_colors(), strict=True)}
        return (
            alt.Chart(frame, title=f"{self.test} on {self.model}")
            .mark_bar()
            .encode(
                x=alt.X("effect_size:Q", title="effect size d"),
                y=alt.Y("title:N", sort=[LEVEL_TITLES[k] for k in LEVELS], title=None),
                color=alt.Color("title:N", legend=None, scale=altair_scale(colors)),
                tooltip=["title", alt.Tooltip("effect_size:Q", format="+.3f"), alt.Tooltip("p_value:Q", format=".3g")],
            )
        )


def altair_scale_colors() -> list[str]:
    from ..palette import group_colors

    return list(group_colors(list(LEVELS)).values())
