"""The test picker's short labels: every bundled test's label fits a 360 px dropdown, is unique, never cuts a
word, and keeps the id it names (issue 18: the full title wraps beside the dropdown, not inside it)."""

from __future__ import annotations

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
        if " · " in label:  # the phrase is whole words of the sets, or whole words then an ellipsis
            phrase = label.split(" · ")[1].removesuffix("…")
            assert not phrase.endswith(" ")
            assert all(w in title.lower().replace("-", " ") or w in {"vs", "peoples"} for w in phrase.split())


def test_hand_made_labels():
    weat6 = {c[0]: c for c in catalog.test_choices(False)}["weat6"]
    assert weat6 == ["weat6", "weat6 · career vs family",
                     "WEAT 6: Male vs female names with career vs family (Caliskan Test 6)"]
    spec = AssociationTestSpec(
        "x", WordSet("MaleTerms", ("he",)), WordSet("FemaleTerms", ("she",)),
        WordSet("Pleasant", ("joy",)), WordSet("Unpleasant", ("agony",)),
    )
    assert short_test_label("x", spec) == "x · male vs female terms"  # valence attributes: the targets
    assert short_test_label("weat3", AssociationTestSpec(
        "weat3", WordSet("EuropeanAmericanNames", ("a",)), WordSet("AfricanAmericanNames", ("b",)),
        WordSet("Pleasant", ("joy",)), WordSet("Unpleasant", ("agony",)),
    )) == "weat3 · european american vs african…"
    long = "sent-heilman_double_bind_competent_one_word"
    assert short_test_label(long, spec) == "sent-heilman…bind_competent_one_word"
