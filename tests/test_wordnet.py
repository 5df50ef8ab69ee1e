"""WordNet 3.0 sense inventory: Debian files through nltk's reader, keys, errors with close matches."""

from __future__ import annotations

import pytest

from embias_widgets.stimuli import wordnet as wnmod
from embias_widgets.stimuli.wordnet import Sense, UnknownSenseError, WordNetNotFoundError


def test_lexnames_file_has_the_45_fixed_lines():
    lines = wnmod._lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[0].split("\t") == ["00", "adj.all", "3"]
    assert lines[18].split("\t") == ["18", "noun.person", "1"]
    assert lines[44].split("\t") == ["44", "adj.ppl", "3"]


def test_source_names_the_data(wn):
    assert "/usr/share/wordnet" in wn.source or "nltk_data" in wn.source
    assert wn._reader.get_version() == "3.0"


def test_black_senses_have_the_papers_keys(wn):
    senses = {s.key: s for s in wn.senses("black")}
    colour, race = senses["black%3:00:01::"], senses["black%3:00:02::"]
    assert colour.pos == "a" and "achromatic" in colour.gloss and colour.sense_number == 1
    assert "racial group" in race.gloss and race.sense_number == 2
    person = senses["black%1:18:00::"]
    assert person.lexname == "noun.person" and person.pos == "n" and "dark skin" in person.gloss
    assert senses["black%1:07:00::"].lexname == "noun.attribute"
    # every sense returned is a sense of "black" itself, never a morphy relative
    assert all(k.startswith("black%") for k in senses)


def test_nurse_noun_and_verb(wn):
    nouns = wn.senses("nurse", pos="n")
    verbs = wn.senses("nurse", "v")
    assert "nurse%1:18:00::" in [s.key for s in nouns]
    assert "nurse%2:29:00::" in [s.key for s in verbs]
    assert {s.pos for s in nouns} == {"n"} and {s.pos for s in verbs} == {"v"}
    noun = wn.sense("nurse%1:18:00::")
    assert isinstance(noun, Sense) and noun.synset == "nurse.n.01" and noun.lexname == "noun.person"
    assert noun.to_dict()["key"] == "nurse%1:18:00::"


def test_adjective_pos_includes_satellites(wn):
    keys = [s.key for s in wn.senses("black", "a")]
    assert "black%3:00:01::" in keys and "black%5:00:00:angry:00" in keys
    assert all(s.pos == "s" for s in wn.senses("black", "s"))


def test_multiword_lemma_and_case(wn):
    assert wn.senses("Ice Cream")[0].key == "ice_cream%1:13:00::"
    japanese = {s.key for s in wn.senses("Japanese")}
    assert {"japanese%1:18:00::", "japanese%1:10:00::"} <= japanese


def test_is_key_is_about_the_spelling():
    assert wnmod.WordNet.is_key("black%3:00:01::")
    assert wnmod.WordNet.is_key("black%5:00:00:angry:00")
    assert not wnmod.WordNet.is_key("black")
    assert not wnmod.WordNet.is_key("$SENSE-ID$")
    assert not wnmod.WordNet.is_key("black%9:00:01::")


def test_unknown_lemma_offers_spelling_and_base_form(wn):
    with pytest.raises(UnknownSenseError, match="engneer") as info:
        wn.senses("engneer")
    assert "engineer" in info.value.suggestions
    with pytest.raises(UnknownSenseError) as info:
        wn.senses("nurses")
    assert info.value.suggestions[0] == "nurse"
    assert isinstance(info.value, KeyError)
    assert str(info.value).startswith("WordNet 3.0 has no lemma 'nurses'")


def test_no_sense_in_requested_pos_names_the_pos_it_has(wn):
    with pytest.raises(UnknownSenseError, match=r"no adverb sense of .nurse.*n \(noun\), v \(verb\)"):
        wn.senses("nurse", "r")
    with pytest.raises(ValueError, match="pos must be one of"):
        wn.senses("nurse", "x")


def test_key_from_another_version_names_the_keys_of_the_lemma(wn):
    # black%1:18:09:: does not exist in 3.0; the error offers the 3.0 keys, same POS first
    with pytest.raises(UnknownSenseError, match=r"no sense key 'black%1:18:09::'.*another WordNet version") as info:
        wn.sense("black%1:18:09::")
    assert info.value.suggestions[0].startswith("black%1:")
    assert "black%1:18:00::" in info.value.suggestions and "black%3:00:01::" in info.value.suggestions
    assert info.value.item == "black%1:18:09::"


def test_misspelt_key_lemma_offers_close_lemmas(wn):
    with pytest.raises(UnknownSenseError, match="no lemma 'nurze'") as info:
        wn.sense("nurze%1:18:00::")
    assert any(k.startswith("nurse%") for k in info.value.suggestions)


def test_text_that_is_no_key(wn):
    with pytest.raises(UnknownSenseError, match="not written as a WordNet sense key"):
        wn.sense("$SENSE-ID$")


def test_sense_is_cached_and_consistent_with_senses(wn):
    via_list = next(s for s in wn.senses("violet") if s.key == "violet%1:20:00::")
    assert wn.sense("violet%1:20:00::") is via_list
    assert via_list.lexname == "noun.plant"


def test_missing_data_gives_one_error_with_both_install_routes(tmp_path, monkeypatch):
    import nltk

    monkeypatch.setattr(wnmod, "DEBIAN_WORDNET_DIR", tmp_path)
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(WordNetNotFoundError) as info:
        wnmod.load_wordnet.__wrapped__("auto")
    message = str(info.value)
    assert "apt-get install wordnet-base wordnet-sense-index" in message
    assert "nltk.download('wordnet')" in message
    with pytest.raises(WordNetNotFoundError, match=r"lacks data\.noun"):
        wnmod.load_wordnet.__wrapped__(str(tmp_path))


def test_transposed_letters_suggest_the_word_first(wn):
    with pytest.raises(UnknownSenseError) as info:
        wn.senses("blakc")
    assert info.value.suggestions[0] == "black"
