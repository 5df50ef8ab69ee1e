"""The report's sections: each calls an existing analysis and returns its numbers as a table (no metric here).

A section runner takes a :class:`~.plan.SectionSpec` and returns an *outcome*: a JSON-ready dict with
``table`` (``columns``, ``rows``), ``tests`` (``label``, ``p``: every p-value, corrected later across the
whole report), ``notes`` and ``chart`` (which table columns the bar chart draws: ``x`` value, ``y`` label, and
where given ``interval`` (a column of interval cells), ``color`` (a group column) and ``ref`` (the value that
means "no bias": 0, 50 or 1)). Language-model and NLI sections live in :mod:`.sections_lm`.

Numbers keep full precision (only the displays round, through :mod:`embias_widgets.formatting`). An interval
is read from the analysis' record wherever it has one: the key ``X_interval`` beside the score ``X`` (a dict
``low``, ``high``, ``level``, ``method``), and it becomes a table cell of its own column (``"95% interval"``);
a record without one gets no interval (never an invented one). The association records' ``stability`` and
``influence`` become the columns ``stability``, ``same sign %`` and ``words flipping sign``; the verdicts and
their rule are judged again by the report's Holm decision once it is known (:mod:`.verdicts`).
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
    "nli-religion-polarity": "NLI probe: religion x polarity", "bbq": "BBQ (question answering)",
}
WHAT = {
    "weat": "WEAT compares how much closer two sets of target words are to one set of attribute words than to "
            "another, by cosine similarity (Caliskan et al. 2017). The effect size d is in standard deviations; "
            "p is the one-sided permutation p-value.",
    "ripa": "RIPA projects a word onto the relation vector of the gender-definitional pairs (Ethayarajh et al. "
            "2019), positive towards the female words. It is the inner product with the raw vector, so frequent "
            "words with long vectors score further from zero.",
    "debias": "The gender direction of the definitional pairs is projected out of every vector and WEAT 6-8 are "
              "run again (Dev et al. 2020). A random direction of the same dimension is projected out as the control.",
    "seat": "SEAT is WEAT on sentence vectors: each word is slotted into semantically bleached templates (May et "
            "al. 2019). The effect size and p-value read as for WEAT.",
    "sense-weat": "Sense WEAT runs WEAT over word senses with the max variant and compares it with its word-level "
                  "twins (Zhou et al. 2022). A sense-level bias can hide behind an unbiased word.",
    "crows-pairs": "CrowS-Pairs counts the pairs in which a masked LM prefers the more stereotypical sentence "
                   "(Nangia et al. 2020); 50% is unbiased when no pair ties (a tie counts as not stereotypical). "
                   "The share of the decided pairs and its sign test say whether the model prefers one side. CPS "
                   "masks the shared tokens, AUL reads one unmasked pass (Kaneko & Bollegala 2022).",
    "stereoset": "StereoSet's SS is the share of contexts where the stereotype beats the anti-stereotype (50 is "
                 "unbiased) and LMS the share where a meaningful option beats the unrelated one (Nadeem et al. "
                 "2021). ICAT combines both (100 is ideal).",
    "sense-pairs": "Sense-sensitive pairs score stereotypical against anti-stereotypical sentences per sense type "
                   "with AUL (Zhou et al. 2022). The score is the percentage minus 50: 0 is unbiased.",
    "bbq": "BBQ asks a question about one of two people after an ambiguous context (the answer is \"unknown\") or a "
           "disambiguated one (Parrish et al. 2022); the model's answer is the one it finds most likely after the "
           "context and question. The bias score is x100: 0 is unbiased, +100 always the stereotype; the "
           "ambiguous score is scaled by the errors made.",
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
            notes: list[str] | None = None, x: str | None = None, y: str | None = None,
            **chart: Any) -> dict[str, Any]:
    """The JSON-ready outcome of a section (see the module docstring); ``chart`` takes ``interval``, ``color``
    and ``ref`` (left out when None)."""
    extra = {k: v for k, v in chart.items() if v is not None and (k != "interval" or v in columns)}
    return {"table": {"columns": columns, "rows": rows}, "tests": tests or [],
            "notes": list(dict.fromkeys(notes or [])), "chart": {"x": x, "y": y, **extra} if x and y else None}


def interval(record: dict[str, Any] | None, key: str) -> dict[str, Any] | None:
    """The interval of ``record[key]`` as the analysis gave it (``key + "_interval"``, with ``low`` and
    ``high``), full precision; None when the record has none."""
    got = (record or {}).get(f"{key}_interval")
    if not isinstance(got, dict) or got.get("low") is None or got.get("high") is None:
        return None
    return {"low": float(got["low"]), "high": float(got["high"]), "level": float(got.get("level", 0.95)),
            "method": str(got.get("method", ""))}


def interval_column(intervals: list[dict[str, Any] | None]) -> str:
    """``"95% interval"`` (the level of the first interval given)."""
    level = next((i["level"] for i in intervals if i), 0.95)
    return f"{level * 100:g}% interval"


def interval_note(intervals: list[dict[str, Any] | None]) -> list[str]:
    """What each interval method of the section resampled, in words: one note per method, the first row's
    wording standing for the rows whose wording differs only in their counts (k, n)."""
    import re

    seen: dict[str, str] = {}
    for i in intervals:
        if i and i["method"]:
            seen.setdefault(re.sub(r"\d[\d,.]*", "#", i["method"]), f"{i['level'] * 100:g}% interval: {i['method']}")
    notes = list(seen.values())
    n_rows = sum(1 for i in intervals if i)
    if len(notes) == 1 and n_rows > 1 and len({i["method"] for i in intervals if i}) > 1:
        notes[0] += " (the first row's wording; each row with its own counts)"
    return notes


def level_of(spec: SectionSpec) -> float:
    """The level of every interval of the section (``--level``; 0.95 unless the report was given another)."""
    return float(spec.options.get("level", 0.95))


def model_options(spec: SectionSpec) -> dict[str, Any]:
    """The ``device`` and ``dtype`` of the report (only those given), for the section's model load."""
    return {k: spec.options[k] for k in ("device", "dtype") if spec.options.get(k) is not None}


def number(v: Any) -> Any:
    """``v`` as a float at full precision (None stays None): report.json keeps every digit."""
    return None if v is None else float(v)


def _robustness(records: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]], list[str]]:
    """Columns, per-record cells and notes of the records' ``stability`` and ``influence`` (where any has them)."""
    stab = [r.get("stability") if isinstance(r.get("stability"), dict) else None for r in records]
    infl = [r.get("influence") if isinstance(r.get("influence"), list) else None for r in records]
    columns: list[str] = []
    cells: list[list[Any]] = [[] for _ in records]
    notes: list[str] = []
    if any(stab):
        columns += ["stability", "same sign %"]
        for c, st in zip(cells, stab, strict=True):
            c += [st.get("verdict"), number(100 * st["share_same_sign"]) if st and st.get("share_same_sign")
                  is not None else None] if st else [None, None]
    if any(infl):
        columns.append("words flipping sign")
        for c, inf in zip(cells, infl, strict=True):
            c.append(sum(bool(w.get("flips_sign")) for w in inf) if inf is not None else None)
        notes.append("words flipping sign: how many single words, left out one at a time, change the sign of d")
    return columns, cells, notes


def _suite_outcome(records: list[dict[str, Any]]) -> dict[str, Any]:
    rows, tests, notes = [], [], []
    intervals = [interval(r, "effect_size") for r in records]
    has_interval = any(intervals)
    robust_columns, robust_cells, robust_notes = _robustness(records)
    for r, iv, extra in zip(records, intervals, robust_cells, strict=True):
        rows.append([r["test"], number(r["effect_size"]), *([iv] if has_interval else []), r["p_value"],
                     r["num_targ1"], r["num_targ2"], r["num_attr1"], r["num_attr2"], len(r["oov"]), *extra])
        tests.append({"label": r["test"], "p": r["p_value"]})
        notes.extend(f"{r['test']}: {n}" for n in r.get("notes", []))  # its out-of-vocabulary items named once
    notes += p_value_notes(records)
    iv_col = [interval_column(intervals)] if has_interval else []
    return outcome(["test", "effect size d", *iv_col, "p", "n X", "n Y", "n A", "n B", "OOV", *robust_columns],
                   rows, tests=tests, notes=[*notes, *interval_note(intervals), *robust_notes], x="effect size d",
                   y="test", interval=iv_col[0] if iv_col else None, ref=0)


def p_value_notes(records: list[dict[str, Any]]) -> list[str]:
    """How each row's p was computed, one note per way (exact over all splits, or sampled, and over how many),
    naming the rows: a note that took the first row's way for all would call an exact p sampled."""
    ways: dict[tuple[str, str, int], list[str]] = {}
    for r in records:
        ways.setdefault((r["method"], r["alternative"], r["n_permutations"]), []).append(r["test"])
    return [f"p-values of {', '.join(tests)}: {method} permutation test over "
            f"{'all ' if method == 'exact' else ''}{n:,} splits, alternative {alternative!r}"
            for (method, alternative, n), tests in ways.items()]


ROBUSTNESS = {"subsets": 200, "keep": 0.8}
"""Word influence (every word left out once) and subset stability (200 seeded subsets keeping 80% of each set's
words) for every WEAT and SEAT row, in quick and full reports alike: both reuse the run's cosines (tens of ms a
test at weat6's size). A section's options may set ``subsets`` (and ``level``, ``resamples`` for the interval)."""


def _suite_records(tests: list[str], spec: SectionSpec, kept: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """:func:`run_suite` with each row's interval, word influence and subset stability; ``kept["items"]`` gets the
    per-word cosines a paired comparison needs (:func:`~.items.association_items`)."""
    from ..association import run_suite

    interval_options = {k: spec.options[k] for k in ("level",) if spec.options.get(k) is not None}
    if spec.options.get("resamples") is not None:
        interval_options["n_resamples"] = spec.options["resamples"]
    suite = run_suite(tests, [spec.model.name], n_samples=spec.options["permutations"], seed=spec.options["seed"],
                      progress=False, **interval_options, **model_options(spec))
    if kept is not None:
        from .items import association_items

        kept["items"] = association_items(list(suite.results))
    return suite.records(robustness=True, k=spec.options.get("subsets", ROBUSTNESS["subsets"]),
                         keep=ROBUSTNESS["keep"])


def run_weat(spec: SectionSpec) -> dict[str, Any]:
    """WEAT 1-10 and the b variants on static vectors (:func:`run_suite`), with intervals and robustness."""
    kept: dict[str, Any] = {}
    return {**_suite_outcome(_suite_records(list(WEAT_TESTS), spec, kept)), **kept}


def run_seat(spec: SectionSpec) -> dict[str, Any]:
    """The SEAT suite on a sentence encoder (:func:`run_suite` with sentence tests)."""
    from ...stimuli.sentence_tests import sentence_test_names

    chosen = spec.options["seat_tests"]
    tests = sentence_test_names() if chosen == "all" else list(chosen)
    kept: dict[str, Any] = {}
    return {**_suite_outcome(_suite_records(tests, spec, kept)), **kept}


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
    study = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, groups, model=spec.model.name, **model_options(spec))
    result = study.run(level=level_of(spec), seed=spec.options["seed"])
    records = result.to_dict().get("words", [])  # each scored word with its interval over the relation pairs
    intervals = ([interval(w, "ripa") for w in records] if len(records) == len(result.words)
                 and [w.get("word") for w in records] == list(result.words) else [None] * len(result.words))
    has_interval = any(intervals)
    rows = [[w, g, number(s), *([iv] if has_interval else [])]
            for w, g, s, iv in zip(result.words, result.groups, result.ripa, intervals, strict=True)]
    rows.sort(key=lambda r: -r[2])
    from .items import relation_items

    kept = {"items": relation_items(study, result)}
    notes = [*result.notes, f"relation vector from {len(result.pairs)} pairs; positive = towards the first word of "
             "each pair (woman, girl, she, ...)", *interval_note(intervals)]
    iv_col = [interval_column(intervals)] if has_interval else []
    return {**outcome(["word", "group", "RIPA", *iv_col], rows, notes=notes, x="RIPA", y="word",
                      interval=iv_col[0] if iv_col else None, color="group", ref=0), **kept}


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
            rows.append([f"{r['test']} {label}", r["test"], label, number(r[col]), float(r[f"p_{col}"])])
        tests += [{"label": f"{r['test']} original", "p": float(r["p_original"])},
                  {"label": f"{r['test']} gender direction removed", "p": float(r["p_debiased"])}]
    notes = [f"random control: mean effect size over {spec.options['debias_random']} random direction(s), seeds "
             f"{spec.options['seed']}..; its p column is the mean p (not a test, left out of Holm-Bonferroni)"]
    return outcome(["row", "test", "vectors", "effect size d", "p"], rows, tests=tests, notes=notes,
                   x="effect size d", y="test", color="vectors", ref=0)


def run_sense_weat(spec: SectionSpec) -> dict[str, Any]:
    """Sense WEAT with word-level twins (:func:`run_sense_suite`); a sentence encoder through its gloss vectors."""
    from ...stimuli.sense_tests import sense_test_names
    from ..senses import run_sense_suite

    name = spec.model.name if spec.model.kind == "sense" else f"gloss:{spec.model.name}"
    chosen = spec.options["sense_tests"]
    tests = sense_test_names() if chosen == "all" else list(chosen)
    records = run_sense_suite(tests, [name], n_samples=spec.options["permutations"], seed=spec.options["seed"],
                              model_options=model_options(spec), level=level_of(spec))
    rows, tests_out, notes = [], [], []
    intervals = [interval(r, "effect_size") for r in records]
    iv_col = [interval_column(intervals)] if any(intervals) else []
    for r, iv in zip(records, intervals, strict=True):
        word = r["word_level"]
        rows.append([r["test"], number(r["effect_size"]), *([iv] if iv_col else []), r["p_value"],
                     number(word["word_average"]["effect_size"]), number(word["word_max"]["effect_size"])])
        tests_out.append({"label": r["test"], "p": r["p_value"]})
        notes.extend(f"{r['test']}: {n}" for n in r.get("notes", []))
    if name.startswith("gloss:"):
        notes.append(f"sense vectors: {name}, gloss vectors only (LMMS's gloss step, one component of full LMMS)")
    notes += interval_note(intervals)
    return outcome(["test", "sense d", *iv_col, "p", "word-average d", "word-max d"], rows, tests=tests_out,
                   notes=notes, x="sense d", y="test", interval=iv_col[0] if iv_col else None, ref=0)
