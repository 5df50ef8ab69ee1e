"""SenseSelector model tests: type and pick as the front end would (set_state), check Python's answers
against WordNet 3.0 itself."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from embias_widgets.stimuli.wordnet import UnknownSenseError, load_wordnet
from embias_widgets.widgets.sense_selector import SenseSelector


@pytest.fixture(scope="module")
def wordnet():
    return load_wordnet()


@pytest.fixture
def selector(wordnet):
    return SenseSelector(wordnet=wordnet)


def test_typed_lemma_lists_every_sense_in_wordnet_order(selector, wordnet):
    selector.set_state({"query": "nurse"})
    expected = wordnet.senses("nurse")
    assert [s["key"] for s in selector.senses] == [s.key for s in expected]
    assert "nurse%1:18:00::" in [s["key"] for s in selector.senses]
    assert "nurse%2:29:00::" in [s["key"] for s in selector.senses]
    first = selector.senses[0]
    assert first["gloss"] == expected[0].gloss and first["lexname"] == expected[0].lexname == "noun.person"
    assert first["pos_name"] == "noun"
    assert selector.answered == "nurse|"
    assert selector.suggestions == [] and selector.message == ""


def test_pos_filter_and_a_lemma_without_that_pos(selector, wordnet):
    selector.set_state({"query": "nurse", "pos": "v"})
    assert [s["key"] for s in selector.senses] == [s.key for s in wordnet.senses("nurse", pos="v")]
    assert {s["pos"] for s in selector.senses} == {"v"}
    assert selector.answered == "nurse|v"
    selector.set_state({"pos": "r"})
    assert selector.senses == []
    assert "adverb" in selector.message and "nurse" in selector.message
    assert "nurse%1:18:00::" in selector.suggestions


def test_unknown_lemma_gets_suggestions(selector):
    selector.set_state({"query": "nurrse"})
    assert selector.senses == []
    assert "nurse" in selector.suggestions
    assert "nurrse" in selector.message


def test_typed_key_shows_that_sense(selector):
    selector.set_state({"query": "black%1:18:00::"})
    assert [s["key"] for s in selector.senses] == ["black%1:18:00::"]
    assert selector.senses[0]["lexname"] == "noun.person"


def test_picked_senses_become_chips_and_json(selector, wordnet):
    selector.set_state({"selected": ["nurse%1:18:00::", "nurse%2:29:00::"]})
    assert [c["key"] for c in selector.chips] == ["nurse%1:18:00::", "nurse%2:29:00::"]
    chip = selector.chips[1]
    gloss = wordnet.sense("nurse%2:29:00::").gloss
    assert chip["lemma"] == "nurse" and chip["gloss"] == gloss
    assert gloss.startswith(chip["short_gloss"].rstrip("…"))
    exported = json.loads(selector.export_text)
    assert [e["item"] for e in exported["selected"]] == ["nurse%1:18:00::", "nurse%2:29:00::"]
    assert [s.key for s in selector.value] == ["nurse%1:18:00::", "nurse%2:29:00::"]

    other = SenseSelector(wordnet=wordnet)
    other.set_state({"import_text": selector.export_text})
    assert other.selected == selector.selected and other.import_text == "" and other.error == ""


def test_import_plain_list_and_bad_import_keeps_selection(selector):
    selector.import_json('["black%1:18:00::", "black%1:07:00::"]')
    assert selector.selected == ["black%1:18:00::", "black%1:07:00::"]
    selector.set_state({"import_text": '["black%1:18:00::", "black%9:99:99::"]'})
    assert selector.selected == ["black%1:18:00::", "black%1:07:00::"]
    assert "Import failed" in selector.error and "black%9:99:99::" in selector.error
    selector.set_state({"import_text": "{not json"})
    assert "not JSON" in selector.error
    selector.set_state({"import_text": '{"selected": [{"lemma": "x"}]}'})
    assert "entry 0" in selector.error


def test_key_of_another_wordnet_version_is_refused_with_the_lemmas_keys(selector):
    with pytest.raises(UnknownSenseError, match=r"nurse%1:18:09::") as info:
        selector.selected = ["nurse%1:18:09::"]
    assert "nurse%1:18:00::" in info.value.suggestions
    assert selector.selected == []


def test_lemma_items_only_when_allowed(wordnet):
    strict = SenseSelector(wordnet=wordnet)
    with pytest.raises(UnknownSenseError, match=r"not a WordNet 3\.0 sense key") as info:
        strict.selected = ["nurse"]
    assert "nurse%2:29:00::" in info.value.suggestions
    loose = SenseSelector(["nurse", "black%1:18:00::"], allow_lemmas=True, wordnet=wordnet)
    assert [c["kind"] for c in loose.chips] == ["lemma", "sense"]
    assert loose.chips[0]["short_gloss"] == f"any of {len(wordnet.senses('nurse'))} senses (max)"
    assert [s.key for s in loose.value] == [s.key for s in wordnet.senses("nurse")] + ["black%1:18:00::"]


def test_single_choice_keeps_the_last_pick(wordnet):
    one = SenseSelector(multiple=False, wordnet=wordnet)
    one.set_state({"selected": ["nurse%1:18:00::", "nurse%2:29:00::"]})
    assert one.selected == ["nurse%2:29:00::"]


def test_duplicates_and_blanks_are_dropped(selector):
    selector.set_state({"selected": ["nurse%1:18:00::", " ", "nurse%1:18:00::"]})
    assert selector.selected == ["nurse%1:18:00::"]


def test_gloss_is_passed_as_data(wordnet):
    """Whatever a gloss holds reaches the front end unchanged, as a string (the view sets textContent)."""

    class Marked:
        source = "test"
        is_key = staticmethod(wordnet.is_key)

        def senses(self, lemma, pos=None):
            return [replace(s, gloss="<b>bold</b> & <i>x</i>") for s in wordnet.senses(lemma, pos)]

        def sense(self, key):
            return replace(wordnet.sense(key), gloss="<b>bold</b> & <i>x</i>")

    w = SenseSelector(["nurse%1:18:00::"], wordnet=Marked())
    w.set_state({"query": "nurse"})
    assert w.senses[0]["gloss"] == "<b>bold</b> & <i>x</i>"
    assert w.chips[0]["gloss"] == "<b>bold</b> & <i>x</i>"
