"""The comparison of two models (a baseline and another) across every method both ran, as a JSON-ready dict.

:func:`compare_models` pairs each method's two section records (:func:`~.pairing.pair_sections`), runs
Holm-Bonferroni once over the p-values of the gated rows (the bias measures with a paired test), and says per
row whether the bias grew, shrank or did not change significantly:

- ``significant``: the row's paired test survives Holm at ``alpha``;
- ``verdict``: ``"bias grew"`` when significant and the interval of the change in bias (the distance from the
  no-bias value, ``bias_change_interval``) lies above 0, ``"bias shrank"`` when it lies below, ``"changed"``
  when significant but the bias change's interval holds 0 (the score crossed the no-bias value), and
  ``"no significant change"`` otherwise; descriptive rows get ``"descriptive"``.

The dict (schema :data:`COMPARISON_SCHEMA`) is what ``report.json``'s ``comparisons`` list holds, what
``embias compare`` writes to ``comparison.json`` and what the CI gate (:mod:`.gate`) reads.
"""

from __future__ import annotations

from typing import Any

from ...metrics import holm_bonferroni
from ...metrics.multiple_testing import DEFAULT_ALPHA
from .pairing import pair_sections

COMPARISON_SCHEMA = "embias-comparison/1"
NOT_COMPARED = {
    "debias": "the debiasing check compares one model with itself; its 'original' rows are WEAT 6-8, compared "
              "under WEAT",
    "ceat": "CEAT's paired comparison needs each word's context vectors of both models, which a section does not "
            "keep",
    "sense-weat": "sense WEAT keeps no per-sense cosines: not compared",
}
ESTIMANDS = {
    "effect size d": "the change in d over the word populations the four lists stand for (interval: each model's d "
                     "with every set replaced by its population; unreliable where the row has a warning); with "
                     "these words (test)",
    "SS": "StereoSet's score over the population of targets (target-clustered)",
    "NN": "the measure over the population of templates and word pairs (crossed design)",
}


def _verdict(row: dict[str, Any]) -> str:
    if not row["gated"] or row["p_value"] is None:
        return "descriptive"
    if not row.get("significant"):
        return "no significant change"
    iv = row.get("bias_change_interval")
    if iv and iv["low"] > 0:
        return "bias grew"
    if iv and iv["high"] < 0:
        return "bias shrank"
    return "changed"


def model_entry(report: dict[str, Any], name: str) -> dict[str, Any]:
    """The ``{"name", "kind", "fingerprint"}`` of ``name`` in ``report``."""
    return next(dict(m) for m in report["models"] if m["name"] == name)


def compare_models(before_report: dict[str, Any], before: str, after_report: dict[str, Any], after: str, *,
                   alpha: float = DEFAULT_ALPHA, level: float = 0.95, seed: int = 0,
                   resamples: int = 2_000) -> dict[str, Any]:
    """Compare model ``before`` of ``before_report`` with model ``after`` of ``after_report`` (the two may be the
    same report). The sections must hold their ``items`` (saved sections; see
    :mod:`embias_widgets.analysis.report.items`)."""
    mine = {s["method"]: s for s in before_report["sections"] if s["model"] == before and s["status"] == "done"}
    theirs = {s["method"]: s for s in after_report["sections"] if s["model"] == after and s["status"] == "done"}
    rows, unpaired, notes, not_compared = [], [], [], []
    for method, sb in mine.items():
        sa = theirs.get(method)
        if sa is None:
            not_compared.append({"method": method, "title": sb["title"], "reason": f"not run on {after}"})
            continue
        if method in NOT_COMPARED:
            not_compared.append({"method": method, "title": sb["title"], "reason": NOT_COMPARED[method]})
            continue
        paired = pair_sections(sb, sa, seed=seed, level=level, resamples=resamples)
        for r in paired.rows:
            r["title"] = sb["title"]
        rows += paired.rows
        unpaired += paired.unpaired
        notes += [f"{sb['title']}: {n}" for n in dict.fromkeys(paired.notes)]
        if not paired.rows:
            not_compared.append({"method": method, "title": sb["title"], "reason": "; ".join(paired.notes) or
                                 "nothing both models scored"})
    for method, sa in theirs.items():
        if method not in mine:
            not_compared.append({"method": method, "title": sa["title"], "reason": f"not run on {before}"})
    tested = [r for r in rows if r["gated"] and r["p_value"] is not None]
    for r in rows:
        r["p_holm"], r["significant"] = None, None
    if tested:
        holm = holm_bonferroni([r["p_value"] for r in tested], alpha=alpha)
        for r, adjusted, reject in zip(tested, holm.adjusted, holm.reject, strict=True):
            r["p_holm"], r["significant"] = float(adjusted), bool(reject)
    for r in rows:
        r["verdict"] = _verdict(r)
    return {
        "schema": COMPARISON_SCHEMA,
        "before": model_entry(before_report, before), "after": model_entry(after_report, after),
        "alpha": float(alpha), "level": float(level), "seed": int(seed), "resamples": int(resamples),
        "holm": {"alpha": float(alpha), "n_tests": len(tested)},
        "rows": rows, "unpaired": unpaired, "not_compared": not_compared, "notes": list(dict.fromkeys(notes)),
        "estimands": dict(ESTIMANDS),
    }


def summary_lines(comparison: dict[str, Any]) -> list[str]:
    """One line per gated row (and the counts): what a terminal shows."""
    from ...formatting import format_interval, format_value

    c = comparison
    lines = [f"{c['before']['name']} -> {c['after']['name']}: {c['holm']['n_tests']} paired tests, Holm-Bonferroni "
             f"at alpha {c['alpha']:g}"]
    for r in c["rows"]:
        if not r["gated"]:
            continue
        iv = format_interval(r["change_interval"], "number") if r["change_interval"] else "(no interval)"
        p = format_value(r["p_holm"], "p") if r["p_holm"] is not None else "-"
        lines.append(f"  {r['title']} {r['row']} [{r['measure']}]: {format_value(r['before'], 'number')} -> "
                     f"{format_value(r['after'], 'number')}, change {format_value(r['change'], 'number')} {iv}, "
                     f"p (Holm) {p}: {r['verdict']}")
        if r.get("warning"):
            lines.append(f"    warning: {r['warning']}")
    for u in c["unpaired"]:
        lines.append(f"  note: {u['n']} item(s) of {u['method']} only {u['model']} could use ({u['why']}), left "
                     "out of the pairing")
    for n in c["not_compared"]:
        lines.append(f"  not compared: {n['title']}: {n['reason']}")
    return lines
