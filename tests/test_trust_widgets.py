"""The likelihood table, the RIPA plot and the NLI explorer carry the intervals of issue 28, refuse null in
their messages (issue 31 item 8), and the table's "Pairs JSON" export round-trips through ``embias pll
--pairs`` (issue 31 item 20); the explorer switches its heatmap to one template and shows nothing stale while a
new run scores (item 21). Every edit goes through ``set_state``, the front end's message path."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import torch  # noqa: F401  (test extra: a missing install fails, never skips)
from _tiny_lm import THREE_PAIRS, one_thread, tiny_mlm_dir, tiny_scorer
from scipy import stats

from embias_widgets.analysis.likelihood.pair_input import read_pairs_json
from embias_widgets.cli import main
from embias_widgets.models import StaticVectors
from embias_widgets.widgets.nli_explorer import NliExplorer
from embias_widgets.widgets.paired_likelihood_table import PairedLikelihoodTable
from embias_widgets.widgets.relation_projection import RelationProjectionWidget

PAIRS = THREE_PAIRS


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


@pytest.fixture
def table() -> PairedLikelihoodTable:
    return PairedLikelihoodTable(PAIRS, model=tiny_scorer())


def test_table_summary_and_groups_carry_wilson_intervals_and_the_sign_test(table: PairedLikelihoodTable) -> None:
    k, n, ties = table.summary["n_stereo_preferred"], table.summary["n"], table.summary["n_ties"]
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    iv = table.summary["score_interval"]
    assert (iv["low"], iv["high"]) == pytest.approx((100 * ci.low, 100 * ci.high))
    assert table.summary["p_value"] == pytest.approx(stats.binomtest(k, n - ties, 0.5).pvalue)
    ci = stats.binomtest(k, n - ties).proportion_ci(0.95, method="wilson")
    assert table.summary["percent_of_decided_interval"]["low"] == pytest.approx(100 * ci.low)
    assert "never in k" in iv["method"] and "sign test" in table.summary["p_value_method"]
    table.set_state({"group_by": "bias_type", "convention": "zhou"})
    gender = next(g for g in table.summary["groups"] if g["name"] == "gender")
    ci = stats.binomtest(gender["n_stereo_preferred"], 2).proportion_ci(0.95, method="wilson")
    assert gender["score_interval"]["low"] == pytest.approx(100 * ci.low - 50)
    decided = gender["n"] - gender["n_ties"]
    assert gender["p_value"] == pytest.approx(stats.binomtest(gender["n_stereo_preferred"], decided).pvalue)
    assert gender["percent_of_decided"] == pytest.approx(100 * gender["n_stereo_preferred"] / decided)


@pytest.mark.parametrize("field", ["stereo", "anti", "bias_type"])
def test_table_refuses_null_and_keeps_the_text(table: PairedLikelihoodTable, field: str) -> None:
    before = [dict(p) for p in table.pairs]
    edited = [dict(p) for p in table.pairs]
    edited[1][field] = None
    table.set_state({"pairs": edited})
    assert table.pairs == before and table.summary["n"] == 3  # nothing scored as the sentence "None"
    assert "null is not text" in table.error and table.refused["pairs"]["value"][1][field] is None
    assert all("None" not in (r["stereo"]["text"], r["anti"]["text"]) for r in table.rows)


def test_pairs_json_export_round_trips_through_embias_pll(table: PairedLikelihoodTable, tmp_path: Path) -> None:
    table.set_state({"pairs": [*table.pairs, {"stereo": "Old men are slow.", "anti": "Young men are slow.",
                                              "bias_type": "age", "direction": "antistereo"}]})
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(table.export_pairs(), indent=2) + "\n", encoding="utf-8")  # what the button saves
    out = io.StringIO()
    assert main(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path), "--format", "json",
                 "--no-progress"], out=out) == 0
    items = json.loads(out.getvalue())["items"]
    assert [(i["stereo"], i["anti"], i["bias_type"]) for i in items] == \
        [(p["stereo"], p["anti"], p["bias_type"]) for p in table.export_pairs()]
    # and back: the file read as the CLI reads it fills a new table with the same pairs
    again = PairedLikelihoodTable(read_pairs_json(path), model=tiny_scorer())
    assert again.export_pairs() == table.export_pairs()


def test_pairs_json_errors_name_the_file_and_the_pair(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('[{"stereo": "A b.", "anti": ""}]', encoding="utf-8")
    with pytest.raises(ValueError, match=r"p\.json: pair 0: the anti sentence is empty"):
        read_pairs_json(path)
    path.write_text('[["A b.", "C d."]]', encoding="utf-8")
    with pytest.raises(ValueError, match="a JSON array of objects"):
        read_pairs_json(path)


@pytest.fixture
def relation() -> RelationProjectionWidget:
    words = ["she", "he", "woman", "man", "nurse", "engineer", "none"]
    vectors = np.array([[2, 1], [0, 0], [3, 0], [1, 1], [3, 4], [-1, 7], [0, 1]], dtype=np.float64)
    return RelationProjectionWidget([("she", "he"), ("woman", "man")], {"jobs": ["nurse", "engineer"]},
                                    model=StaticVectors(words, vectors, name="toy"))


def test_relation_points_carry_their_interval(relation: RelationProjectionWidget) -> None:
    nurse = next(p for p in relation.points if p["word"] == "nurse")
    # the analysis' bias-corrected interval (by hand in test_trust_relation.py), shown as it is
    row = relation.result.frame().set_index("word").loc["nurse"]
    assert (nurse["low"], nurse["high"]) == (row["ripa_low"], row["ripa_high"])
    assert nurse["low"] < 3.0 < nurse["high"]


def test_relation_refuses_null_words_and_groups(relation: RelationProjectionWidget) -> None:
    points = list(relation.points)
    relation.set_state({"pairs": [["she", "he"], ["woman", None]]})
    assert relation.pairs == [["she", "he"], ["woman", "man"]] and relation.points == points
    assert "second word is null" in relation.error and relation.refused["pairs"]["value"][1] == ["woman", None]
    relation.set_state({"groups": {"jobs": [None, 5]}})
    assert relation.groups == {"jobs": ["nurse", "engineer"]}
    assert "holds null" in relation.error and not any(p["word"] in ("None", "none", "5") for p in relation.points)


def test_explorer_switches_its_heatmap_to_one_template() -> None:
    ex = NliExplorer("religion-polarity", n_premise_words=2, n_templates=3, autorun=False)
    ex.run()
    t = ex.templates
    assert len(t["rows"]) == 3 and t["most_neutral"]["template"] in [r["template"] for r in t["rows"]]
    name = t["rows"][1]["template"]
    ex.set_state({"template": name})
    assert ex.heatmap["template"] == name
    assert ex.heatmap["values"] == ex.result.template_heatmap(name, "neutral", ex.heatmap["premise_words"],
                                                              ex.heatmap["hypothesis_words"])
    mean = ex.result.heatmap_grid("neutral", ex.heatmap["premise_words"], ex.heatmap["hypothesis_words"])
    assert ex.heatmap["values"] != mean
    ex.set_state({"template": "ate a moon"})
    assert ex.template == name and "not one of this run's 3 templates" in ex.error
    ex.set_state({"template": ""})
    assert ex.heatmap["values"] == mean and ex.heatmap["template"] == ""


def test_explorer_is_not_stale_while_a_new_run_scores() -> None:
    ex = NliExplorer("religion-polarity", n_premise_words=2, n_templates=2, autorun=False)
    ex.run()
    seen = []
    ex.set_state({"sample_seed": 5})
    assert ex.stale  # the numbers drawn are of the previous subset
    ex.observe(lambda change: seen.append((ex.progress.get("n_scored"), ex.stale)), names="progress")
    ex.run()
    assert seen[0] == (0, False)  # the run just started: old numbers cleared, nothing called stale
    assert not ex.stale


def test_result_chart_and_intervals_frame_carry_the_wilson_interval(table: PairedLikelihoodTable) -> None:
    result = table.result
    spec = result.chart().to_dict()
    assert [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
            for layer in spec["layer"]] == ["bar", "rule", "rule"]
    frame = result.intervals_frame().set_index("name")
    rows = {r["group"]: r for r in next(d for d in spec["datasets"].values() if "group" in d[0])}
    for name in ("all pairs", "gender"):
        assert rows[name]["low"] == pytest.approx(frame.loc[name, "low"])
        assert rows[name]["high"] == pytest.approx(frame.loc[name, "high"])
    k, n, ties = result.bias.n_stereo_preferred, result.bias.n, result.bias.n_ties
    assert frame.loc["all pairs", "p_value"] == pytest.approx(stats.binomtest(k, n - ties, 0.5).pvalue)
    assert frame.loc["all pairs", "percent_of_decided"] == pytest.approx(100 * k / (n - ties))
