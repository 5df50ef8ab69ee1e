"""The test picker's short labels: every bundled test's label fits a 360 px dropdown, is unique, never cuts a
word, and keeps the id it names (issue 18: the full title wraps beside the dropdown, not inside it); labels
name both pairs of sets, so no two tests read alike (issue 31, item 21: WEAT 3, 4, 5, 3b and 5b all read
"european american vs african...", WEAT 7 and 8 both "male vs female terms")."""

from __future__ import annotations

import itertools
import re

import pytest

from embias_widgets.analysis.association import catalog
from embias_widgets.analysis.association.catalog import SHORT_LABEL_CHARS, short_test_label
from embias_widgets.stimuli import AssociationTestSpec, WordSet


@pytest.mark.parametrize("sentence", [False, True])
def test_every_label_is_short_unique_and_whole_words(sentence):
    choices = catalog.test_choices(sentence)
    labels = [label for _, label, _ in choices]
    assert len(set(labels)) == len(labels)
    for name, label, title in choices:
        assert len(label) <= SHORT_LABEL_CHARS, label
        assert len(title) > len(label) or title.endswith(label.split(" · ")[-1])
        head = label.split(" · ")[0]
        # the id is kept whole, or both of its ends are kept around one ellipsis at an underscore
        assert head == name or (head.count("…") == 1 and name.startswith(head.split("…")[0])
                                and name.endswith(head.split("…")[1])), (name, label)
        if " · " in label:  # the phrase is whole words of the sets (or their initials), or sizes
            phrase = label.split(" · ")[1].removesuffix("…")
            assert not phrase.endswith(" ")
            spec = (catalog.load_sentence_test if sentence else catalog.load_bundled_test)(name)
            sets = " ".join(catalog._words(getattr(spec, k).category) for k in catalog.SET_KEYS)
            words = sets.split()
            initials = {(a[0] + b[0]).upper() for a, b in itertools.pairwise(words)}
            for word in re.split(r"[ /,]+", phrase.replace("(un)pleasant", "pleasant unpleasant")):
                assert word in sets.split() or word in initials or word in {"×", "words"} or word.isdigit(), (
                    word, label)


@pytest.mark.parametrize("sentence", [False, True])
def test_no_two_tests_read_alike(sentence):
    """Apart from their ids, labels differ unless the tests' sets have the same names and sizes (a "b" variant
    of WEAT 6 swaps only group terms for names: its id's "b" tells it apart, as in the papers)."""
    choices = catalog.test_choices(sentence)
    load = catalog.load_sentence_test if sentence else catalog.load_bundled_test
    seen: dict[str, list[str]] = {}
    for name, label, _ in choices:
        if " · " in label:
            seen.setdefault(label.split(" · ")[1], []).append(name)
    for phrase, names in seen.items():
        if len(names) > 1:
            assert len({catalog._sizes(load(n)) for n in names}) < len(names), (phrase, names)
    plain = {c[0]: c[1] for c in catalog.test_choices(False)}
    assert plain["weat7"] == "weat7 · math/arts × male/female terms"
    assert plain["weat8"] == "weat8 · science/arts × male/female terms"
    assert len({plain[n].split(" · ")[1] for n in ("weat3", "weat4", "weat5", "weat3b", "weat5b")}) == 5
    assert plain["weat4"] == "weat4 · EA/AA names, 16 × 25 words"  # Bertrand & Mullainathan's 16 names a set


def test_hand_made_labels():
    weat6 = {c[0]: c for c in catalog.test_choices(False)}["weat6"]
    assert weat6 == ["weat6", "weat6 · male/female × career/family",
                     "WEAT 6: Male vs female names with career vs family (Caliskan Test 6)"]
    spec = AssociationTestSpec(
        "x", WordSet("MaleTerms", ("he",)), WordSet("FemaleTerms", ("she",)),
        WordSet("Pleasant", ("joy",)), WordSet("Unpleasant", ("agony",)),
    )
    assert short_test_label("x", spec) == "x · male/female terms × (un)pleasant"
    assert short_test_label("weat3", AssociationTestSpec(
        "weat3", WordSet("EuropeanAmericanNames", ("a",)), WordSet("AfricanAmericanNames", ("b",)),
        WordSet("Pleasant", ("joy",)), WordSet("Unpleasant", ("agony",)),
    )) == "weat3 · EA/AA names × (un)pleasant"  # the whole pair does not fit: two-word heads as initials
    long = "sent-heilman_double_bind_competent_one_word"
    assert short_test_label(long, spec) == "sent-heilman…bind_competent_one_word"
