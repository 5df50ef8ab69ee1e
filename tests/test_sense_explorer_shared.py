"""What the sense explorer shows once for its four selectors, and the one x scale of its two bar sets
(issue 18): the shared extent is checked against a re-computation from the result's own rows, the
four-set import/export round-trips through the trait the front end writes, and a bad item changes no set."""

from __future__ import annotations

import json

import pytest
from _tiny_senses import occupations_spec, write_tiny_lmms

from embias_widgets.stimuli.wordnet import load_wordnet
from embias_widgets.widgets.sense_explorer import SenseWeatExplorer, shared_extent


@pytest.fixture(scope="module")
def sense_file(tmp_path_factory):
    return write_tiny_lmms(tmp_path_factory.mktemp("senses") / "tiny-lmms.txt", seed=11)


@pytest.fixture
def explorer(sense_file):
    return SenseWeatExplorer(occupations_spec(), model=sense_file, n_samples=500)


def test_both_bar_sets_get_one_extent_spanning_both_levels(explorer):
    values = [r["association"] for bars in (explorer.sense_bars, explorer.word_bars) for r in bars.per_word]
    assert explorer.sense_bars.shared_extent == pytest.approx([min(values), max(values)])
    assert explorer.word_bars.shared_extent == explorer.sense_bars.shared_extent
    own = [r["association"] for r in explorer.sense_bars.per_word]  # the sense level alone spans less
    assert (min(own), max(own)) != pytest.approx((min(values), max(values)))


def test_the_extent_follows_an_edit(explorer):
    before = list(explorer.sense_bars.shared_extent)
    explorer.selectors["targ2"].set_state({"selected": ["nurse%1:18:00::", "nurse%2:29:00::"]})
    after = explorer.word_bars.shared_extent
    values = [r["association"] for bars in (explorer.sense_bars, explorer.word_bars) for r in bars.per_word]
    assert after == pytest.approx([min(values), max(values)]) and after != pytest.approx(before)


def test_shared_extent_skips_undefined_values():
    rows = [[{"association": 0.2}, {"association": None}], [{"association": float("nan")}, {"association": -0.5}]]
    assert shared_extent(rows) == [-0.5, 0.2]
    assert shared_extent([[], []]) == []


def test_selectors_hide_their_own_tools_and_the_bar_shows_them_once(explorer):
    assert all(s.tools is False for s in explorer.selectors.values())
    assert explorer.children[0] is explorer.sets_bar
    assert explorer.sets_bar.source == explorer.selectors["targ1"].source != ""


def test_four_set_export_and_import_round_trip(explorer, sense_file):
    data = json.loads(explorer.sets_bar.export_text)
    assert list(data["sets"]) == ["targ1", "targ2", "attr1", "attr2"]
    assert [r["item"] for r in data["sets"]["attr1"]["selected"]] == ["man%1:18:00::", "boy"]
    data["sets"]["targ1"]["selected"] = [{"item": "carpenter%1:18:00::"}]
    data["sets"]["attr2"] = ["girl", "woman%1:18:00::"]
    explorer.sets_bar.set_state({"import_text": json.dumps(data)})  # what the Import button sends
    assert explorer.selectors["targ1"].selected == ["carpenter%1:18:00::"]
    assert explorer.selectors["attr2"].selected == ["girl", "woman%1:18:00::"]
    assert explorer.sets_bar.import_text == "" and explorer.sets_bar.error == ""
    assert [r["word"] for r in explorer.sense_bars.per_word][:1] == ["carpenter%1:18:00::"]  # recomputed
    assert json.loads(explorer.sets_bar.export_text)["sets"]["attr2"]["selected"][0]["item"] == "girl"


def test_a_bad_item_names_the_set_and_changes_no_set(explorer):
    before = {k: list(s.selected) for k, s in explorer.selectors.items()}
    bad = {"sets": {"targ1": ["engineer%1:18:00::"], "attr2": ["woman%1:18:00::", "nurze%1:18:00::"]}}
    explorer.sets_bar.set_state({"import_text": json.dumps(bad)})
    assert "Attribute B" in explorer.sets_bar.error and "nurze" in explorer.sets_bar.error
    assert {k: list(s.selected) for k, s in explorer.selectors.items()} == before
    explorer.sets_bar.set_state({"import_text": '{"sets": {"targ3": []}}'})
    assert "unknown set 'targ3'" in explorer.sets_bar.error


def test_a_selector_shows_its_tools_unless_told_not_to():
    from embias_widgets.widgets.sense_selector import SenseSelector

    wordnet = load_wordnet()
    assert SenseSelector(wordnet=wordnet).tools is True
    quiet = SenseSelector(["nurse%1:18:00::"], wordnet=wordnet, tools=False)
    assert quiet.tools is False and quiet.get_state()["tools"] is False
    assert json.loads(quiet.export_text)["selected"][0]["item"] == "nurse%1:18:00::"  # still exported in Python
