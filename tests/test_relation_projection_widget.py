"""RelationProjectionWidget (widgets/relation_projection.py): edit as the front end would (set_state),
check what Python recomputed. The axis fitting moved to the front end: js/tests/scale.test.js."""

from __future__ import annotations

import numpy as np
import pytest
import traitlets

from embias_widgets.models import StaticVectors
from embias_widgets.widgets.relation_projection import RelationProjectionWidget


@pytest.fixture
def toy() -> StaticVectors:
    # (she, he) and (woman, man) differ by (2, 1) and (2, -1): b = (1, 0) by hand.
    words = ["she", "he", "woman", "man", "nurse", "engineer", "girl", "boy"]
    vectors = np.array(
        [[2, 1], [0, 0], [3, 0], [1, 1], [3, 4], [-1, 7], [5, 0], [1, 0]], dtype=np.float64
    )
    return StaticVectors(words, vectors, name="toy")


@pytest.fixture
def widget(toy) -> RelationProjectionWidget:
    return RelationProjectionWidget(
        [("she", "he"), ("woman", "man")], {"jobs": ["nurse", "engineer"]}, model=toy
    )


def ripa_of(widget, word, group=None):
    return next(p["ripa"] for p in widget.points if p["word"] == word and group in (None, p["group"]))


def test_initial_state_by_hand(widget):
    assert widget.error == ""
    assert ripa_of(widget, "nurse") == pytest.approx(3.0)
    assert ripa_of(widget, "engineer") == pytest.approx(-1.0)
    # pair words come first, with their side as the group
    first = {k: v for k, v in widget.points[0].items() if k not in ("low", "high")}
    assert first == {"word": "she", "group": "pairs: first", "ripa": pytest.approx(2.0), "label_lane": 0}
    assert widget.points[0]["low"] <= 2.0 <= widget.points[0]["high"]  # its bootstrap interval (issue 28)
    assert widget.points[1]["group"] == "pairs: second"
    # the axis (domain containing every point, a tick at 0) is fitted by the front end since issue 17:
    # js/tests/scale.test.js "the relation axis holds 0 and every point" checks these points
    assert "2 pair(s)" in widget.summary
    assert "she, woman" in widget.axis_label


def test_pair_edit_recomputes(widget):
    rev = widget.revision
    # swapping the order of every pair flips b and every score
    widget.set_state({"pairs": [["he", "she"], ["man", "woman"]]})
    assert widget.revision == rev + 1
    assert ripa_of(widget, "nurse") == pytest.approx(-3.0)
    # one pair (girl, boy): b = (4, 0)/4 = (1, 0); then (she, he) alone: b = (2, 1)/sqrt 5
    widget.set_state({"pairs": [["she", "he"]]})
    assert ripa_of(widget, "nurse") == pytest.approx((3 * 2 + 4 * 1) / np.sqrt(5))


def test_word_edit_recomputes(widget):
    widget.set_state({"groups": {"jobs": ["nurse"], "people": ["girl"]}})
    assert [p["word"] for p in widget.points if not p["group"].startswith("pairs")] == ["nurse", "girl"]
    assert ripa_of(widget, "girl", "people") == pytest.approx(5.0)
    assert widget.frame().word.tolist() == ["nurse", "girl"]


def test_incomplete_and_unknown_input_is_kept_and_explained(widget):
    widget.set_state({"pairs": [["she", "he"], ["woman", "man"], ["girl", ""], ["", ""]]})
    assert widget.pairs[2] == ["girl", ""]  # what the user typed is kept
    assert any("pair 3 (girl − ?) is incomplete" in n for n in widget.notes)
    assert ripa_of(widget, "nurse") == pytest.approx(3.0)
    widget.set_state({"groups": {"jobs": ["nurse", "nurce"]}})
    assert widget.oov == [{"item": "nurce", "suggestions": ["nurse"]}]
    assert any("close matches: nurse" in n for n in widget.notes)


def test_no_usable_pair_shows_error_and_keeps_input(widget):
    widget.set_state({"pairs": [["shee", "he"]]})
    assert "no pair has both words" in widget.error
    assert widget.points == []
    assert widget.pairs == [["shee", "he"]]
    assert widget.oov[0]["item"] == "shee"
    assert widget.oov[0]["suggestions"] == ["she"]
    widget.set_state({"pairs": [["she", "he"]]})
    assert widget.error == ""
    assert widget.points


def test_trait_validation_names_the_item(widget):
    with pytest.raises(traitlets.TraitError, match=r"pairs\[1\].*\[first, second\]"):
        widget.pairs = [["she", "he"], ["a", "b", "c"]]
    with pytest.raises(traitlets.TraitError, match="groups\\['jobs'\\] must be a list"):
        widget.groups = {"jobs": "nurse"}


def test_default_pairs_on_glove(glove):
    w = RelationProjectionWidget(words=["nurse", "engineer"], model=glove)
    assert len(w.pairs) == 10
    assert ripa_of(w, "nurse") > 0 > ripa_of(w, "engineer")

