"""RIPA's per-word bootstrap intervals over the relation pairs in the relation study's results (issue 28):
a case small enough to enumerate by hand, and the JSON / frame / points that carry them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from embias_widgets.analysis.relation import RelationProjection
from embias_widgets.models import StaticVectors


@pytest.fixture
def toy() -> StaticVectors:
    # (she, he) and (woman, man) differ by (2, 1) and (2, -1): b = (1, 0) from both; a resample of one pair
    # twice gives b = (2, 1)/sqrt(5) or (2, -1)/sqrt(5)
    words = ["she", "he", "woman", "man", "nurse", "engineer"]
    vectors = np.array([[2, 1], [0, 0], [3, 0], [1, 1], [3, 4], [-1, 7]], dtype=np.float64)
    return StaticVectors(words, vectors, name="toy")


def test_ripa_interval_by_hand(toy: StaticVectors) -> None:
    result = RelationProjection([("she", "he"), ("woman", "man")], {"jobs": ["nurse", "engineer"]},
                                model=toy).run(n_resamples=2000, seed=1)
    # nurse (3, 4): RIPA 3 with both pairs, 10/sqrt(5) with (she, he) twice, 2/sqrt(5) with (woman, man) twice;
    # each single-pair resample has probability 1/4, so the 2.5% and 97.5% quantiles are the extremes
    frame = result.frame().set_index("word")
    assert frame.loc["nurse", "ripa"] == pytest.approx(3.0)
    assert frame.loc["nurse", "ripa_low"] == pytest.approx(2 / math.sqrt(5))
    assert frame.loc["nurse", "ripa_high"] == pytest.approx(10 / math.sqrt(5))
    assert set(np.round(result.intervals.replicates[:, 0], 9)) == {3.0, round(10 / math.sqrt(5), 9),
                                                                   round(2 / math.sqrt(5), 9)}
    # engineer (-1, 7): -1, 5/sqrt(5), -9/sqrt(5)
    assert frame.loc["engineer", "ripa_low"] == pytest.approx(-9 / math.sqrt(5))
    assert frame.loc["engineer", "ripa_high"] == pytest.approx(5 / math.sqrt(5))


def test_ripa_interval_in_json_and_points(toy: StaticVectors) -> None:
    study = RelationProjection([("she", "he"), ("woman", "man")], ["nurse"], model=toy)
    record = study.run(level=0.8, n_resamples=300, seed=4).to_dict()
    iv = record["words"][0]["ripa_interval"]
    assert iv["level"] == 0.8 and "relation pairs" in iv["method"] and "recomputed" in iv["method"]
    assert "ripa_low" not in record["words"][0]
    pair = record["pairs"][0]
    assert pair["ripa_first_interval"]["low"] <= pair["ripa_first"] <= pair["ripa_first_interval"]["high"]
    again = study.run(level=0.8, n_resamples=300, seed=4).to_dict()
    assert again == record  # seeded
    none = study.run(n_resamples=0)
    assert none.to_dict()["words"][0]["ripa_interval"] is None
    assert none.points()[-1]["low"] is None and np.isnan(none.frame()["ripa_low"][0])


def test_chart_draws_each_interval(toy: StaticVectors) -> None:
    result = RelationProjection([("she", "he"), ("woman", "man")], ["nurse"], model=toy).run(n_resamples=200)
    spec = result.chart().to_dict()
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in spec["layer"]]
    assert marks[:2] == ["rule", "rule"]  # the zero line, then the intervals
    rows = next(rows for rows in spec["datasets"].values() if "word" in rows[0])
    nurse = next(r for r in rows if r["word"] == "nurse")
    assert (nurse["low"], nurse["high"]) == tuple(result.frame().loc[0, ["ripa_low", "ripa_high"]])
