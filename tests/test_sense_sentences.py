"""Template-written sense-sensitive sentence sets: WordNet 3.0 keys, minimal pairs, SSSB round trip."""

from __future__ import annotations

from collections import Counter

import pytest

from embias_widgets.stimuli import read_sssb, sssb_pairs
from embias_widgets.stimuli.sense_sentences import OCCUPATIONS, SENSE_TYPES, sense_sentences

EXPECTED_LEXNAME = {"nationality": "noun.person", "language": "noun.communication", "race": "noun.person",
                    "colour": "noun.attribute", "noun": "noun.person"}


def test_every_key_is_a_wordnet_30_key_of_the_intended_kind(wn):
    sentences = sense_sentences().sentences
    for key in {s.sense_key for s in sentences}:
        sense = wn.sense(key)
        kinds = {s.sense_type for s in sentences if s.sense_key == key}
        assert len(kinds) == 1
        kind = kinds.pop()
        if kind == "verb":
            assert sense.pos == "v", key
        else:
            assert sense.lexname == EXPECTED_LEXNAME[kind], (key, sense.gloss)
    assert wn.sense("japanese%1:10:00::").gloss.startswith("the language")
    assert "people of France" in wn.sense("french%1:18:00::").gloss


def test_each_sentence_holds_its_word_and_pairs_are_minimal():
    data = sense_sentences()
    for s in data.sentences:
        lemma = s.sense_key.split("%")[0]
        assert lemma in s.sentence.lower(), s
    pairs = data.pairs()
    assert len(pairs) * 2 == len(data.sentences)
    for p in pairs:
        a, b = p.stereo.split(), p.anti.split()
        assert len(a) == len(b) or p.bias_type in ("nationality", "language", "race", "colour")
        assert sum(x != y for x, y in zip(a, b, strict=False)) >= 1
    by_key = Counter((s.sense_key, s.label) for s in data.sentences)
    for key in data.sense_keys():
        assert by_key[(key, "stereo")] == by_key[(key, "anti")]  # balanced by construction


def test_stereotype_direction_follows_section_4_3():
    pairs = [p for p in sense_sentences(("noun",)).pairs() if p.sense_key == "engineer%1:18:00::"]
    talented = next(p for p in pairs if "talented" in p.stereo)
    assert talented.stereo.startswith("He ") and talented.anti.startswith("She ")
    clumsy = next(p for p in pairs if "clumsy" in p.stereo)
    assert clumsy.stereo.startswith("She ") and clumsy.anti.startswith("He ")
    nurse = next(p for p in sense_sentences(("noun",)).pairs() if p.sense_key == "nurse%1:18:00::")
    assert nurse.stereo.startswith("She ")  # nursing: the roles swap
    assert set(OCCUPATIONS) == {"engineer", "nurse", "judge", "mentor", "guide", "carpenter"}


def test_sssb_text_round_trip(tmp_path):
    data = sense_sentences()
    path = data.write(tmp_path / "ours.txt")
    back = read_sssb(path)
    assert [(s.sentence, s.sense_key, s.label) for s in back] == [
        (s.sentence, s.sense_key, s.label) for s in data.sentences
    ]
    assert len(sssb_pairs(back)) == len(data.pairs())
    assert set(SENSE_TYPES) == {s.sense_type for s in back}


def test_unknown_sense_type():
    with pytest.raises(ValueError, match="unknown sense type"):
        sense_sentences(("gender",))


def test_gender_pairs_are_person_senses(wn):
    from embias_widgets.stimuli.sense_sentences import GENDER_PAIR_KEYS

    for male, female in GENDER_PAIR_KEYS:
        assert wn.sense(male).lexname == wn.sense(female).lexname == "noun.person"
