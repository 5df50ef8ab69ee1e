"""``Compare(before, after).run()``: did fine-tuning or debiasing change the bias? Both models through the report's
sections (saved and resumable as in ``embias report``), then every method both ran, paired item by item.

The run writes ``DIR/report.json`` and ``report.html`` (the two models side by side, with the comparison in
``comparisons``) and ``DIR/comparison.json`` (the comparison alone, schema ``embias-comparison/1``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...metrics.multiple_testing import DEFAULT_ALPHA
from .comparison import compare_models, summary_lines
from .gate import GateRule, breaches, parse_rule
from .saved_models import saved_model_name

__all__ = ["Compare", "CompareResult"]


@dataclass(frozen=True)
class CompareResult:
    """The comparison (``comparison``: the ``embias-comparison/1`` dict) and the report it came from."""

    comparison: dict[str, Any]
    report: Any
    out_dir: Path

    def summary(self) -> str:
        """One line per gated row, then what was not paired or not compared."""
        return "\n".join(summary_lines(self.comparison))

    def to_dict(self) -> dict[str, Any]:
        """The comparison as JSON (``comparison.json``)."""
        return self.comparison

    def frame(self) -> Any:
        """One row per measure and group: method, row, measure, before, after, change, its interval, p, p (Holm),
        verdict."""
        import pandas as pd

        rows = [{"method": r["method"], "row": r["row"], "measure": r["measure"], "before": r["before"],
                 "after": r["after"], "change": r["change"],
                 "low": (r["change_interval"] or {}).get("low"), "high": (r["change_interval"] or {}).get("high"),
                 "p_value": r["p_value"], "p_holm": r["p_holm"], "verdict": r["verdict"]}
                for r in self.comparison["rows"]]
        return pd.DataFrame(rows, columns=["method", "row", "measure", "before", "after", "change", "low", "high",
                                           "p_value", "p_holm", "verdict"])

    def breaches(self, rules: Sequence[str | GateRule]) -> list[str]:
        """One line per breach of the CI gate's ``rules`` (:mod:`.gate`); empty when none is breached."""
        parsed = [r if isinstance(r, GateRule) else parse_rule(r) for r in rules]
        return breaches(self.comparison, parsed)


class Compare:
    """A paired comparison of two models (``before``: the baseline; ``after``: the fine-tuned or debiased one).

    Parameters
    ----------
    before, after
        Model names or paths as ``embias report`` takes them, or objects: static word vectors (e.g.
        ``RelationProjection(...).debiased_model()``), a Hugging Face ``(model, tokenizer)`` pair or an NLI
        cross-encoder (e.g. ``debias_input_embeddings(...)``), saved under ``out/models/`` first
        (:mod:`.saved_models`).
    out
        The folder (default ``embias-compare``); saved sections are resumed as in ``embias report``.
    methods
        Only these methods (``weat``, ``crows-pairs``, ``nli``, ...).
    alpha
        Holm-Bonferroni level over the comparison's paired tests (default 0.05).
    resamples
        Bootstrap replicates of every paired interval.
    report_options
        Passed to :class:`~embias_widgets.analysis.report.Report` (``quick``, ``crows_pairs``, ``stereoset``,
        ``pairs``, ``seed``, ``level``, ``device``, ``dtype``, ``fresh``, ``progress``, ``html``, ...).
    """

    def __init__(self, before: Any, after: Any, out: str | Path | None = None, *,
                 methods: Sequence[str] | None = None, alpha: float = DEFAULT_ALPHA, resamples: int = 2_000,
                 **report_options: Any) -> None:
        from ..report import Report, ReportInputError

        if not (isinstance(alpha, float | int) and not isinstance(alpha, bool) and 0 < alpha < 1):
            raise ReportInputError(f"`alpha` must be a number between 0 and 1, got {alpha!r}")
        if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 100:
            raise ReportInputError(f"`resamples` must be a whole number >= 100, got {resamples!r}")
        self.out = Path(out if out is not None else "embias-compare").expanduser()
        names = [saved_model_name(m, self.out / "models") for m in (before, after)]
        if names[0] == names[1]:
            raise ReportInputError(f"both models are {names[0]!r}: give two different models to compare")
        self.before, self.after = names
        self.alpha, self.resamples = float(alpha), resamples
        self.report = Report(names, out=self.out, methods=methods, alpha=alpha, **report_options)
        kinds = [m.kind for m in self.report.models]
        if kinds[0] != kinds[1]:
            raise ReportInputError(f"{names[0]!r} is a {kinds[0]} model and {names[1]!r} a {kinds[1]} model: a "
                                   "comparison pairs the same methods on the same items, so give two models of "
                                   "one kind")

    def describe(self) -> str:
        """The sizes of the run (:meth:`Report.describe`)."""
        return self.report.describe()

    def run(self) -> CompareResult:
        """Run (or resume) both models' sections, pair them, write the files, return the result."""
        from ..report.store import write_atomic

        self.report.comparisons = lambda report: [compare_models(
            report, self.before, report, self.after, alpha=self.alpha, level=self.report.level,
            seed=self.report.seed, resamples=self.resamples)]
        result = self.report.run()  # writes the report once, its comparison in it (figures rendered once)
        comparison = result.report["comparisons"][0]
        write_atomic(self.out / "comparison.json", json.dumps(comparison, indent=1))
        return CompareResult(comparison, result, self.out)
