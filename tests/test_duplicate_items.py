"""An item listed twice in a set counts once, and every surface says so: the WEAT explorer did, `embias weat
--robustness` (table and JSON) did not, because the study dropped the test file's note when it cleaned its sets."""

from __future__ import annotations

import json

from _cli_inprocess import embias_inprocess

from embias_widgets.analysis import AssociationTest
from embias_widgets.analysis.senses import SenseAssociationTest

SETS = {"targ1": {"category": "Flowers", "examples": ["rose", "tulip", "daisy", "lily", "rose"]},
        "targ2": {"category": "Insects", "examples": ["ant", "bee", "wasp", "fly"]},
        "attr1": {"category": "Pleasant", "examples": ["love", "peace", "joy", "happy"]},
        "attr2": {"category": "Unpleasant", "examples": ["hate", "war", "pain", "sad"]}}


def test_the_command_line_says_an_item_listed_twice_counts_once(tmp_path):
    path = tmp_path / "twice.jsonl"
    path.write_text(json.dumps(SETS) + "\n", encoding="utf-8")
    run = embias_inprocess("weat", str(path), "--robustness", "--format", "json", "--resamples", "0")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["num_targ1"] == 4 and [w["word"] for w in record["influence"]].count("rose") == 1
    assert any(n.startswith("targ1: removed duplicate item(s) 'rose'") and "counts once" in n
               for n in record["notes"]), record["notes"]
    table = embias_inprocess("weat", str(path), "--robustness", "--resamples", "0").stdout
    assert "note [twice]: targ1: removed duplicate item(s) 'rose'" in table


def test_the_study_notes_duplicates_given_in_python_and_forgets_them_once_edited_away(glove):
    study = AssociationTest("weat1", targ1=["rose", "rose", "tulip"], model=glove)
    assert study.spec.targ1.examples == ("rose", "tulip")
    assert [n for n in study.run(confidence_interval=False).notes if "duplicate" in n] == \
        ["targ1: removed duplicate item(s) 'rose': listed more than once, each counts once (in n, d, p and the "
         "robustness checks)"]
    study.set_items("targ1", ["rose", "tulip"])
    study.set_items("attr2", ["hate", "war", "hate"])
    notes = [n for n in study.run(confidence_interval=False).notes if "duplicate" in n]
    assert len(notes) == 1 and notes[0].startswith("attr2: removed duplicate item(s) 'hate'")


def test_the_sense_study_notes_duplicates_too():
    study = SenseAssociationTest("sense-weat1")
    first = study.spec.targ1.examples[0]
    assert study.set_items("targ1", [*study.spec.targ1.examples, first]) == (first,)
    assert study.spec.notes == (f"targ1: removed duplicate item(s) {first!r}: listed more than once, each counts once "
                                "(in n, d, p and the robustness checks)",)
    study.set_items("targ1", list(study.spec.targ1.examples))
    assert study.spec.notes == ()
    given = SenseAssociationTest("sense-weat1", attr1=["good%3:00:01::", "good%3:00:01::"])
    assert given.spec.attr1.examples == ("good%3:00:01::",) and "attr1: removed duplicate" in given.spec.notes[0]
