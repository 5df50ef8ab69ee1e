"""The report's CEAT section (Guo & Caliskan 2021) for sentence encoders and masked LMs.

Each test of the section's ``ceat_tests`` runs :class:`~embias_widgets.analysis.ceat.ContextualAssociationTest`
with the bundled template contexts (SEAT's bleached templates, so the report runs offline), ``ceat_samples``
samples and the report's seed; the model is loaded once for all tests. The outcome's table has one row per test:
the effect size (the mean of the samples' d), its two-stage bootstrap interval over words and contexts (a cell
``{low, high, level, method}`` as every section writes it), the permutation p (corrected with the report's other
p-values), N, and Guo & Caliskan's random-effects combined effect size and I^2, labelled as the paper's.
"""

from __future__ import annotations

from typing import Any

from .plan import NotApplicableError, SectionSpec
from .sections import TITLES, WHAT, model_options, outcome

TITLE = "CEAT over sampled contexts"
SUMMARY = (
    "CEAT gives each word many contextual vectors (one per sentence holding it), draws one per word N times and "
    "computes WEAT's effect size each time (Guo & Caliskan 2021). The effect size is the mean of the N samples' d, "
    "read as WEAT's d; its interval resamples the words and their contexts, and p permutes the target words' "
    "labels. The paper's random-effects combined effect size and I^2 are shown beside it as a reproduction. Tests "
    "11-14 are the paper's intersectional tests.")
TITLES.setdefault("ceat", TITLE)
WHAT.setdefault("ceat", SUMMARY)

P_METHOD = ("one-sided permutation test of the target words' labels on the same samples (the mean of the samples' d "
            "recomputed for each split of X and Y; null: X and Y words interchangeable, with these attribute words "
            "and contexts)")
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
    source, stories = "", []
    shared: dict = {}  # one model, one subword rule: a sentence in several tests is encoded once
    for name in spec.options["ceat_tests"]:
        result = ContextualAssociationTest(name, model=model, contexts=CONTEXTS, shared=shared).run(
            spec.options["ceat_samples"], seed=spec.options["seed"], level=level)
        data = result.to_dict()
        paper = data["guo_caliskan_random_effects"]
        missing = [w for s in data["sets"].values() for w in s["missing_contexts"]]
        rows.append([name, data["effect_size"], data["effect_size_interval"], data["p_value"], data["n"],
                     paper["combined_effect_size"], paper["i_squared"], len(missing)])
        tests.append({"label": name, "p": data["p_value"]})
        notes.extend(f"{name}: {n}" for n in result.notes)
        if data["agreement"]:
            stories.append(f"{name}: {data['agreement']}")
        source = data["contexts"]["source"]
    column = f"{level * 100:g}% interval"
    first = next((r[2] for r in rows if r[2]), None)
    notes += [f"contexts: {source}",
              f"p: {P_METHOD}",
              f"{column}: {first['method']}" if first else "",
              *stories,
              "paper's CES and I^2: Guo & Caliskan's random-effects combination of the same samples, a reproduction "
              "of the paper; its own interval and p treat the N samples as independent studies and are not valid "
              "(they shrink as N grows whatever the words), so the report does not use them (embias ceat --format "
              "json keeps them)"]
    return outcome(["test", "effect size d", column, "p", "n samples", "paper's CES", "paper's I^2",
                    "words without contexts"], rows, tests=tests, notes=[n for n in notes if n],
                   x="effect size d", y="test", interval=column, ref=0)
