"""PairedLikelihoodTable on a tiny random masked LM: the widget model recomputes in Python when the front
end edits its traits (set_state)."""

from __future__ import annotations

import math

import pytest
import torch  # noqa: F401  (test extra: a missing install fails, never skips)
from _tiny_lm import THREE_PAIRS, one_thread, tiny_scorer

from embias_widgets.analysis.likelihood import DEMO_NOTE
from embias_widgets.widgets.paired_likelihood_table import PairedLikelihoodTable

PAIRS = THREE_PAIRS


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


@pytest.fixture
def table() -> PairedLikelihoodTable:
    return PairedLikelihoodTable(PAIRS, model=tiny_scorer())


# -- the widget ----------------------------------------------------------------------------------
def test_rows_show_scores_and_the_preferred_side(table: PairedLikelihoodTable) -> None:
    assert len(table.rows) == 3
    for row in table.rows:
        diff = row["stereo"]["score"] - row["anti"]["score"]
        assert row["difference"] == pytest.approx(diff)
        assert row["preferred"] == ("stereo" if diff > 0 else "anti" if diff < 0 else "tie")
        tokens = row["stereo"]["tokens"]
        assert [t["piece"] for t in tokens if not t["special"]][-1] == "."
        shades = [t["shade"] for t in tokens if t["shade"] is not None]
        assert all(0.0 <= s <= 1.0 for s in shades)
    first = table.rows[0]["stereo"]["tokens"]
    she = next(t for t in first if t["piece"] == "She")
    assert she["modified"]
    assert she["log_prob"] is None  # CPS never masks a modified token
    assert table.summary["reference"] == 50.0
    assert table.summary["n"] == 3
    assert table.summary["score"] == pytest.approx(table.result.bias.score)
    assert table.order == [0, 1, 2]
    assert table.demo_note == ""


def test_typing_a_new_pair_scores_it(table: PairedLikelihoodTable) -> None:
    new = {"stereo": "Old people are slow.", "anti": "Young people are slow.", "bias_type": "age"}
    table.set_state({"pairs": [*table.pairs, new]})
    assert len(table.rows) == 4
    row = table.rows[3]
    direct = tiny_scorer().score_pairs([(new["stereo"], new["anti"])], "cps")[0]
    assert row["stereo"]["score"] == pytest.approx(direct.stereo.score, abs=1e-5)
    assert row["anti"]["score"] == pytest.approx(direct.anti.score, abs=1e-5)
    assert "age" in table.bias_types
    assert table.summary["n"] == 4


def test_editing_a_pair_rescores_only_what_changed(table: PairedLikelihoodTable) -> None:
    passes = table.study.scorer.forward_passes
    edited = [dict(p) for p in table.pairs]
    edited[1]["anti"] = "The wealthy are lazy."
    table.set_state({"pairs": edited})
    assert table.rows[1]["anti"]["text"] == "The wealthy are lazy."
    assert table.study.scorer.forward_passes > passes
    passes = table.study.scorer.forward_passes
    table.set_state({"pairs": edited})  # same text again: all cached
    assert table.study.scorer.forward_passes == passes


def test_filter_and_sort_are_computed_in_python(table: PairedLikelihoodTable) -> None:
    table.set_state({"bias_type_filter": "gender"})
    assert table.order == [0, 2]
    gender = table.result.bias.by_bias_type["gender"]
    assert table.summary["score"] == pytest.approx(gender.score)
    assert table.summary["group"] == "gender"
    table.set_state({"bias_type_filter": "", "sort_by": "difference"})
    diffs = [table.rows[i]["difference"] for i in table.order]
    assert diffs == sorted(diffs, reverse=True)
    table.set_state({"sort_by": "abs"})
    assert [abs(table.rows[i]["difference"]) for i in table.order] == sorted((abs(d) for d in diffs), reverse=True)


def test_metric_and_convention_switches(table: PairedLikelihoodTable) -> None:
    crows_score = table.summary["score"]
    table.set_state({"convention": "zhou"})
    assert table.summary["reference"] == 0.0
    assert table.summary["score"] == pytest.approx(crows_score - 50)
    table.set_state({"metric": "aula"})
    assert table.result.metric == "aula"
    token = next(t for t in table.rows[0]["stereo"]["tokens"] if not t["special"])
    assert token["attention"] is not None
    assert not math.isnan(token["log_prob"])


def test_a_bad_pair_shows_its_error_and_the_rest_still_score(table: PairedLikelihoodTable) -> None:
    table.set_state({"pairs": [*table.pairs, {"stereo": "She is kind.", "anti": "", "bias_type": "gender"}]})
    assert table.rows[3]["error"]
    assert "empty" in table.rows[3]["error"]
    assert table.rows[0]["error"] == ""
    assert table.order[-1] == 3  # failed rows go last
    assert table.summary["n"] == 3


def test_invalid_view_choices_are_rejected(table: PairedLikelihoodTable) -> None:
    import traitlets

    with pytest.raises(traitlets.TraitError):
        table.metric = "bleu"
    with pytest.raises(traitlets.TraitError):
        table.sort_by = "random"


def test_export_and_demo_label() -> None:
    scorer = tiny_scorer()
    scorer.description = "embias demo MLM (fitted offline)"
    table = PairedLikelihoodTable(PAIRS[:1], model=scorer)
    assert table.demo_note == DEMO_NOTE
    table.add_pair("Girls cry.", "Boys cry.", "gender")
    assert table.export_pairs()[-1] == {"stereo": "Girls cry.", "anti": "Boys cry.", "bias_type": "gender"}
    assert len(table.rows) == 2
    state = table.get_state()
    assert "rows" in state
    assert "summary" in state


def test_rows_warn_about_pairs_that_are_not_minimal_edits(table: PairedLikelihoodTable) -> None:
    odd = {"stereo": "Men fix cars.", "anti": "Women bake bread.", "bias_type": "x"}
    table.set_state({"pairs": [*table.pairs, odd]})
    assert table.rows[0]["warning"] == ""
    assert "not a minimal edit" in table.rows[-1]["warning"]


def test_a_failed_recompute_clears_the_old_scores(table: PairedLikelihoodTable, monkeypatch) -> None:
    assert table.rows and table.summary["score"] is not None
    revision = table.revision

    def broken() -> None:
        raise RuntimeError("model crashed")

    monkeypatch.setattr(table.study, "run", broken)
    table.set_state({"pairs": [*table.pairs, {"stereo": "A b.", "anti": "C b.", "bias_type": ""}]})
    assert table.error == "RuntimeError: model crashed (an internal error: please report it)"
    assert table.stale is True and table.result is None
    assert table.rows == [] and table.order == [] and table.summary["score"] is None
    assert table.revision == revision + 1 and table.busy is False
