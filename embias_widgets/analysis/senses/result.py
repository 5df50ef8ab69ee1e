"""The results of the sense studies (Zhou, Kaneko & Bollegala 2022), each a frozen :class:`StudyResult`.

- :class:`SenseAssociationResult`: a :class:`~embias_widgets.analysis.senses.SenseAssociationTest` run, the
  sense WEAT (section 3, eq. 2's ``max`` variant) and its two word-level twins, with how every item was read
  and what was merged;
- :class:`SenseGenderBiasResult`: :func:`~embias_widgets.analysis.senses.sense_gender_bias`, eq. 8's
  ``cos(v, g)`` per occupation for its noun sense, verb sense and eq. 7 word vector (Figure 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...metrics import DEFAULT_ALPHA, AssociationResult, BootstrapInterval
from ...metrics.senses import MaxSenseResult
from ...palette import altair_scale, group_colors
from ..association import MergedItems, association_record
from ..association.robustness import finding_story, influence_records, interval_record, stability_record

LEVELS = ("sense", "word_average", "word_max")
ROBUST_LEVELS = ("sense", "word_average")
"""The levels with an interval, word influence and stability (the max over all sense pairs has none)."""
LEVEL_TITLES = {
    "sense": "senses as given",
    "word_average": "word (eq. 7 average of senses)",
    "word_max": "word (max over sense pairs)",
}
ITEMS = "items (senses or lemmas)"
LEMMAS = "lemmas (each its mean sense vector)"
"""What the sense level's bootstrap resamples, in its method text."""
KINDS = ("noun sense", "verb sense", "word (eq. 7)")
"""The three vectors eq. 8 compares per occupation (Figure 2's bars)."""


@dataclass(frozen=True)
class ResolvedItem:
    """How one item was read: a sense key, or a lemma with the keys it stands for."""

    item: str
    lemma: str
    keys: tuple[str, ...]  # one key for a key item; all the lemma's keys for a lemma item
    is_key: bool


def _d_text(d: float | None) -> str:
    return "undefined" if d is None else f"{d:+.3f}"


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
    provisional_of: int | None = field(default=None)
    """When set, the p of :attr:`provisional_levels` is over the first block of sampled splits only (a quick
    first look, ``run(provisional=True)``); the full run samples ``provisional_of`` splits."""
    provisional_levels: tuple[str, ...] = field(default=())
    """The levels (of :data:`LEVELS`) whose p is provisional; every d is final."""
    interval: BootstrapInterval | None = field(default=None)
    """The bootstrap interval of the sense level's d (items resampled within each set), or None."""
    difference_interval: BootstrapInterval | None = field(default=None)
    """The bootstrap interval of the sense level's ``mean_X s - mean_Y s`` from the same resamples, or None."""
    seed: int | None = field(default=None)
    """The study's seed (permutations and bootstrap)."""
    cosines: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    """The sense level's item-level cosines, (targets X then Y) x A and x B, each the max over the two items'
    sense pairs: what :meth:`influence` and :meth:`stability` recompute d from (nothing encoded again)."""
    run_options: dict[str, Any] | None = field(default=None)
    """The run's ``n_samples``, ``method``, ``alternative`` and ``sampler``."""
    word_interval: BootstrapInterval | None = field(default=None)
    """The bootstrap interval of the eq. 7 word level's d (lemmas resampled within each set), or None."""
    word_cosines: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    """The eq. 7 word level's cosines, (target lemmas X then Y) x A and x B, of the lemmas' mean sense vectors:
    what its interval, influence and stability recompute d from."""

    def _as_association(self, level: str = "sense") -> Any:
        """A level seen as a WEAT result by the robustness code: the sense level (``max`` over :attr:`cosines`) or
        the eq. 7 word level (``word_average``: its variant over :attr:`word_cosines`, one lemma an item)."""
        from types import SimpleNamespace

        if level not in ROBUST_LEVELS:
            raise ValueError(f"level must be one of {ROBUST_LEVELS}, not {level!r}")
        sense = level == "sense"
        core = self.core(level)
        items = {k: tuple(r.item if sense else r.lemma for r in v) for k, v in self.level_items(level).items()}
        return SimpleNamespace(
            cosines=self.cosines if sense else self.word_cosines,
            run_options=None if self.run_options is None else {**self.run_options, "seed": self.seed},
            core=core, effect_size=core.effect_size, pvalue=core.pvalue, categories=self.categories,
            items=items, item_words=None, item_templates=None,
            interval=self.interval if sense else self.word_interval, interval_unit=ITEMS if sense else LEMMAS,
        )

    def influence(self, *, alpha: float = DEFAULT_ALPHA, significant: Any = None,
                  level: str = "sense") -> list[dict[str, Any]]:
        """Word influence of a level (the sense level, or ``level="word_average"``): one record per item of each
        set (a sense key or a lemma), d and p without it, ``flips_sign``, ``flips_significance`` (``p < alpha``
        unless ``significant`` is given), as :meth:`AssociationTestResult.influence
        <embias_widgets.analysis.AssociationTestResult.influence>`."""
        return influence_records(self._as_association(level), alpha=alpha, significant=significant)

    def stability(self, k: int = 200, keep: float = 0.8, seed: int | None = None, *, alpha: float = DEFAULT_ALPHA,
                  significant: Any = None, correction: str | None = None, level: str = "sense") -> dict[str, Any]:
        """Subset stability of a level (the sense level, or ``level="word_average"``), as
        :meth:`AssociationTestResult.stability <embias_widgets.analysis.AssociationTestResult.stability>`: the
        verdict from p and the level's interval of d, its rule, and subsets of items."""
        return stability_record(self._as_association(level), k=k, keep=keep, seed=seed, alpha=alpha,
                                significant=significant, correction=correction)

    def story(self, *, alpha: float = DEFAULT_ALPHA, significant: Any = None, level: str = "sense") -> str | None:
        """A level's one sentence when its permutation test and its interval of d disagree (see
        :meth:`AssociationTestResult.story <embias_widgets.analysis.AssociationTestResult.story>`)."""
        return finding_story(self._as_association(level), alpha=alpha, significant=significant)

    def interval_record(self, level: str = "sense") -> dict[str, Any] | None:
        """``{"low", "high", "level", "method"}`` of a level's d: the sense level (items resampled) or
        ``"word_average"`` (lemmas resampled); None when there is none."""
        if level not in ROBUST_LEVELS:
            raise ValueError(f"level must be one of {ROBUST_LEVELS}, not {level!r}")
        if self.core(level).effect_size is None:
            return None
        if level == "sense":
            return interval_record(self.interval, seed=self.seed, what=ITEMS)
        return interval_record(self.word_interval, seed=self.seed, what=LEMMAS)

    def difference_interval_record(self) -> dict[str, Any] | None:
        """``{"low", "high", "level", "method"}`` of the sense level's ``mean_X s - mean_Y s`` (None when none)."""
        return interval_record(self.difference_interval, seed=self.seed, what=ITEMS)

    def provisional_of_level(self, level: str) -> int | None:
        """:attr:`provisional_of` when the p of ``level`` is provisional, else ``None`` (what the bars take)."""
        return self.provisional_of if level in self.provisional_levels else None

    def level_items(self, level: str) -> dict[str, tuple[ResolvedItem, ...]]:
        """The items behind the rows of ``level``: as given for ``"sense"``, one per lemma for the word levels."""
        return self.items if level == "sense" or self.word_items is None else self.word_items

    def core(self, level: str = "sense") -> AssociationResult:
        """The metric core's result of ``level`` (one of :data:`LEVELS`)."""
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
        """One line: d and p of the sense level and of both word-level twins."""
        parts = [f"{level} d = {_d_text(self.core(level).effect_size)} (p = {self.core(level).pvalue:.3g}"
                 + (", provisional)" if level in self.provisional_levels else ")") for level in LEVELS]
        record = self.interval_record()
        if record is not None:
            parts[0] += f" [{record['level']:.0%} CI {record['low']:+.3f}, {record['high']:+.3f}]"
        return f"{self.test} on {self.model}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: the sense result in the CLI's usual fields, the twins beside it."""
        core = self.core()
        return {
            **association_record(self.test, self.model, self.options, core),
            "effect_size_interval": self.interval_record(),
            "association_difference_interval": self.difference_interval_record(),
            **{f"num_{k}": len(v) for k, v in self.items.items()},
            "categories": self.categories,
            "senses": self.senses,
            "items": {k: [r.item for r in v] for k, v in self.items.items()},
            "word_level": {
                level: {"effect_size": self.core(level).effect_size, "p_value": self.core(level).pvalue,
                        **({"effect_size_interval": self.interval_record(level)} if level in ROBUST_LEVELS else {})}
                for level in ("word_average", "word_max")
            },
            "merged": [{"set": m.set, "item": m.item, "same_as": list(m.same_as)} for m in self.merged],
            "notes": list(self.notes),
            **({"provisional_of": self.provisional_of, "provisional_levels": list(self.provisional_levels)}
               if self.provisional_levels else {}),
        }

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

    def frame(self) -> Any:
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

    def bar_rows(self, level: str) -> list[dict[str, Any]]:
        """The target rows of ``level`` as effect-size bars draw them: ``{"word", "set", "category",
        "association"}``, the word being the item as given at the sense level and its lemma at the word levels."""
        rows = self.frame()
        rows = rows[rows["level"] == level]
        return [
            {"word": r.item if level == "sense" else r.lemma, "set": r.set, "category": r.category,
             "association": r.association}
            for r in rows.itertuples()
        ]

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

        from ..charts import setup_charts

        setup_charts()

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
    """One palette colour per level of :class:`SenseAssociationResult`, in :data:`LEVELS` order."""
    return list(group_colors(list(LEVELS)).values())


@dataclass(frozen=True)
class GenderBiasRow:
    """``cos(v, g)`` of one vector of one occupation (Zhou et al. eq. 8)."""

    occupation: str
    kind: str  # one of KINDS
    sense_key: str  # the sense key, or the lemma for the eq. 7 word vector
    bias: float


@dataclass(frozen=True)
class SenseGenderBiasResult:
    """``cos(v, g)`` per occupation for its noun sense, verb sense and eq. 7 word vector."""

    model: str
    pairs: tuple[tuple[str, str], ...]
    rows: tuple[GenderBiasRow, ...]

    def summary(self) -> str:
        """One line per occupation: the bias of its noun sense, verb sense and word vector."""
        by_occupation: dict[str, list[str]] = {}
        for r in self.rows:
            by_occupation.setdefault(r.occupation, []).append(f"{r.kind} {r.bias:+.3f}")
        head = f"gender direction bias cos(v, g) on {self.model} (g from {len(self.pairs)} pairs; > 0: towards male)"
        return "\n".join([head, *(f"{occupation}: {', '.join(parts)}" for occupation, parts in by_occupation.items())])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record: the model, the (male, female) pairs of g and every row of :meth:`frame`."""
        return {
            "model": self.model,
            "pairs": [list(p) for p in self.pairs],
            "rows": [{"occupation": r.occupation, "kind": r.kind, "sense_key": r.sense_key, "bias": float(r.bias)}
                     for r in self.rows],
        }

    def frame(self) -> Any:
        """Tidy DataFrame: occupation, kind, sense_key, bias."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"], columns=["occupation", "kind", "sense_key", "bias"])

    def chart(self) -> Any:
        """Figure 2 of the paper: grouped bars per occupation (noun vs verb sense vs word)."""
        import altair as alt

        from ..charts import setup_charts

        setup_charts()

        colors = group_colors(list(KINDS))
        return (
            alt.Chart(self.frame(), title=f"gender direction bias cos(v, g) on {self.model}")
            .mark_bar()
            .encode(
                x=alt.X("occupation:N", title=None),
                xOffset=alt.XOffset("kind:N", sort=list(KINDS)),
                y=alt.Y("bias:Q", title="cos(v, g)  (> 0: towards male)"),
                color=alt.Color("kind:N", sort=list(KINDS), scale=altair_scale(colors), title=None),
                tooltip=["occupation", "kind", "sense_key", alt.Tooltip("bias:Q", format="+.3f")],
            )
        )
