"""Batch runs: many association tests x many models, as in May et al. (2019).

:func:`run_suite` runs every test on every model and corrects the p-values
with Holm-Bonferroni over *all* rows at ``alpha`` (default 0.01), as May et
al. do across their results.tsv: sort p ascending, find the smallest k with
``p(k) > alpha / (m + 1 - k)`` and reject H(1)..H(k-1). The result has the
results.tsv table (``model, options, test, p_value, effect_size, num_targ1,
num_targ2, num_attr1, num_attr2``) and a tests x models heatmap like their
Figure 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...formatting import format_p
from ...metrics import DEFAULT_ALPHA, HolmResult, holm_bonferroni, holm_thresholds
from ...models import load_model
from ...stimuli import AssociationTestSpec, bundled_test_names
from ...stimuli.sentence_tests import SentenceTestSpec, sentence_test_names
from ...stimuli.spreadsheet_safe import tsv_text
from .catalog import association_test_for
from .result import AssociationTestResult
from .robustness import DEFAULT_RESAMPLES
from .validation import AssociationInputError, check_study_options

RESULTS_COLUMNS = (
    "model", "options", "test", "p_value", "effect_size",
    "num_targ1", "num_targ2", "num_attr1", "num_attr2",
)
SUITE_ALIASES = ("all", "seat")


def paper_test_names() -> list[str]:
    """Every test of May et al. (2019): word-level and sentence-level, by published name."""
    return [*bundled_test_names(), *sentence_test_names()]


def expand_test_names(tests: Iterable[Any]) -> list[Any]:
    """Replace ``"all"``/``"seat"`` by :func:`paper_test_names`, dropping repeats."""
    out: list[Any] = []
    for test in tests:
        for item in paper_test_names() if test in SUITE_ALIASES else [test]:
            if item not in out:
                out.append(item)
    return out


@dataclass(frozen=True)
class SuiteResult:
    """Results of tests x models with Holm-Bonferroni over all rows.

    ``results[i]`` ran test ``tests[i]`` on model ``models[i]`` (the name as
    given); ``holm.reject[i]`` / ``holm.adjusted[i]`` belong to it.
    """

    results: tuple[AssociationTestResult, ...]
    models: tuple[str, ...]
    holm: HolmResult

    @property
    def alpha(self) -> float:
        return self.holm.alpha

    def records(self, *, robustness: bool = False, k: int = 200, keep: float = 0.8) -> list[dict[str, Any]]:
        """One JSON-ready dict per row: :meth:`AssociationTestResult.to_dict` (its ``effect_size_interval``
        included) plus ``model`` (as given), ``significant_holm``, ``p_value_holm``, ``alpha`` and ``story`` (one
        sentence when the Holm decision and the interval of d disagree, else None: :meth:`~AssociationTestResult.
        story`). With
        ``robustness``, also :meth:`AssociationTestResult.robustness`'s ``influence``, ``influence_method``,
        ``stability`` (``k`` subsets keeping ``keep``) and ``templates``, significance judged as the row's:
        Holm-Bonferroni at ``alpha`` over all rows, the row's p replaced and the other rows' p kept."""
        rows = []
        for i, result in enumerate(self.results):
            row = result.to_dict()
            row["model"] = self.models[i]
            row["significant_holm"] = bool(self.holm.reject[i])
            row["p_value_holm"] = float(self.holm.adjusted[i])
            row["alpha"] = float(self.alpha)
            row["story"] = result.story(significant=self.holm_significance(i))
            if robustness:
                row.update(result.robustness(alpha=self.alpha, significant=self.holm_significance(i), k=k, keep=keep,
                                             correction=f"Holm-Bonferroni over the {len(self.results)} row(s) "
                                             "(the other rows' p kept)"))
            rows.append(row)
        return rows

    def holm_significance(self, i: int) -> Any:
        """A function of an array of p: whether row ``i`` would be significant with that p (Holm-Bonferroni at
        ``alpha`` over all rows, every other row's p as run); what word influence and stability judge by."""
        pvalues = np.array([r.pvalue for r in self.results], dtype=np.float64)

        def significant(p: np.ndarray) -> np.ndarray:
            out = []
            for value in np.atleast_1d(p):
                trial = pvalues.copy()
                trial[i] = value
                out.append(bool(holm_bonferroni(trial, alpha=self.alpha).reject[i]))
            return np.array(out, dtype=bool)

        return significant

    def summary(self) -> str:
        """One line: how many rows, and how many are significant before and after Holm-Bonferroni."""
        n = len(self.results)
        before = sum(r.pvalue < self.alpha for r in self.results)
        after = int(sum(bool(x) for x in self.holm.reject))
        return (
            f"{n} run(s) ({len(set(r.test for r in self.results))} test(s) x {len(set(self.models))} model(s)): "
            f"{before} with p < {self.alpha:g}, {after} significant after Holm-Bonferroni over all rows"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``alpha`` and one record per row (see :meth:`records`)."""
        return {"alpha": float(self.alpha), "correction": "holm-bonferroni", "rows": self.records()}

    def frame(self) -> Any:
        """pandas DataFrame: results.tsv columns, then ``p_value_holm``, ``significant_holm``, the bootstrap
        interval of d (``effect_size_low``, ``effect_size_high``), the association difference ``mean_X s -
        mean_Y s`` with its interval (``association_difference``, ``_low``, ``_high``) and ``interval_level``
        (None without one; how it was computed: each record's ``effect_size_interval["method"]``)."""
        import pandas as pd

        columns = [*RESULTS_COLUMNS, "p_value_holm", "significant_holm"]
        extra = ["effect_size_low", "effect_size_high", "association_difference", "association_difference_low",
                 "association_difference_high", "interval_level"]
        rows = []
        for r in self.records():
            interval = r["effect_size_interval"] or {}
            diff = r["association_difference_interval"] or {}
            rows.append({**{c: r[c] for c in columns}, "effect_size_low": interval.get("low"),
                         "effect_size_high": interval.get("high"),
                         "association_difference": r["association_difference"],
                         "association_difference_low": diff.get("low"),
                         "association_difference_high": diff.get("high"),
                         "interval_level": interval.get("level", diff.get("level"))})
        return pd.DataFrame(rows, columns=[*columns, *extra])

    def to_tsv(self) -> str:
        """May et al.'s results.tsv layout, plus the Holm decision per row, through the csv module: text cells
        guarded against formulas, a cell with a tab or newline quoted (:func:`~.spreadsheet_safe.tsv_text`)."""
        columns = (*RESULTS_COLUMNS, "significant_holm")
        return tsv_text(columns, ([row[c] for c in columns] for row in self.records()))

    def chart(self) -> Any:
        """altair heatmap, tests x models: effect size as colour; ``**`` significant
        after Holm-Bonferroni, ``*`` at ``alpha`` before correction (May et al., table 4)."""
        import altair as alt

        from ..charts import setup_charts

        setup_charts()

        df = self.frame()
        df["marker"] = [
            "**" if sig else ("*" if p < self.alpha else "")
            for sig, p in zip(df["significant_holm"], df["p_value"], strict=True)
        ]
        # the p-values as the one formatter writes them beside the marks: never rounded across alpha or the
        # Holm step that judges them (0.0098 at alpha 0.01 reads 0.0098, not 0.01)
        steps = holm_thresholds(df["p_value"].to_numpy(), alpha=self.alpha)
        df["p_text"] = [format_p(p, (self.alpha, t)) for p, t in zip(df["p_value"], steps, strict=True)]
        df["p_holm_text"] = [format_p(p, self.alpha) for p in df["p_value_holm"]]
        several_options = df.groupby("model")["options"].nunique().max() > 1
        df["model_label"] = (
            df["model"] + " [" + df["options"] + "]" if several_options else df["model"]
        )
        limit = max(2.0, float(df["effect_size"].abs().max(skipna=True) or 0.0))
        base = alt.Chart(df).encode(
            x=alt.X("model_label:N", title="model", sort=None),
            y=alt.Y("test:N", title="test", sort=None),
        )
        cells = base.mark_rect().encode(
            color=alt.Color(
                "effect_size:Q",
                title="effect size d",
                scale=alt.Scale(scheme="redblue", domain=[-limit, limit], reverse=True),
            ),
            tooltip=[
                "test", "model", "options",
                alt.Tooltip("effect_size:Q", format="+.3f"),
                alt.Tooltip("p_text:N", title="p"),
                alt.Tooltip("p_holm_text:N", title="p (Holm)"),
                "significant_holm",
            ],
        )
        marks = base.mark_text(fontWeight="bold").encode(text="marker:N")
        title = f"SEAT effect sizes; ** Holm-Bonferroni at {self.alpha:g} over all rows, * before"
        return (cells + marks).properties(title=title)


def run_suite(
    tests: Sequence[str | AssociationTestSpec | SentenceTestSpec],
    models: Sequence[str | Path | Any],
    *,
    alpha: float = DEFAULT_ALPHA,
    n_samples: int = 100_000,
    seed: int | None = 0,
    ddof: int = 1,
    variant: str = "mean",
    alternative: str = "greater",
    method: str = "auto",
    progress: bool | None = None,
    level: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    interval_method: str = "BCa",
    resample: str = "all",
    **model_options: Any,
) -> SuiteResult:
    """Run every test on every model; Holm-Bonferroni at ``alpha`` over all rows.

    Parameters
    ----------
    tests
        Test names (bundled word tests ``weat1``..., sentence tests ``sent-weat1``...,
        ``"all"`` for May et al.'s whole suite), sent-bias file paths, or specs.
    models
        Model names or paths (loaded once each, with ``model_options``) or loaded models.
    alpha
        Family-wise level of the Holm-Bonferroni correction (May et al.: 0.01).
    n_samples, seed, ddof, variant, alternative, method
        As for :class:`AssociationTest`; the same seed for every row.
    progress
        tqdm bar over the runs; ``None`` shows it for four runs or more.
    level, n_resamples, interval_method, resample
        Every row's bootstrap intervals of d and of ``mean_X s - mean_Y s`` (BCa by default, the words of all
        four sets resampled; ``n_resamples=0``: none), as for :meth:`AssociationTest.run`.
    """
    from tqdm.auto import tqdm

    check_study_options(interval_method=interval_method, resample=resample)
    tests = expand_test_names(tests)
    if not tests or not models:
        raise ValueError("give at least one test and one model")
    options = dict(n_samples=n_samples, seed=seed, ddof=ddof, variant=variant,
                   alternative=alternative, method=method)
    loaded = []
    for given in models:
        model = load_model(given, **model_options)
        name = str(given) if isinstance(given, str | Path) else getattr(model, "name", repr(model))
        loaded.append((name, model))
    pairs = [(name, model, test) for name, model in loaded for test in tests]
    show = progress if progress is not None else len(pairs) >= 4
    results, names = [], []
    for name, model, test in tqdm(pairs, desc="association tests", unit="test", disable=not show):
        try:
            results.append(association_test_for(test, model=model, **options).run(
                confidence_interval=n_resamples > 0, level=level, n_resamples=max(n_resamples, 1),
                interval_method=interval_method, resample=resample))
        except AssociationInputError as err:
            label = getattr(test, "name", test)
            raise AssociationInputError(f"test {label!r} on model {name!r}: {err}") from None
        names.append(name)
    holm = holm_bonferroni([r.pvalue for r in results], alpha=alpha)
    return SuiteResult(results=tuple(results), models=tuple(names), holm=holm)
