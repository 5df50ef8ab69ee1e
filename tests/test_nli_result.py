"""NliProbeResult answers the four questions of every study; its numbers sit in frozen dataclasses."""

from __future__ import annotations

import dataclasses
import json

import pytest
from _result_protocol import assert_study_result
from _tiny_nli import Keyed

from embias_widgets.analysis.nli import NliProbe, NliProbeScores, NliScores, ProbeSubset
from embias_widgets.metrics.neutrality import scores_from_probs
from embias_widgets.stimuli.nli_probes import user_probe


@pytest.fixture(scope="module")
def result():
    source = user_probe(["rude", "kind"], ["Iraqi", "Welsh"], person=True)
    return NliProbe(source, Keyed(), chunk_size=300, top_k=3, limit=900, taus=(0.4, 0.6)).run(per_pair=True)


def test_the_result_implements_the_study_protocol(result):
    assert_study_result(result)
    assert "NN" in result.summary() and "first 900 of" in result.summary()


def test_scores_are_frozen_dataclasses_whatever_the_taus(result):
    s = result.scores()
    assert isinstance(s, NliProbeScores) and isinstance(s.pairs, NliScores)
    assert [f.name for f in dataclasses.fields(NliScores)] == ["net_neutral", "fraction_neutral", "thresholds"]
    assert [tau for tau, _ in s.pairs.thresholds] == [0.4, 0.6]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.pairs.net_neutral = 1.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.notes = ()  # type: ignore[misc]
    P = result.pairs_table()[["entailment", "neutral", "contradiction"]].to_numpy()
    assert s.pairs.to_dict() == pytest.approx(scores_from_probs(P, (0.4, 0.6)), rel=1e-12)
    assert s.pairs.threshold(0.6) == s.pairs.to_dict()["threshold_0.6"]
    with pytest.raises(KeyError, match="taus"):
        s.pairs.threshold(0.5)


def test_to_dict_is_the_cli_object(result):
    data = json.loads(json.dumps(result.to_dict()))
    assert data["n_pairs"] == 900 and data["taus"] == [0.4, 0.6]
    # every measure has its interval beside it and the n it was computed from (issue 28)
    measures = {k for k in data["pairs"] if not k.endswith("_interval")}
    assert measures == {"net_neutral", "fraction_neutral", "threshold_0.4", "threshold_0.6", "n"}
    assert len(data["top_entailment"]) == 3
    assert list(result.frame().columns) == ["level", "measure", "value", "low", "high"]  # intervals: issue 28


def test_heatmap_grid_and_cell_pairs_come_from_the_result(result):
    table = result.word_pairs_table()
    grid = result.heatmap_grid("neutral", ["kind", "rude"], ["Welsh", "Iraqi", "Zulu"])
    row = table[(table.premise_word == "rude") & (table.hypothesis_word == "Iraqi")].iloc[0]
    assert grid[1][1] == pytest.approx(row["neutral"]) and grid[1][2] is None
    cells = result.cell_pairs("rude", "Iraqi", limit=5)
    rows = result.pairs_table()
    first = rows[(rows.premise_word == "rude") & (rows.hypothesis_word == "Iraqi")].iloc[0]
    assert len(cells) == 5 and cells[0]["index"] == first["index"]
    assert cells[0]["contradiction"] == pytest.approx(first["contradiction"])


def test_probe_subset_spreads_templates():
    subset = ProbeSubset.of("gender-occupation", n_premise_words=2, n_templates=4)
    assert subset.size()["n_pairs"] == 2 * 6 * 4 and subset.size()["whole_templates"] == 1968
    assert len({t.verb_group for t in subset.source.templates}) > 1
    with pytest.raises(ValueError, match="at least 1"):
        ProbeSubset.of("gender-occupation", n_premise_words=0, n_templates=4)
