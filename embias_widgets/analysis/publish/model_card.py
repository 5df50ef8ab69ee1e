"""``MODEL_CARD_BIAS.md``: a report's results as a "Bias evaluation" section in the Hugging Face model-card
style, with a ``model-index`` YAML block in the Hub's evaluation-results schema, ready to paste into a model
card (its front matter and its body).

The YAML follows the Hub's model-index convention (``huggingface_hub.EvalResult``): per model ``name`` and
``results``, each result a ``task`` (``type``: the pipeline tag of the model's kind, ``name``), a ``dataset``
(``type``: the Hub dataset id where the data is on the Hub, else ``embias-widgets/<stimuli>``; ``name``) and
``metrics`` (``type``, ``value`` at full precision, ``name``). Intervals, Holm's decision, caveats with their
sources and citations are in the Markdown (the schema has no field for them). Strings are written as JSON
strings, which YAML reads as they are.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...formatting import format_interval, format_value
from .agreement import validity_notes
from .findings import SHORT, demo_notes, headline, section_rows, value_kind

FILE_NAME = "MODEL_CARD_BIAS.md"
TASKS = {"static": "feature-extraction", "sentence": "sentence-similarity", "sense": "feature-extraction",
         "masked-lm": "fill-mask", "causal-lm": "text-generation", "nli": "text-classification"}
DATASETS = {"crows-pairs": ("nyu-mll/crows_pairs", "CrowS-Pairs"),
            "stereoset": ("McGill-NLP/stereoset", "StereoSet (intrasentence)")}
CITATIONS = {
    "weat": "Caliskan, Bryson & Narayanan (2017), Semantics derived automatically from language corpora contain "
            "human-like biases, Science 356(6334)",
    "ripa": "Ethayarajh, Duvenaud & Hirst (2019), Understanding Undesirable Word Embedding Associations, ACL 2019",
    "debias": "Dev, Li, Phillips & Srikumar (2020), On Measuring and Mitigating Biased Inferences of Word "
              "Embeddings, AAAI 2020",
    "seat": "May, Wang, Bordia, Bowman & Rudinger (2019), On Measuring Social Biases in Sentence Encoders, NAACL 2019",
    "sense-weat": "Zhou, Kaneko & Bollegala (2022), Sense Embeddings are also Biased - Evaluating Social Biases in "
                  "Static and Contextualised Sense Embeddings, ACL 2022",
    "crows-pairs": "Nangia, Vania, Bhalerao & Bowman (2020), CrowS-Pairs: A Challenge Dataset for Measuring Social "
                   "Biases in Masked Language Models, EMNLP 2020",
    "stereoset": "Nadeem, Bethke & Reddy (2021), StereoSet: Measuring stereotypical bias in pretrained language "
                 "models, ACL-IJCNLP 2021",
    "nli": "Dev, Li, Phillips & Srikumar (2020), On Measuring and Mitigating Biased Inferences of Word Embeddings, "
           "AAAI 2020",
}
CITATIONS["sense-pairs"] = CITATIONS["sssb"] = CITATIONS["sense-weat"]
CITATIONS["ceat"] = ("Guo & Caliskan (2021), Detecting Emergent Intersectional Biases: Contextualized Word Embeddings "
                     "Contain a Distribution of Human-like Biases, AIES 2021")


def _citation(method: str) -> str:
    return CITATIONS.get("nli" if method.startswith("nli-") else method, f"see the report's section on {method}")


def _results(report: dict[str, Any], model: str) -> list[dict[str, Any]]:
    """Per reported number of ``model``: the section, the row and its metric (tested rows; the overall row of a
    descriptive section, or without one its headline row, as the report's findings name it: RIPA's word
    furthest from 0, labelled so), so every method under "What was run" has a result row."""
    out = []
    for s in report["sections"]:
        if s["model"] != model or s["status"] != "done":
            continue
        rows = section_rows(s)
        tested = [r for r in rows if r["significant"] is not None]
        picked = tested or [r for r in rows if r["label"] in ("all", "NN (pairs)", "FN (pairs)")]
        if not picked and (top := headline(s)):
            row = next(r for r in rows if r["label"] == top["label"])
            picked = [{**row, "label": f"{row['label']} (furthest from {format_value(s['chart'].get('ref', 0))} "
                                        f"of {len(rows)})"}]
        out += [{"section": s, "row": r} for r in picked]
    return out


def _metric_type(section: dict[str, Any]) -> str:
    return re.sub(r"[^a-z0-9]+", "_", f"{section['method']} {section['chart']['x']}".lower()).strip("_")


def model_index(report: dict[str, Any], model: str, kind: str) -> str:
    """The ``model-index`` YAML of ``model``."""
    q = json.dumps
    lines = ["model-index:", f"- name: {q(model)}", "  results:"]
    for res in _results(report, model):
        s, r = res["section"], res["row"]
        dtype, dname = DATASETS.get(s["method"], (f"embias-widgets/{s['method']}", s["title"]))
        lines += ["  - task:", f"      type: {q(TASKS.get(kind, 'feature-extraction'))}",
                  f"      name: {q('Social bias: ' + SHORT.get(s['method'], s['method']))}",
                  "    dataset:", f"      type: {q(dtype)}", f"      name: {q(dname + ': ' + r['label'])}",
                  "    metrics:", f"    - type: {q(_metric_type(s))}", f"      value: {q(r['value'])}",
                  f"      name: {q(s['chart']['x'])}"]
    if len(lines) == 3:
        lines[-1] = "  results: []"
    return "\n".join(lines)


def _table(report: dict[str, Any], model: str) -> list[str]:
    out = ["| method | test | measure | value | interval | p (Holm) | survives Holm |", "|---|---|---|---|---|---|---|"]
    for res in _results(report, model):
        s, r = res["section"], res["row"]
        kind = value_kind(s)
        cells = [SHORT.get(s["method"], s["method"]), r["label"], s["chart"]["x"], format_value(r["value"], kind),
                 format_interval(r["interval"], kind) if r["interval"] else "not given",
                 format_value(r["p_holm"], "p", report["holm"]["alpha"]) if r["p_holm"] is not None
                 else "no test defined",  # never rounded across the alpha beside it: 0.0098, not 0.010
                 format_value(r["significant"]) if r["significant"] is not None else "—"]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return out


def model_card(report: dict[str, Any], model: str) -> str:
    """``MODEL_CARD_BIAS.md`` for ``model`` of the report: YAML front matter, then the "Bias evaluation" section."""
    kind, fingerprint = next((m["kind"], m["fingerprint"]) for m in report["models"] if m["name"] == model)
    mine = [s for s in report["sections"] if s["model"] == model]
    done = [s for s in mine if s["status"] == "done"]
    holm = report["holm"]
    prov = report["provenance"]
    lines = ["---", model_index(report, model, kind), "---", "", "## Bias evaluation", ""]
    lines += [f"> {n}" for n in dict.fromkeys(n for s in mine for n in demo_notes(s))]
    lines += ["", f"Evaluated with embias-widgets {prov['package_version']} (`embias report`, "
              f"{'quick' if report['quick'] else 'full'} sizes, seed {prov['options'].get('seed')}) on "
              f"{report['created']}. Model fingerprint: `{fingerprint}`.",
              "", "### What was run", ""]
    lines += [f"- **{s['title']}**: {s['what']}" for s in done]
    lines += [f"- {s['title']}: {s['status']} ({s['reason']})" for s in mine if s["status"] != "done"]
    lines += ["", "### Results", "", f"Holm-Bonferroni over all {holm['n_tests']} p-values of the report at alpha "
              f"{holm['alpha']:g}. Intervals are those each analysis reports (\"not given\" where it gives none).", ""]
    lines += _table(report, model)
    caveats = {n["id"]: n for s in done for n in validity_notes(s["method"])}
    lines += ["", "### Caveats", "", "- A bias measure finds an association in the words, templates and items it "
              "is given; a result that is not significant does not show that the model is unbiased."]
    lines += [f"- {n['text']} ({n['source']['paper']}, {n['source']['venue']}, {n['source']['where']})"
              for n in caveats.values()]
    lines += ["", "### Citations", ""]
    lines += [f"- {c}" for c in dict.fromkeys(_citation(s["method"]) for s in done)]
    return "\n".join(lines) + "\n"


def card_file_name(report: dict[str, Any], model: str) -> str:
    """``MODEL_CARD_BIAS.md`` for a one-model report; otherwise ``MODEL_CARD_BIAS.<model id>.md``, the id the
    model's sections and figures are named by (:func:`~embias_widgets.analysis.report.plan.model_id`: a slug of
    its name and 8 hex digits of the name's hash, e.g. ``MODEL_CARD_BIAS.all-MiniLM-L6-v2-4e1f06a1.md``), so
    the file says whose card it is."""
    from ..report.plan import model_id

    if model not in [m["name"] for m in report["models"]]:
        raise ValueError(f"model {model!r} is not one of the report's models")
    return FILE_NAME if len(report["models"]) == 1 else f"MODEL_CARD_BIAS.{model_id(model)}.md"


def write_model_cards(report: dict[str, Any], out_dir: Any) -> list[Any]:
    """Write one card per model of the report into ``out_dir`` (:func:`card_file_name`); their paths, in the
    report's model order."""
    from pathlib import Path

    from ..report.store import write_atomic

    paths = []
    for m in report["models"]:
        path = Path(out_dir) / card_file_name(report, m["name"])
        write_atomic(path, model_card(report, m["name"]))
        paths.append(path)
    return paths
