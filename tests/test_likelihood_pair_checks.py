"""Minimal-edit warnings for sentence pairs (Nangia et al. 2020: pairs differ only in the group words)."""

import pytest

from embias_widgets.analysis.likelihood.pair_checks import differing_spans, minimal_edit_warning


@pytest.mark.parametrize(("first", "second"), [
    ("She is a nurse.", "He is a nurse."),
    ("Old people are slow.", "Young people are slow."),
    ("He said his car broke.", "She said her car broke."),  # two short spans: a pronoun swap
    ("The poor man could not afford it.", "The rich man could not afford it."),
])
def test_minimal_edits_pass(first, second):
    assert minimal_edit_warning(first, second) == ""


def test_spans_are_aligned_word_by_word():
    assert differing_spans("He said his car broke.", "She said her car broke.") == [("He", "She"), ("his", "her")]
    assert differing_spans("a b c", "a b c") == []


def test_a_long_span_is_warned_and_named():
    warning = minimal_edit_warning("The man was angry at the bus driver.", "The man was happy to see his old friends.")
    assert "not a minimal edit" in warning and "long span" in warning and "angry at the bus driver" in warning


def test_mostly_different_sentences_are_warned():
    warning = minimal_edit_warning("Men fix cars.", "Women bake bread.")
    assert "3 of 4 words differ" in warning


def test_identical_sentences_are_warned():
    assert "the same" in minimal_edit_warning("She is a nurse.", "she is a nurse.")


def test_empty_side_is_left_to_the_row_error():
    assert minimal_edit_warning("", "He is a nurse.") == ""
