"""The report's sections: each calls an existing analysis and returns its numbers as a table (no metric here).

A section runner takes a :class:`~.plan.SectionSpec` and returns an *outcome*: a JSON-ready dict with
``table`` (``columns``, ``rows``), ``tests`` (``label``, ``p``: every p-value, corrected later across the
whole report), ``notes`` and ``chart`` (which table columns the bar chart draws: ``x`` value, ``y`` label).
Language-model and NLI sections live in :mod:`.sections_lm`.
"""

from __future__ import annotations

from typing import Any

from ...stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS
from .plan import WEAT_TESTS, SectionSpec

TITLES = {
    "weat": "WEAT 1-10 and the b variants", "ripa": "RIPA on the definitional pairs",
    "debias": "Projection debiasing check against a random direction", "seat": "SEAT suite",
    "sense-weat": "Sense WEAT", "crows-pairs": "CrowS-Pairs", "stereoset": "StereoSet (intrasentence)",
    "sense-pairs": "Sense-sensitive likelihood pairs", "sssb": "SSSB files",
    "nli-gender-occupation": "NLI probe: gender x occupation",
    "nli-nationality-polarity": "NLI probe: nationality x polarity",
    "nli-religion-polarity": "NLI probe: religion x polarity",
}
WHAT = {
    "weat": "WEAT compares how much closer two sets of target words are to one set of attribute words than to "
            "another, by cosine similarity (Caliskan et al. 2017). The effect size d is in standard deviations; "
            "p is the one-sided permutation p-value.",
    "ripa": "RIPA projects a word onto the relation vector of the gender-definitional pairs (Ethayarajh et al. "
            "2019), positive towards the female words. It is the inner product with the raw vector, so frequent "
            "words with long vectors score further from zero.",
    "debias": "The gender direction of the definitional pairs is projected out of every vector and WEAT 6-8 are "
              "run again (Dev et al. 2019). A random direction of the same dimension is projected out as the control.",
    "seat": "SEAT is WEAT on sentence vectors: each word is slotted into semantically bleached templates (May et "
            "al. 2019). The effect size and p-value read as for WEAT.",
    "sense-weat": "Sense WEAT runs WEAT over word senses with the max variant and compares it with its word-level "
                  "twins (Zhou et al. 2022). A sense-level bias can hide behind an unbiased word.",
    "crows-pairs": "CrowS-Pairs counts the pairs in which a masked LM prefers the more stereotypical sentence "
                   "(Nangia et al. 2020); 50% is unbiased. CPS masks the shared tokens, AUL reads one unmasked pass "
                   "(Kaneko & Bollegala 2022).",
    "stereoset": "StereoSet's SS is the share of contexts where the stereotype beats the anti-stereotype (50 is "
                 "unbiased) and LMS the share where a meaningful option beats the unrelated one (Nadeem et al. "
                 "2021). ICAT combines both (100 is ideal).",
    "sense-pairs": "Sense-sensitive pairs score stereotypical against anti-stereotypical sentences per sense type "
                   "with AUL (Zhou et al. 2022). The score is the percentage minus 50: 0 is unbiased.",
    "sssb": "The user's SSSB files scored per sense type with AUL (Zhou et al. 2022). The score is the percentage "
            "minus 50: 0 is unbiased.",
}
for _probe in ("gender-occupation", "nationality-polarity", "religion-polarity"):
    WHAT[f"nli-{_probe}"] = (
        "Every template pair should be neutral, so an NLI model's deviation from neutral is bias (Dev et al. 2020). "
        "NN is the mean neutral probability and FN the share of pairs labelled neutral, over a seeded random "
        "sample of pairs (1 = unbiased).")

PROBE_WORDS = {"math / arts / science": ("weat7", "weat8"), "career / family": ("weat6",)}


def outcome(columns: list[str], rows: list[list[Any]], *, tests: list[dict[str, Any]] | None = None,
            notes: list[str] | None = None, x: str | None = None, y: str | None = None) -> dict[str, Any]:
    """The JSON-ready outcome of a section (see the module docstring)."""
    return {"table": {"columns": columns, "rows": rows}, "tests": tests or [],
            "notes": list(dict.fromkeys(notes or [])), "chart": {"x": x, "y": y} if x and y else None}


def model_options(spec: SectionSpec) -> dict[str, Any]:
    """The ``device`` and ``dtype`` of the report (only those given), for the section's model load."""
    return {k: spec.options[k] for k in ("device", "dtype") if spec.options.get(k) is not None}


def _rounded(v: Any, digits: int = 4) -> Any:
    return None if v is None else round(float(v), digits)


def _suite_outcome(records: list[dict[str, Any]]) -> dict[str, Any]:
    rows, tests, notes = [], [], []
    for r in records:
        rows.append([r["test"], _rounded(r["effect_size"]), r["p_value"], r["num_targ1"], r["num_targ2"],
                     r["num_attr1"], r["num_attr2"], len(r["oov"])])
        tests.append({"label": r["test"], "p": r["p_value"]})
        if r["oov"]:
            notes.append(f"{r['test']}: {len(r['oov'])} out-of-vocabulary item(s) left out: {', '.join(r['oov'][:8])}")
        notes.extend(f"{r['test']}: {n}" for n in r.get("notes", []))
    if records:
        notes.append(f"p-values: {records[0]['method']} permutation test, {records[0]['n_permutations']:,} "
                     f"splits, alternative {records[0]['alternative']!r}")
    return outcome(["test", "effect size d", "p", "n X", "n Y", "n A", "n B", "OOV"], rows, tests=tests,
                   notes=notes, x="effect size d", y="test")


def run_weat(spec: SectionSpec) -> dict[str, Any]:
    """WEAT 1-10 and the b variants on static vectors (:func:`run_suite`)."""
    from ..association import run_suite

    suite = run_suite(list(WEAT_TESTS), [spec.model.name], n_samples=spec.options["permutations"],
                      seed=spec.options["seed"], progress=False, **model_options(spec))
    return _suite_outcome(suite.records())


def run_seat(spec: SectionSpec) -> dict[str, Any]:
    """The SEAT suite on a sentence encoder (:func:`run_suite` with sentence tests)."""
    from ...stimuli.sentence_tests import sentence_test_names
    from ..association import run_suite

    chosen = spec.options["seat_tests"]
    tests = sentence_test_names() if chosen == "all" else list(chosen)
    suite = run_suite(tests, [spec.model.name], n_samples=spec.options["permutations"], seed=spec.options["seed"],
                      progress=False, **model_options(spec))
    return _suite_outcome(suite.records())


def run_ripa(spec: SectionSpec) -> dict[str, Any]:
    """RIPA of WEAT 6-8's words along the definitional pairs' relation vector (:class:`RelationProjection`)."""
    from ...stimuli import load_bundled_test
    from ..relation import RelationProjection

    groups: dict[str, list[str]] = {}
    for label, tests in PROBE_WORDS.items():
        for test in tests:
            t = load_bundled_test(test)
            for key in (("targ1", "targ2") if test != "weat6" else ("attr1", "attr2")):
                groups.setdefault(f"{label}: {t.sets()[key].category}", []).extend(t.sets()[key].examples)
    result = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, groups, model=spec.model.name,
                                **model_options(spec)).run()
    rows = [[w, g, _rounded(s)] for w, g, s in zip(result.words, result.groups, result.ripa, strict=True)]
    rows.sort(key=lambda r: -r[2])
    notes = [*result.notes, f"relation vector from {len(result.pairs)} pairs; positive = towards the first word of "
             "each pair (woman, girl, she, ...)"]
    return outcome(["word", "group", "RIPA"], rows, notes=notes, x="RIPA", y="word")


def run_debias(spec: SectionSpec) -> dict[str, Any]:
    """WEAT 6-8 before/after projecting out the gender direction, and a random one (:meth:`compare_weat`)."""
    from ..relation import RelationProjection

    study = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, model=spec.model.name, **model_options(spec))
    frame = study.compare_weat(("weat6", "weat7", "weat8"), n_random=spec.options["debias_random"],
                               seed=spec.options["seed"], n_samples=spec.options["permutations"])
    rows, tests = [], []
    for r in frame.to_dict("records"):
        for label, col in (("original", "original"), ("gender direction removed", "debiased"),
                           ("random direction removed", "random")):
            rows.append([f"{r['test']} {label}", r["test"], label, _rounded(r[col]), float(r[f"p_{col}"])])
        tests += [{"label": f"{r['test']} original", "p": float(r["p_original"])},
                  {"label": f"{r['test']} gender direction removed", "p": float(r["p_debiased"])}]
    notes = [f"random control: mean effect size over {spec.options['debias_random']} random direction(s), seeds "
             f"{spec.options['seed']}..; its p column is the mean p (not a test, left out of Holm-Bonferroni)"]
    return outcome(["row", "test", "vectors", "effect size d", "p"], rows, tests=tests, notes=notes,
                   x="effect size d", y="row")


def run_sense_weat(spec: SectionSpec) -> dict[str, Any]:
    """Sense WEAT with word-level twins (:func:`run_sense_suite`); a sentence encoder through its gloss vectors."""
    from ...stimuli.sense_tests import sense_test_names
    from ..senses import run_sense_suite

    name = spec.model.name if spec.model.kind == "sense" else f"gloss:{spec.model.name}"
    chosen = spec.options["sense_tests"]
    tests = sense_test_names() if chosen == "all" else list(chosen)
    records = run_sense_suite(tests, [name], n_samples=spec.options["permutations"], seed=spec.options["seed"],
                              model_options=model_options(spec))
    rows, tests_out, notes = [], [], []
    for r in records:
        word = r["word_level"]
        rows.append([r["test"], _rounded(r["effect_size"]), r["p_value"], _rounded(word["word_average"]["effect_size"]),
                     _rounded(word["word_max"]["effect_size"])])
        tests_out.append({"label": r["test"], "p": r["p_value"]})
        notes.extend(f"{r['test']}: {n}" for n in r.get("notes", []))
    if name.startswith("gloss:"):
        notes.append(f"sense vectors: {name}, gloss vectors only (LMMS's gloss step, one component of full LMMS)")
    return outcome(["test", "sense d", "p", "word-average d", "word-max d"], rows, tests=tests_out, notes=notes,
                   x="sense d", y="test")
