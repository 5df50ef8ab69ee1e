"""BbqExplorer on a tiny GPT-2 and the shared BBQ items: the widget copies the result's cells and the item scores'
probabilities, and recomputes in Python when the front end edits its traits (set_state)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch  # noqa: F401  (the models extra: a missing one fails here, never skips)
from _tiny_causal import tiny_gpt2_dir
from _tiny_lm import one_thread

from embias_widgets.analysis.bbq import BbqStudy
from embias_widgets.models.language_models.multiple_choice import bbq_prompt, score_choices
from embias_widgets.stimuli.bbq import load_bbq
from embias_widgets.widgets import BbqExplorer
from embias_widgets.widgets.bbq_explorer import PAGE_SIZE

_single_thread = pytest.fixture(autouse=True)(one_thread)
OWN = {"context": "The nurse and the engineer met for lunch.", "question": "Who was bad at math?",
       "answers": ["The nurse", "The engineer", "Unknown"]}


@pytest.fixture(scope="module")
def study(shared_data) -> BbqStudy:
    items = load_bbq(shared_data / "bbq" / "data", categories=["Age", "Religion"], limit=16)
    return BbqStudy(str(tiny_gpt2_dir()), items, model_options={"device": "cpu", "progress": False})


@pytest.fixture(scope="module")
def ran(study):
    result = study.run(n_resamples=200)
    return result, study.last_scores


@pytest.fixture
def explorer(study, ran) -> BbqExplorer:
    return BbqExplorer(study, *ran)


def test_the_cells_are_the_results(explorer, ran) -> None:
    result, _ = ran
    frame = result.frame()
    assert len(explorer.cells) == len(frame) and explorer.categories == ["Age", "Religion"]
    for cell, row in zip(explorer.cells, frame.itertuples(index=False), strict=True):
        assert (cell["category"], cell["context_condition"]) == (row.category, row.context_condition)
        for key, value in (("bias_score", row.bias_score), ("low", row.bias_low), ("high", row.bias_high),
                           ("accuracy", row.accuracy)):
            assert cell[key] is None if value is None or math.isnan(value) else cell[key] == value
    assert "convention: authors" in explorer.method and "intervals redraw templates" in explorer.method


def test_a_click_on_a_category_lists_its_items_page_by_page(explorer, ran) -> None:
    _, scores = ran
    explorer.set_state({"selected_category": "Religion"})
    religion = np.flatnonzero(scores.items.category == "Religion")
    assert explorer.n_category_items == len(religion) == 16 and len(explorer.items) == PAGE_SIZE
    for row, i in zip(explorer.items, religion[:PAGE_SIZE], strict=True):
        assert row["index"] == i and row["question"] == scores.items.question[i]
        assert row["probabilities"] == pytest.approx(list(scores.probabilities[i]))
        assert row["predicted"] == scores.predicted[i] and row["label"] == scores.items.label[i]
    explorer.set_state({"item_page": 1})
    assert [r["index"] for r in explorer.items] == religion[PAGE_SIZE:].tolist()
    explorer.set_state({"item_page": 9})  # past the end: the last page
    assert explorer.item_page == 1


def test_a_typed_item_is_scored_by_the_model(explorer, study) -> None:
    explorer.set_state({"own_item": OWN})
    got = explorer.own_result
    direct = score_choices(study.scorer, [bbq_prompt(OWN["context"], OWN["question"])], [OWN["answers"]])
    assert got["probabilities"] == pytest.approx(list(direct.probabilities()[0]))
    assert got["predicted"] == int(direct.predicted()[0]) and got["answers"] == OWN["answers"]
    assert got["elapsed_ms"] > 0 and explorer.error == "" and not explorer.stale


@pytest.mark.parametrize(("state", "named"), [
    ({"own_item": {**OWN, "answers": ["a", "b"]}}, "own_item's answers must be three answers"),
    ({"own_item": {**OWN, "question": " "}}, "own_item's question must be text"),
    ({"selected_category": "Cooking"}, "selected_category must be one of"),
    ({"item_page": -1}, "item_page must be 0 or more"),
])
def test_bad_input_from_the_front_end_is_refused_and_named(explorer, state, named) -> None:
    before = dict(explorer.own_result)
    explorer.set_state(state)
    assert named in explorer.error and explorer.stale
    assert next(iter(state)) in explorer.refused
    assert explorer.own_result == before


def test_text_the_model_cannot_take_reaches_the_error_line(study, ran) -> None:
    w = BbqExplorer(study, *ran)
    w.ask(" ".join(["The souvenir shop was closed on Sunday."] * 60), "Who?", ["a", "b", "c"])
    assert "the model takes at most" in w.error and w.stale and w.own_result == {}


def test_result_and_scores_come_together(study, ran) -> None:
    with pytest.raises(ValueError, match="give both `result` and `scores`"):
        BbqExplorer(study, ran[0])
    with pytest.raises(TypeError, match="`study` must be a BbqStudy"):
        BbqExplorer("embias-demo-mlm")
