"""Bundled sense-annotated WEAT tests (stimuli/sense_tests.py): every key is a WordNet 3.0 key whose gloss is the
one stored; the tests that can run, and their names."""

from __future__ import annotations

import pytest

from embias_widgets.stimuli import load_sense_test, sense_test_names, sense_test_table


@pytest.mark.parametrize("name", sense_test_names(include_unrunnable=True))
def test_every_key_is_in_wordnet_30_with_its_stored_gloss(wn, name):
    rows = sense_test_table(name)
    assert rows
    for row in rows:
        if row["key"] is None:
            assert row["how"] and row["gloss"] is None
            continue
        sense = wn.sense(row["key"])
        assert sense.gloss == row["gloss"], row
        word = "_".join(row["word"].lower().split())
        # the key's lemma is the word or its base form (parents -> parent)
        assert sense.lemma == word or sense.lemma in {wn._reader.morphy(word, p) for p in "nvar"}, row


def test_intended_senses_of_known_ambiguous_words(wn):
    keys = {r["word"]: r["key"] for r in sense_test_table("sense-weat1")}
    assert keys["violet"] == "violet%1:20:00::"  # the flower, as the paper's example
    assert keys["cricket"] == "cricket%1:05:00::"  # the insect, not the game
    assert {r["word"]: r["key"] for r in sense_test_table("sense-weat2")}["horn"] == "horn%1:06:01::"
    assert {r["word"]: r["key"] for r in sense_test_table("sense-weat7")}["he"] is None  # helium is no male term


def test_runnable_tests_and_name_tests():
    names = sense_test_names()
    assert {"sense-weat1", "sense-weat2", "sense-weat7", "sense-weat8", "sense-weat9", "sense-weat6b"} <= set(names)
    assert "sense-weat3" not in names
    spec = load_sense_test("sense-weat7")
    assert len(spec.targ1.examples) == 8 and len(spec.attr1.examples) == 5
    assert any("him" in n for n in spec.notes)
    with pytest.raises(ValueError, match=r"sense-weat3.*cannot run"):
        load_sense_test("sense-weat3")
    with pytest.raises(KeyError, match="unknown sense test"):
        load_sense_test("sense-weat99")
