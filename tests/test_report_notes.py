"""Each report section carries its own notes: a method's validity note is about that method (RIPA no longer
repeats WEAT's caveat, sense WEAT no longer quotes SEAT's, CEAT has one), weat1's out-of-vocabulary item is named
once, the debiasing check cites Dev et al. as 2020 (AAAI 2020, as its citation), and the model card gives every
method it lists under "What was run" a result row."""

from __future__ import annotations

import json

from embias_widgets.analysis.publish.agreement import VALIDITY, validity_notes
from embias_widgets.analysis.publish.model_card import model_card
from embias_widgets.analysis.report import SECTION_KEYS
from embias_widgets.analysis.report.plan import ModelSpec, SectionSpec
from embias_widgets.analysis.report.sections import WHAT, run_ripa, run_weat

PAPERS = {"weat": "Caliskan", "seat": "May, Wang", "ripa": "Ethayarajh", "sense-weat": "Zhou, Kaneko",
          "ceat": "Guo & Caliskan", "crows-pairs": "Blodgett", "stereoset": "Nadeem", "debias": "Ethayarajh"}


def test_each_method_gets_the_validity_notes_of_its_own_literature():
    ids = {m: [n["id"] for n in validity_notes(m)] for m in ("weat", "ripa", "debias", "seat", "sense-weat", "ceat")}
    assert ids == {"weat": ["weat-beside-ripa"], "ripa": ["ripa-pairs-no-significance"],
                   "debias": ["weat-beside-ripa"], "seat": ["seat-absence"], "sense-weat": ["sense-level-bias"],
                   "ceat": ["ceat-contexts"]}
    assert not any("SEAT" in n["text"] for n in validity_notes("sense-weat"))
    assert not any("WEAT" in n["text"] for n in validity_notes("ripa"))
    for note in json.loads(VALIDITY.read_text(encoding="utf-8"))["notes"]:
        assert all(note["source"][k] for k in ("paper", "venue", "where"))
        assert any(PAPERS.get(m, "") in note["source"]["paper"] for m in note["methods"]), note["id"]


def _spec(method: str) -> SectionSpec:
    return SectionSpec(method, ModelSpec("glove-6b-50d", "static"),
                       {"permutations": 1_000, "seed": 0, "subsets": 20, "resamples": 100, "level": 0.95})


def test_weat1s_out_of_vocabulary_item_is_named_once():
    notes = run_weat(_spec("weat"))["notes"]
    oov = [n for n in notes if "gladiola" in n]
    assert oov == ["weat1: 1 item(s) not in the vocabulary were left out: gladiola"], oov
    assert not any("vocabulary" in n and not n.startswith("weat1:") for n in notes if "weat1" in n)


def test_the_debiasing_check_cites_dev_et_al_2020():
    assert "(Dev et al. 2020)" in WHAT["debias"] and "2019" not in WHAT["debias"].split("Dev et al.")[1][:8]


def _section(method: str, title: str, outcome: dict) -> dict:
    section = dict.fromkeys(SECTION_KEYS)
    section.update(id=f"{method}--glove", title=title, method=method, model="glove-6b-50d", what=WHAT[method],
                   status="done", reason=None, seconds=1.0, published=[], significance=[], notes=outcome["notes"],
                   table=outcome["table"], chart=outcome["chart"],
                   figure={"svg": None, "svg_path": None, "png_path": None})
    return section


def test_the_model_card_gives_every_method_it_ran_a_result_row():
    ripa = _section("ripa", "RIPA on the definitional pairs", run_ripa(_spec("ripa")))
    report = {"schema": "embias-report/1", "title": "t", "created": "2026-01-01T00:00:00+00:00", "quick": True,
              "provenance": {"package_version": "0", "python": "3", "platform": "p", "seconds": 1.0,
                             "options": {"seed": 0, "alpha": 0.01, "notes": []}},
              "models": [{"name": "glove-6b-50d", "kind": "static", "fingerprint": "f"}], "data_files": {},
              "sections": [ripa], "holm": {"alpha": 0.01, "n_tests": 0}}
    card = model_card(report, "glove-6b-50d")
    rows = [line for line in card.splitlines() if line.startswith("| RIPA |")]
    words = {r[0]: r[2] for r in ripa["table"]["rows"]}
    furthest = max(words, key=lambda w: abs(words[w]))
    assert len(rows) == 1 and rows[0].startswith(f"| RIPA | {furthest} (furthest from 0 of {len(words)}) | RIPA |")
    assert "no test defined" in rows[0]
    assert "**RIPA on the definitional pairs**" in card
    assert "WEAT systematically overestimates" not in card  # WEAT's caveat belongs to WEAT's sections
    assert "Statistical Significance" in card
