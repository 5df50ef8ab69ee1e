"""What the user typed survives (issue 31, item 10): a front-end message holding a valid edit and a bad value
of another trait keeps the edit and refuses only the bad value (the rule of ``widgets/_base``), and the WEAT
explorer keeps each test's edited sets when the user switches test and restores them on coming back."""

from __future__ import annotations

import json

import pytest

from embias_widgets.analysis import AssociationTest
from embias_widgets.widgets import WeatExplorer, WordSetEditor


def with_word(sets: dict, key: str, word: str) -> dict:
    new = json.loads(json.dumps(sets))
    new[key]["examples"].append(word)
    return new


@pytest.fixture
def explorer(glove):
    return WeatExplorer("weat6", model=glove)


@pytest.mark.parametrize("bad", [{"busy": "x"}, {"error": 5}, {"stale": [1]}, {"refused": "x"}])
def test_a_bad_boundary_value_beside_a_valid_edit_is_refused_and_the_edit_kept(bad):
    editor = WordSetEditor(AssociationTest("weat6").spec)
    name = next(iter(bad))
    editor.set_state({"sets": with_word(editor.sets, "targ1", "Zed"), **bad})  # raised a TraitError before
    assert editor.sets["targ1"]["examples"][-1] == "Zed"
    assert set(editor.refused) == {name}
    assert editor.error.startswith(f"Refused {name} = ")
    assert ".." not in editor.error
    assert editor.stale is True


def test_a_refused_busy_is_forgotten_at_its_next_value(explorer):
    explorer.editor.set_state({"sets": with_word(explorer.editor.sets, "targ2", "Mary"), "busy": "x"})
    assert explorer.result.items["targ2"][-1] == "Mary"  # the edit was computed
    assert explorer.bars.stale is True and "Refused busy" in explorer.bars.error
    explorer.editor.set_state({"sets": with_word(explorer.editor.sets, "targ2", "Alice")})
    assert explorer.editor.refused == {} and explorer.editor.error == ""
    assert explorer.bars.stale is False and explorer.result.items["targ2"][-1] == "Alice"
    want = AssociationTest("weat6")
    want.set_items("targ2", explorer.editor.sets["targ2"]["examples"])
    assert explorer.bars.effect_size == pytest.approx(want.run().effect_size, abs=1e-12)


def test_switching_test_keeps_the_edits_and_coming_back_restores_them(explorer):
    edited = with_word(explorer.editor.sets, "targ1", "Zed")
    edited["attr1"]["category"] = "Work"
    explorer.editor.set_state({"sets": edited})
    d_edited = explorer.bars.effect_size
    explorer.editor.set_state({"test_name": "weat7"})
    assert explorer.editor.sets == explorer.editor.published  # weat7 as published
    assert explorer.bars.title.startswith("WEAT 7")
    assert explorer.edited["weat6"] == edited
    explorer.editor.set_state({"test_name": "weat6"})
    assert explorer.editor.sets == edited
    assert explorer.editor.published != edited  # Reset still restores the published sets
    assert explorer.result.items["targ1"][-1] == "Zed" and explorer.bars.categories["attr1"] == "Work"
    assert explorer.bars.effect_size == pytest.approx(d_edited, abs=1e-12)
    assert any("edits of weat6 are restored" in n for n in explorer.editor.notes)
    # an unedited test leaves nothing kept
    explorer.editor.set_state({"sets": explorer.editor.published})
    explorer.editor.set_state({"test_name": "weat7"})
    assert "weat6" not in explorer.edited
