"""The report's CEAT section (Guo & Caliskan 2021) for sentence encoders and masked LMs.

Each test of the section's ``ceat_tests`` runs :class:`~embias_widgets.analysis.ceat.ContextualAssociationTest`
with the bundled template contexts (SEAT's bleached templates, so the report runs offline), ``ceat_samples``
samples and the report's seed; the model is loaded once for all tests. The outcome's table has one row per test:
the combined effect size, its interval (a cell ``{low, high, level, method}`` as every section writes it), the
one-sided p (corrected with the report's other p-values), N, I^2 and tau^2.
"""

from __future__ import annotations

from typing import Any

from .plan import NotApplicableError, SectionSpec
from .sections import TITLES, WHAT, model_options, outcome

TITLE = "CEAT over sampled contexts"
SUMMARY = (
    "CEAT gives each word many contextual vectors (one per sentence holding it), draws one per word N times, "
    "computes WEAT's effect size each time and combines the N effect sizes by random-effects meta-analysis (Guo "
    "& Caliskan 2021). The combined effect size reads as WEAT's d; I^2 is the share of its samples' spread that "
    "chance does not explain. Tests 11-14 are the paper's intersectional tests.")
TITLES.setdefault("ceat", TITLE)
WHAT.setdefault("ceat", SUMMARY)

CONTEXTS = "templates"
"""The report's context source: SEAT's bleached templates (offline; a user's own sentences go through
``embias ceat --contexts FILE``)."""


def run_ceat(spec: SectionSpec) -> dict[str, Any]:
    """CEAT on each of ``spec.options["ceat_tests"]`` with ``ceat_samples`` samples (see the module docstring)."""
    from ..ceat import CeatInputError, ContextualAssociationTest, load_contextual_model

    try:
        model = load_contextual_model(spec.model.name, **model_options(spec))
    except CeatInputError as err:  # an encoder without token vectors (the CBoW baseline): CEAT does not apply
        raise NotApplicableError(str(err)) from None
    level = float(spec.options.get("level", 0.95))
    rows, tests, notes = [], [], []
    source = ""
    shared: dict = {}  # one model, one subword rule: a sentence in several tests is encoded once
    for name in spec.options["ceat_tests"]:
        result = ContextualAssociationTest(name, model=model, contexts=CONTEXTS, shared=shared).run(
            spec.options["ceat_samples"], seed=spec.options["seed"], level=level)
        data = result.to_dict()
        missing = [w for s in data["sets"].values() for w in s["missing_contexts"]]
        rows.append([name, data["combined_effect_size"], data["combined_effect_size_interval"], data["p_value"],
                     data["n"], data["i_squared"], data["tau_squared"], len(missing)])
        tests.append({"label": name, "p": data["p_value"]})
        notes.extend(f"{name}: {n}" for n in result.notes)
        source = data["contexts"]["source"]
    column = f"{level * 100:g}% interval"
    notes += [f"contexts: {source}", "p: one-sided, 1 - Phi(ES / SE) of the combined effect size (the authors')",
              f"{column}: {rows[0][2]['method']}" if rows else "",
              "each sample's weight is 1 / (v + tau^2), v the ddof=1 variance of s(w, A, B) over X and Y (the "
              "authors' convention), so with thousands of samples the interval is narrow and p tiny: read I^2 and "
              "the samples' spread (embias ceat --format json) for how much the contexts move d"]
    return outcome(["test", "combined effect size", column, "p", "n samples", "I^2", "tau^2",
                    "words without contexts"], rows, tests=tests, notes=[n for n in notes if n],
                   x="combined effect size", y="test", interval=column, ref=0)
