"""``AssociationTestResult``: what a WEAT/SEAT run found, in the one shape every study's result has.

``summary()`` (one line: d, p and how p was computed), ``to_dict()`` (the CLI's JSON record),
``frame()`` (one row per target word with s(w, A, B) and its two cosine terms) and ``chart()``.
:func:`association_record` builds the record's headline fields for every WEAT-like result (word, sentence
and sense tests), and :func:`describe_p_value` says how a p-value was computed, for the CLI and the bars.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...metrics import DEFAULT_ALPHA, AssociationResult, BootstrapInterval
from ...models import OutOfVocabulary
from ...palette import altair_scale, set_colors
from ...stimuli import SET_KEYS
from .merging import MergedItems
from .robustness import (
    finding_story,
    influence_method,
    influence_records,
    interval_record,
    significance_rule,
    stability_record,
    template_record,
    word_influence,
)


def association_record(test: str, model: str, options: str, core: AssociationResult) -> dict[str, Any]:
    """The headline fields of a WEAT-like result, JSON-ready: the test, model and options, then d, the
    association difference ``mean_X s - mean_Y s`` (d's numerator), p and how p was computed (``statistic`` is
    ``S = sum_X s(x) - sum_Y s(y)``, Caliskan et al. 2017)."""
    return {
        "test": test,
        "model": model,
        "options": options,
        "effect_size": None if core.effect_size is None else float(core.effect_size),
        "effect_size_note": core.effect_size_note,
        "association_difference": association_difference(core),
        "p_value": float(core.pvalue),
        "statistic": float(core.statistic),
        "exact": bool(core.exact),
        "method": core.method,
        "alternative": core.alternative,
        "n_permutations": int(core.n_permutations),
        "variant": core.variant,
        "ddof": int(core.ddof),
    }


def association_difference(core: AssociationResult) -> float:
    """``mean_X s - mean_Y s``: d's numerator, the difference of the mean associations in cosine units (defined
    even where d is not)."""
    return float(np.mean(core.association_x) - np.mean(core.association_y))


def describe_p_value(core: AssociationResult, *, provisional_of: int | None = None) -> str:
    """How ``core.pvalue`` was computed, its options, and why d is undefined when it is.

    ``provisional_of``: the number of sampled splits the full run uses, when ``core`` holds a first
    estimate from its first block (:func:`embias_widgets.metrics.permutation.first_block_samples`).
    """
    if provisional_of is not None:
        how = (
            f"provisional p from the first {core.n_permutations:,} of {provisional_of:,} sampled splits "
            "(+1 adjusted); the full-precision p follows"
        )
    elif core.exact:
        how = f"exact permutation test over all {core.n_permutations:,} splits"
    elif core.method == "parametric":
        how = f"parametric (normal fit to {core.n_permutations:,} sampled splits)"
    else:
        how = f"sampled permutation test, {core.n_permutations:,} splits (+1 adjusted)"
    how += f", {core.alternative}, {core.variant} variant, ddof={core.ddof}"
    if core.effect_size is None:
        how += f". Effect size undefined: {core.effect_size_note}"
    return how


@dataclass(frozen=True)
class AssociationTestResult:
    """A WEAT/SEAT result with everything needed to report and draw it."""

    test: str
    model: str
    options: str
    categories: dict[str, str]
    items: dict[str, tuple[str, ...]]
    oov: dict[str, tuple[OutOfVocabulary, ...]]
    averaged: tuple[str, ...]
    notes: tuple[str, ...]
    core: AssociationResult
    interval: BootstrapInterval | None = field(default=None)
    """The bootstrap interval of d (see :meth:`interval_record`), or None."""
    difference_interval: BootstrapInterval | None = field(default=None)
    """The bootstrap interval of ``mean_X s - mean_Y s`` from the same resamples, or None."""
    provisional_of: int | None = field(default=None)
    """When set, p is over the first block of sampled splits only (a quick
    first look); the full run samples ``provisional_of`` splits."""
    merged: tuple[MergedItems, ...] = field(default=())
    """Items the model maps to one vector, merged into one item per set (see :class:`MergedItems`)."""
    attribute_cosines: dict[str, tuple[np.ndarray, np.ndarray]] | None = field(default=None)
    """Per target set, the two terms of s(w, A, B): ``(cos(w, A), cos(w, B))`` per word, each the mean
    over the attribute words (the max for the ``max`` variant), so ``s = first - second``."""
    item_words: dict[str, tuple[str, ...]] | None = field(default=None)
    """SEAT (May et al. 2019): per set, the word slotted into each item (sentence) of ``items``, in the
    same order, so the sentences' s(w, A, B) can be read per word (:meth:`word_groups`); None for WEAT."""
    cosines: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    """``(cos(w, a), cos(w, b))``: the (targets x A) and (targets x B) cosine matrices, targets X then Y in
    ``items`` order: what :meth:`influence`, :meth:`stability` and :meth:`templates` recompute d from."""
    run_options: dict[str, Any] | None = field(default=None)
    """The run's ``n_samples``, ``method``, ``alternative``, ``sampler`` and ``seed`` (the robustness
    checks' p-values follow them)."""
    item_templates: dict[str, tuple[str, ...]] | None = field(default=None)
    """SEAT: per set, the template each item (sentence) was made from (``"This is {a}."``); None for WEAT."""

    @property
    def effect_size(self) -> float | None:
        """d (Caliskan et al. 2017), or None when undefined (see ``core.effect_size_note``)."""
        return self.core.effect_size

    @property
    def pvalue(self) -> float:
        """The permutation test's p-value."""
        return self.core.pvalue

    def counts(self) -> dict[str, int]:
        """``num_targ1`` ... ``num_attr2``: the items each set had in the run."""
        return {f"num_{k}": len(v) for k, v in self.items.items()}

    def dropped(self) -> list[str]:
        """Items left out as not in the model's vocabulary."""
        return [o.item for key in SET_KEYS for o in self.oov.get(key, ())]

    def summary(self) -> str:
        """One line: d with its interval, p and how p was computed, and the association difference with its
        interval."""
        d = "undefined" if self.effect_size is None else f"{self.effect_size:+.4f}"
        record = self.interval_record()
        what = "words" if self.item_words is None else "sentences"
        if record is not None:
            how = record["method"].split(" ")[0]
            d += f" [{record['level']:.0%} {how} CI {record['low']:+.3f}, {record['high']:+.3f}; {what} resampled]"
        how = f"{self.core.method}, {self.core.n_permutations:,} splits"
        diff = f"mean_X s - mean_Y s = {association_difference(self.core):+.4f}"
        diff_record = self.difference_interval_record()
        if diff_record is not None:
            diff += f" [{diff_record['low']:+.4f}, {diff_record['high']:+.4f}]"
        return f"{self.test} on {self.model}: d = {d}, p = {self.pvalue:.4g} ({how}); {diff}"

    def _seed(self) -> int | None:
        return None if self.run_options is None else self.run_options.get("seed")

    def interval_record(self) -> dict[str, Any] | None:
        """``{"low", "high", "level", "method"}``: the bootstrap interval of d (None when d is undefined or the
        run computed none); ``method`` says how it was read (BCa or percentile), what was resampled (the words
        within each set), how often, the seed and the quantity it is an interval for."""
        what = "words" if self.item_words is None else "sentences"
        return None if self.effect_size is None else interval_record(self.interval, seed=self._seed(), what=what)

    def difference_interval_record(self) -> dict[str, Any] | None:
        """``{"low", "high", "level", "method"}``: the bootstrap interval of ``mean_X s - mean_Y s`` from the same
        resamples as d's (None when the run computed none)."""
        what = "words" if self.item_words is None else "sentences"
        return interval_record(self.difference_interval, seed=self._seed(), what=what)

    def influence(self, *, alpha: float = DEFAULT_ALPHA, significant: Any = None) -> list[dict[str, Any]]:
        """Word influence: one record per word of each set, ``{"set", "category", "word", "effect_size_without",
        "effect_size_change", "p_value_without", "flips_sign", "flips_significance"}``, from the run's cosines (no
        encoding). Significant: ``p < alpha`` unless ``significant`` (a function of an array of p) is given.
        SEAT: a word's sentences leave together. See :mod:`embias_widgets.analysis.association.robustness`."""
        return influence_records(self, alpha=alpha, significant=significant)

    def stability(self, k: int = 200, keep: float = 0.8, seed: int | None = None, *, alpha: float = DEFAULT_ALPHA,
                  significant: Any = None, correction: str | None = None) -> dict[str, Any]:
        """Stability: ``verdict`` "stable" when the test is significant (``p < alpha`` unless ``significant`` is
        given) and the interval of d over word choice excludes 0, else "fragile", with its ``reason``, the
        one-sentence ``story`` when p and interval disagree, the ``interval`` read and the ``rule`` in words; and d
        over ``k`` seeded subsets keeping ``keep`` of each set's words (at least 2), ``effect_sizes``,
        ``share_same_sign``, ``share_significant``, which describe how far d moves (seed: the run's by default).
        See :func:`~embias_widgets.analysis.association.robustness.stability_record`."""
        return stability_record(self, k=k, keep=keep, seed=seed, alpha=alpha, significant=significant,
                                correction=correction)

    def story(self, *, alpha: float = DEFAULT_ALPHA, significant: Any = None) -> str | None:
        """One sentence when the permutation test (``p < alpha`` unless ``significant`` is given: "with these
        words") and the interval of d ("with other words of the same kinds") disagree, e.g. "significant for
        these words; the interval over word choice includes 0"; None when they agree or there is no interval."""
        return finding_story(self, alpha=alpha, significant=significant)

    def templates(self) -> dict[str, Any] | None:
        """SEAT template sensitivity: d per template alone and the spread (None for WEAT)."""
        return template_record(self)

    def robustness(self, *, alpha: float = DEFAULT_ALPHA, significant: Any = None, correction: str | None = None,
                   k: int = 200, keep: float = 0.8) -> dict[str, Any]:
        """The ``--robustness`` keys: ``influence`` (+ ``influence_method``), ``stability`` and ``templates``."""
        loo = word_influence(self)
        return {
            "influence": influence_records(self, alpha=alpha, significant=significant, loo=loo),
            "influence_method": influence_method(self, loo, significance_rule(alpha, correction)),
            "stability": self.stability(k, keep, alpha=alpha, significant=significant, correction=correction),
            "templates": self.templates(),
        }

    def method_text(self) -> str:
        """How p was computed, in words (see :func:`describe_p_value`)."""
        return describe_p_value(self.core, provisional_of=self.provisional_of)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (the CLI's output)."""
        out: dict[str, Any] = {
            **association_record(self.test, self.model, self.options, self.core),
            "effect_size_interval": self.interval_record(),
            "association_difference_interval": self.difference_interval_record(),
            **self.counts(),
            "categories": dict(self.categories),
            "oov": self.dropped(),
            "oov_detail": [
                {"set": key, "item": o.item, "missing": list(o.missing), "suggestions": list(o.suggestions)}
                for key in SET_KEYS
                for o in self.oov.get(key, ())
            ],
            "averaged_multiword": list(self.averaged),
            "merged": [m.to_dict() for m in self.merged],
            "notes": list(self.notes),
        }
        return out

    def word_rows(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per target word: ``set``, ``category``, ``word``, ``association`` =
        s(w, A, B) and, when known, its two terms ``cos_a``, ``cos_b`` (what the bars draw)."""
        rows: list[dict[str, Any]] = [
            {"set": key, "category": self.categories[key], "word": w, "association": float(s)}
            for key, assoc in (("targ1", self.core.association_x), ("targ2", self.core.association_y))
            for w, s in zip(self.items[key], assoc, strict=True)
        ]
        if self.attribute_cosines is not None:
            cosines = [
                (float(a), float(b))
                for key in ("targ1", "targ2")
                for a, b in zip(*self.attribute_cosines[key], strict=True)
            ]
            for row, (ca, cb) in zip(rows, cosines, strict=True):
                row["cos_a"], row["cos_b"] = ca, cb
        return rows

    def word_groups(self) -> list[dict[str, Any]]:
        """SEAT per word: one dict per target word (in set order) with the ``mean``, sample standard
        deviation ``sd`` (ddof=1; 0 for one sentence), ``min``, ``max`` and count ``n`` of the s(x, A, B) of
        its sentences x, and those ``sentences`` (``[{"sentence", "association"}]``); ``[]`` for WEAT, whose
        items are words. The mean of a word's sentences is what May et al. (2019) average over a word's
        templates; d and p stay over sentences."""
        if self.item_words is None:
            return []
        groups: dict[tuple[str, str], list[tuple[str, float]]] = {}
        for key, assoc in (("targ1", self.core.association_x), ("targ2", self.core.association_y)):
            for sentence, word, s in zip(self.items[key], self.item_words[key], assoc, strict=True):
                groups.setdefault((key, word), []).append((sentence, float(s)))
        out = []
        for (key, word), rows in groups.items():
            values = np.array([s for _, s in rows])
            out.append({
                "set": key, "category": self.categories[key], "word": word, "n": len(values),
                "mean": float(values.mean()), "sd": float(values.std(ddof=1)) if len(values) > 1 else 0.0,
                "min": float(values.min()), "max": float(values.max()),
                "sentences": [{"sentence": x, "association": s} for x, s in rows],
            })
        return out

    def word_group_frame(self) -> Any:
        """pandas DataFrame of :meth:`word_groups` without the sentences: set, category, word, n, mean, sd,
        min, max (empty for WEAT)."""
        import pandas as pd

        columns = ["set", "category", "word", "n", "mean", "sd", "min", "max"]
        return pd.DataFrame([{k: g[k] for k in columns} for g in self.word_groups()], columns=columns)

    def frame(self) -> Any:
        """pandas DataFrame: one row per target word with its s(w, A, B) (and ``cos_a``, ``cos_b``)."""
        import pandas as pd

        columns = ["set", "category", "word", "association"]
        if self.attribute_cosines is not None:
            columns += ["cos_a", "cos_b"]
        return pd.DataFrame(self.word_rows(), columns=columns)

    def chart(self) -> Any:
        """altair bar chart of s(w, A, B) per target word, coloured by target set; for SEAT, per word the
        mean over its sentences with a rule from their min to their max (:meth:`word_groups`)."""
        import altair as alt

        from ..charts import setup_charts

        setup_charts()
        a, b = self.categories["attr1"], self.categories["attr2"]
        scale = altair_scale(set_colors(self.categories))
        color = alt.Color("category:N", title="target set", scale=scale)
        if self.item_words is None:
            return (
                alt.Chart(self.frame(), title=self.summary())
                .mark_bar()
                .encode(
                    x=alt.X("association:Q", title=f"s(w) = mean cos(w, {a}) - mean cos(w, {b})"),
                    y=alt.Y("word:N", sort=None, title=None),
                    color=color,
                    tooltip=["word", "category", alt.Tooltip("association:Q", format="+.4f")],
                )
            )
        base = alt.Chart(self.word_group_frame(), title=self.summary())
        y = alt.Y("word:N", sort=None, title=None)
        tooltip = ["word", "category", "n", alt.Tooltip("mean:Q", format="+.4f"), alt.Tooltip("sd:Q", format=".4f")]
        bars = base.mark_bar().encode(
            x=alt.X("mean:Q", title=f"mean over its sentences of s(x) = mean cos(x, {a}) - mean cos(x, {b})"),
            y=y, color=color, tooltip=tooltip,
        )
        spread = base.mark_rule().encode(x="min:Q", x2="max:Q", y=y, tooltip=tooltip)
        return bars + spread
