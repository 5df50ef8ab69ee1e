"""BbqResult: the four answers of every study result, built from items and per-item predictions."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _result_protocol import assert_study_result

from embias_widgets.analysis import BbqResult
from embias_widgets.metrics.bbq import answer_index_from_text, bbq_scores
from embias_widgets.stimuli import load_bbq, read_bbq_predictions


@pytest.fixture(scope="module")
def race(shared_data):
    root = shared_data / "bbq"
    items = load_bbq(root / "data", categories=["Age", "Religion"])
    pred_items = load_bbq(root / "results" / "UnifiedQA", categories=["Age", "Religion"])
    strings = read_bbq_predictions(root / "results" / "UnifiedQA", items, "unifiedqa-t5-11b_pred_race")
    return items, answer_index_from_text(strings, pred_items.answers, pred_items.answer_text)


def test_result_answers_the_four_questions_with_the_core_numbers(race) -> None:
    items, pred = race
    probs = np.random.default_rng(0).dirichlet(np.ones(3), size=len(items))
    result = BbqResult.from_predictions(items, pred, probs, model="UnifiedQA (RACE)", n_resamples=200, seed=1)
    assert_study_result(result)
    core = bbq_scores(pred, items, n_resamples=200, rng=1)
    frame = result.frame()
    assert len(frame) == 4 and frame.bias_score.tolist() == [c.bias_score for c in core.cells]
    assert frame.bias_low.tolist() == [c.bias_interval.low for c in core.cells]
    data = json.loads(json.dumps(result.to_dict()))
    cell = data["cells"][0]
    assert cell["category"] == "Age" and cell["bias_score"] == pytest.approx(29.782608695652172)
    assert cell["bias_score_interval"]["method"].startswith("percentile bootstrap over the 25 templates")
    assert cell["accuracy_interval"]["level"] == 0.95 and data["items_hash"] == items.content_hash
    assert "Age 29.8 [" in result.summary() and "Religion 14.3 [" in result.summary()
    per_item = result.items_frame()
    assert len(per_item) == len(items) and np.allclose(per_item[["p_ans0", "p_ans1", "p_ans2"]].to_numpy(), probs)
    assert per_item.correct.sum() == sum(c.n_correct for c in core.cells)
    assert len(result.to_dict(items=True)["items"]) == len(items)


def test_conventions_and_bad_input(race) -> None:
    items, pred = race
    helm = BbqResult.from_predictions(items, pred, convention="helm", n_resamples=0)
    assert helm.frame().bias_score.iloc[0] == pytest.approx(17.0, abs=0.05)  # pooled accuracy scaling
    assert helm.frame().bias_low.isna().all()
    with pytest.raises(ValueError, match="must hold 4880 whole answer indices"):
        BbqResult.from_predictions(items, pred[:5])
    with pytest.raises(ValueError, match="`probabilities` must be 4880 x 3"):
        BbqResult.from_predictions(items, pred, np.ones((4880, 2)))
    with pytest.raises(TypeError, match="`items` must be BbqItems"):
        BbqResult.from_predictions({"label": 1}, pred)


def test_a_category_with_few_templates_is_warned_about_its_interval(shared_data) -> None:
    from embias_widgets.analysis.bbq.result import FEW_TEMPLATES, BbqResult
    from embias_widgets.stimuli.bbq import load_bbq

    items = load_bbq(shared_data / "bbq" / "data", categories=["Age"])
    few = items.subset(np.isin(items.question_index, sorted(set(items.question_index))[:6]))
    pred = few.label.copy()
    res = BbqResult.from_predictions(few, pred, n_resamples=200)
    assert any(f"fewer than {FEW_TEMPLATES} templates (Age)" in n for n in res.notes)
    whole = BbqResult.from_predictions(items, items.label.copy(), n_resamples=200)  # 25 templates: no such note
    assert not any("fewer than" in n for n in whole.notes)
