"""Report sections for language models (CrowS-Pairs, StereoSet, sense-sensitive pairs, SSSB) and NLI models.

Each runner calls :class:`~embias_widgets.analysis.PairedLikelihood` or :class:`~embias_widgets.analysis.NliProbe`
and returns an outcome (see :mod:`.sections`). The NLI probes run on a seeded random sample of their pairs
(:class:`SampledPairs`); the intervals are the NLI result's (the two-way bootstrap over templates and word pairs, at
both levels: over sentence pairs and over word pairs) at the report's level (95% unless ``--level`` gives another).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ...formatting import format_value
from ...stimuli.nli_probes import NliPair, PairSource, TemplateProbe
from .items import nli_items, pair_items, stereoset_items
from .plan import SectionSpec
from .sections import interval, interval_column, interval_note, level_of, model_options, number, outcome


def _lm_metric(spec: SectionSpec) -> str:
    return "pll" if spec.model.kind == "causal-lm" else "cps"


def _read(spec: SectionSpec, name: str, fmt: str, limit: int | None) -> list[Any]:
    from ...stimuli.pairs import read_pairs

    return read_pairs(spec.data[name], format_in=fmt, limit=limit)


def _bias_rows(record: dict[str, Any], key: str = "score") -> list[list[Any]]:
    """``[label, n, score, interval or None]``: overall, then per bias type (the record's ``score_interval``)."""
    rows = [["all", record["n"], number(record["score"]), interval(record, "score")]]
    rows += [[k, v["n"], number(v[key]), interval(v, key)] for k, v in sorted(record["by_bias_type"].items())]
    return rows


def _with_intervals(columns: list[str], rows: list[list[Any]],
                    at: int) -> tuple[list[str], list[list[Any]], str | None]:
    """Keep the interval cells at ``at`` (named ``"95% interval"``) when any row has one, else drop them."""
    intervals = [r[at] for r in rows]
    if not any(intervals):
        return columns, [r[:at] + r[at + 1:] for r in rows], None
    name = interval_column(intervals)
    return [*columns[:at], name, *columns[at:]], rows, name


def _scored(result: Any, what: str) -> Any:
    """``result`` when at least one pair was scored; else the first pair's error (never a table of nothing)."""
    if result.score is None:
        first = next((r.error for r in result.rows if r.error), "no pair given")
        raise ValueError(f"no pair of {what} could be scored ({len(result.rows)} tried); the first: {first}")
    return result


def _lm_notes(*records: dict[str, Any]) -> list[str]:
    notes = []
    for rec in records:
        notes += [rec.get("demo_note") or "", *rec.get("notes", [])]
        if rec.get("n_ties"):
            notes.append(f"{rec['metric']}: {rec['n_ties']} tied pair(s) counted in N, never a success")
    return [n for n in notes if n]


def _crows_rows(a: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(label, record)``: all pairs, each bias type, each direction."""
    return [("all", a), *sorted(a["by_bias_type"].items()),
            *((f"direction: {k}", v) for k, v in sorted(a["by_direction"].items()))]


def run_crows(spec: SectionSpec) -> dict[str, Any]:
    """CrowS-Pairs with CPS (PLL for a causal LM) and AUL, per bias type and per direction: the published score
    with its Wilson interval, the share of decided pairs with theirs, and the sign test of the decided pairs."""
    from ..likelihood import PairedLikelihood

    pairs = _read(spec, "crows-pairs", "crows", spec.options["crows_pairs"])
    study = PairedLikelihood(pairs, model=spec.model.name, metric=_lm_metric(spec), progress=False,
                             **model_options(spec))
    runs = {"headline": _scored(study.run(), "CrowS-Pairs")}
    a = runs["headline"].to_dict(naming="crows", items=False, level=level_of(spec))
    records = [a]
    b = None
    if spec.model.kind == "masked-lm":
        runs["aul"] = _scored(study.run(metric="aul"), "CrowS-Pairs")
        b = runs["aul"].to_dict(naming="crows", items=False, level=level_of(spec))
        records.append(b)
    name_a = a["metric"].upper()
    b_rows = dict(_crows_rows(b)) if b else {}
    rows, tests = [], []
    for label, v in _crows_rows(a):
        rows.append([label, v["n"], number(v["score"]), interval(v, "score"), number(v["percent_of_decided"]),
                     interval(v, "percent_of_decided"), v["n_ties"], v["p_value"]]
                    + ([number(b_rows[label]["score"]), number(b_rows[label]["score"] - 50)] if b else []))
        if not label.startswith("direction: "):
            tests.append({"label": label, "p": v["p_value"]})
    scores = [r[3] for r in rows]
    decided = [r[5] for r in rows]
    iv_name = interval_column(scores + decided)
    decided_col = f"{name_a} % of decided pairs"
    columns = ["bias type", "n", f"{name_a} %", iv_name, decided_col, f"decided {iv_name}", "ties", "p (sign test)"]
    columns += ["AUL %", "AUL (Zhou: % - 50)"] if b else []
    notes = [f"{len(pairs):,} pairs; {name_a} %: the published score, % of pairs whose more stereotypical sentence "
             f"scores higher, a tie counting in n and never as stereotypical (CrowS-Pairs' metric.py; {name_a} "
             f"scores rounded to {a['decimals']} decimals), so 50 means no bias only without ties; its interval is "
             "for the expected published score",
             f"{decided_col}: the ties left out (50 = no preference whatever the ties); p: "
             f"{a['p_value_method']}; the bias-type rows join the report's Holm-Bonferroni, the direction rows "
             "(CrowS-Pairs' stereo and anti-stereo sub-scores) are shown uncorrected",
             *interval_note(scores), *interval_note(decided), *_lm_notes(*records)]
    return {**outcome(columns, rows, tests=tests, notes=notes, x=decided_col, y="bias type",
                      interval=f"decided {iv_name}", ref=50), "items": pair_items(runs)}


def run_stereoset(spec: SectionSpec) -> dict[str, Any]:
    """StereoSet intrasentence SS, LMS and ICAT, overall and per bias type."""
    from ..likelihood import PairedLikelihood

    pairs = _read(spec, "stereoset", "stereoset", spec.options["stereoset_items"])
    study = PairedLikelihood(pairs, model=spec.model.name, metric=_lm_metric(spec), progress=False,
                             **model_options(spec))
    run = _scored(study.run(), "StereoSet")
    rec = run.to_dict(items=False, level=level_of(spec))
    ss = rec.get("stereoset") or {}
    rows = [["all", ss.get("n"), number(ss.get("ss")), interval(ss, "ss"), number(ss.get("lms")),
             interval(ss, "lms"), number(ss.get("icat")), interval(ss, "icat")]]
    rows += [[k, v["n"], number(v["ss"]), interval(v, "ss"), number(v["lms"]), interval(v, "lms"),
              number(v["icat"]), interval(v, "icat")] for k, v in sorted(ss.get("by_bias_type", {}).items())]
    columns = ["bias type", "n", "SS", "SS interval", "LMS", "LMS interval", "ICAT", "ICAT interval"]
    intervals = [c for r in rows for c in r[3::2]]
    keep = [i for i, c in enumerate(columns) if "interval" not in c or any(r[i] for r in rows)]
    columns, rows = [columns[i] for i in keep], [[r[i] for i in keep] for r in rows]
    notes = [f"{len(pairs):,} intrasentence items scored with {rec['metric'].upper()}",
             "StereoSet reports no significance test, so none is given here", *interval_note(intervals),
             *_lm_notes(rec)]
    return {**outcome(columns, rows, notes=notes, x="SS", y="bias type", interval="SS interval", ref=50),
            "items": stereoset_items(run)}


def _sense_outcome(rec: dict[str, Any], n_pairs: int, where: str) -> dict[str, Any]:
    rows = _bias_rows(rec)
    rows += [[k, v["n"], number(v["score"]), interval(v, "score")]
             for k, v in sorted((rec.get("by_sense_key") or {}).items())]
    intervals = [r[3] for r in rows]
    columns, rows, iv_name = _with_intervals(["sense type / key", "n", "bias score"], rows, 3)
    notes = [f"{n_pairs:,} pairs from {where}, AUL, % minus 50 (Zhou et al.; 0 = unbiased)",
             "descriptive here: no test of these rows joins the report's Holm-Bonferroni (embias pll --format json "
             "gives each row's sign test of its decided pairs)", *interval_note(intervals), *_lm_notes(rec)]
    return outcome(columns, rows, notes=notes, x="bias score", y="sense type / key", interval=iv_name, ref=0)


def run_sense_pairs(spec: SectionSpec) -> dict[str, Any]:
    """The bundled sense-sensitive pairs with AUL in Zhou et al.'s convention (a seeded sample under --quick)."""
    from ..likelihood import PairedLikelihood

    study = PairedLikelihood.for_senses(model=spec.model.name, progress=False, **model_options(spec))
    n = spec.options["sense_pairs"]
    if n is not None and n < len(study.pairs):
        rng = np.random.default_rng(spec.options["seed"])
        study.set_pairs([study.pairs[i] for i in sorted(rng.choice(len(study.pairs), n, replace=False))])
    run = _scored(study.run(), "the sense-sensitive sentences")
    rec = run.to_dict(items=False, level=level_of(spec))
    return {**_sense_outcome(rec, len(study.pairs), f"the bundled sense-sensitive sentences (seed "
                                                     f"{spec.options['seed']})"), "items": pair_items({"aul": run})}


def run_sssb(spec: SectionSpec) -> dict[str, Any]:
    """The user's SSSB files (``--pairs``), AUL per sense type."""
    from ...stimuli.pairs import read_pairs
    from ..likelihood import PairedLikelihood

    pairs = [p for path in spec.data.values() for p in read_pairs(path, format_in="sssb")]
    run = _scored(PairedLikelihood.for_senses(pairs, model=spec.model.name, progress=False,
                                              **model_options(spec)).run(), "the SSSB files")
    rec = run.to_dict(items=False, level=level_of(spec))
    return {**_sense_outcome(rec, len(pairs), ", ".join(spec.data)), "items": pair_items({"aul": run})}


class SampledPairs(PairSource):
    """A seeded random sample (without replacement, in index order) of a template probe's pairs."""

    def __init__(self, probe: TemplateProbe, n: int, seed: int) -> None:
        self.probe = probe
        self.seed = seed
        rng = np.random.default_rng(seed)
        total = len(probe)
        self.indices = np.sort(rng.choice(total, min(n, total), replace=False))
        self.name = f"{probe.name} (sample of {len(self.indices):,}, seed {seed})"

    def __len__(self) -> int:
        return len(self.indices)

    def fingerprint(self) -> str:
        from ...stimuli.fingerprints import pairs_fingerprint

        digest = hashlib.sha256(self.indices.tobytes()).hexdigest()
        return f"{pairs_fingerprint(self.probe)}:{digest}"

    def iter_pairs(self, start: int = 0, stop: int | None = None) -> Iterator[NliPair]:
        start, stop = self._range(start, stop)
        for i in self.indices[start:stop]:
            yield self.probe.pair(int(i))




TEMPLATE_NOTE = "per template: "
"""The start of the NLI section's note on template sensitivity (the report's robustness line quotes it)."""


def template_note(templates: dict[str, Any] | None) -> list[str]:
    """How far NN moves with the template (Seshadri et al. 2022: template edits swing such scores): the most
    and the least neutral template of the sampled pairs, from :meth:`~.nli.NliProbeResult.templates`."""
    if not templates or templates.get("n_templates", 0) < 2:
        return []
    most, least = templates["most_neutral"], templates["least_neutral"]
    return [f"{TEMPLATE_NOTE}NN ranges from {format_value(least['net_neutral'])} ({least['template']!r}, "
            f"{least['n']} pairs) to {format_value(most['net_neutral'])} ({most['template']!r}, {most['n']} "
            f"pairs) over {templates['n_templates']:,} templates of the sampled pairs"]


def word_pair_note(per_pair: Any, n_templates: int) -> str:
    """How many word pairs the sample reached and how many of each one's templates it holds: the word-pair
    measures average only those sampled templates, not all of them (Dev et al. average every template)."""
    counts = per_pair.groupby(["premise_word", "hypothesis_word"]).size().to_numpy()
    return (f"word-pair measures average each word pair's sampled templates only: {len(counts):,} word pairs, "
            f"{int(counts.min())}-{int(counts.max())} (median {float(np.median(counts)):g}) of its {n_templates:,} "
            "templates each; the sentence-pair measures are over the sampled pairs")


def run_nli(spec: SectionSpec) -> dict[str, Any]:
    """One NLI probe of Dev et al. on a seeded sample of its pairs, with NN and FN intervals."""
    from ...stimuli.nli_probes import load_probe
    from ..nli import NliProbe

    probe = load_probe(spec.method.removeprefix("nli-"))
    source = SampledPairs(probe, spec.options["nli_pairs"], spec.options["seed"])
    result = NliProbe(source, model=spec.model.name, model_options=model_options(spec)).run(per_pair=True)
    per_pair = result.pairs_table()
    level = level_of(spec)
    d = result.to_dict(level=level)
    rows = []
    for at in ("pairs", "word_pairs"):
        s = d[at]
        where = at.replace("_", " ")
        rows.append([f"NN ({where})", number(s["net_neutral"]), interval(s, "net_neutral")])
        rows.append([f"FN ({where})", number(s["fraction_neutral"]), interval(s, "fraction_neutral")])
        rows += [[f"T:{k.removeprefix('threshold_')} ({where})", number(v), interval(s, k)]
                 for k, v in s.items() if k.startswith("threshold_") and not k.endswith("_interval")]
    intervals = [r[2] for r in rows]
    notes = [f"{len(source):,} of {len(probe):,} pairs, a seeded random sample (seed {spec.options['seed']})",
             *template_note(d.get("templates")),
             *interval_note(intervals),
             word_pair_note(per_pair, len(probe.templates)),
             "no p-value: these are descriptive measures", *(n for n in d.get("notes", []) if "subset" not in n)]
    if d.get("note"):
        notes.append(d["note"])
    column = interval_column(intervals)
    return {**outcome(["measure", "value", column], rows, notes=notes, x="value", y="measure", interval=column,
                      ref=1), "items": nli_items(source, per_pair)}
