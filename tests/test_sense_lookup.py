"""WordNet lookups for picking senses (analysis/senses/lookup.py): what a sense picker shows."""

from __future__ import annotations

from embias_widgets.analysis.senses import sense_record, short_gloss


def test_example_and_synonyms_come_from_the_synset(wn):
    sense = next(s for s in wn.senses("black") if s.examples and len(s.synonyms) > 1)
    record = sense_record(sense)
    assert record["example"] == sense.examples[0]
    assert sense.lemma not in record["synonyms"] and set(record["synonyms"]) < set(sense.synonyms)


def test_short_gloss_cuts_at_a_word():
    assert short_gloss("a b c", 10) == "a b c"
    assert short_gloss("one skilled in caring for young children", 20) == "one skilled in…"
    assert short_gloss("  spaced\n gloss ", 40) == "spaced gloss"
