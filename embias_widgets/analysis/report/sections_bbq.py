"""The report's BBQ section (Parrish et al. 2022) for masked and causal language models.

It runs :class:`~embias_widgets.analysis.bbq.BbqStudy` on the BBQ folder of the report (``--bbq``, else the folder
``embias data fetch bbq`` fills), at most ``bbq_items`` items per category spread over the category's templates
(:data:`~.plan.FULL_SIZES`; a ``--quick`` report leaves BBQ out: on the demo masked LM an item takes about a second
of CPU, so a quick-sized sample would be a handful of items per category, too few to say anything), and returns
the result's accuracy and bias score per category and context condition, each bias score with the result's interval
(a percentile bootstrap that redraws templates within the category). No p-value is defined for these scores.
"""

from __future__ import annotations

from typing import Any

from .plan import SectionSpec
from .sections import interval, interval_column, interval_note, level_of, model_options, number, outcome

CONDITION_WORDS = {"ambig": "ambiguous", "disambig": "disambiguated"}


def run_bbq(spec: SectionSpec) -> dict[str, Any]:
    """BBQ on the section's model: accuracy and bias score (x100; s_AMB ambiguous, s_DIS disambiguated) per
    category and context condition, with the result's intervals and notes."""
    from ...stimuli.bbq import load_bbq
    from ..bbq import BbqStudy

    limit = spec.options["bbq_items"]
    items = load_bbq(spec.data["bbq"], limit=limit)
    study = BbqStudy(spec.model.name, items, model_options={**model_options(spec), "progress": False})
    result = study.run(level=level_of(spec), seed=spec.options["seed"])
    record = result.to_dict()
    rows = []
    for c in record["cells"]:
        label = f"{c['category']}, {CONDITION_WORDS.get(c['context_condition'], c['context_condition'])}"
        rows.append([label, c["n_items"], number(c["accuracy"]), number(c["bias_score"]),
                     interval(c, "bias_score")])
    intervals = [r[4] for r in rows]
    column = interval_column(intervals)
    size = "every item" if limit is None else f"at most {limit:,} items per category, spread over its templates"
    notes = [f"{len(items):,} BBQ items of {len(items.categories)} categories ({size}); bias score x100: 0 = "
             "unbiased, +100 = every non-unknown answer the stereotyped one (s_DIS in disambiguated contexts, "
             "s_AMB = (1 - accuracy) s_DIS in ambiguous ones); accuracy 0-1",
             "no p-value is defined for these scores", *interval_note(intervals), *record["notes"]]
    return outcome(["category, context", "n", "accuracy", "bias score", column], rows, notes=notes,
                   x="bias score", y="category, context", interval=column, ref=0)
