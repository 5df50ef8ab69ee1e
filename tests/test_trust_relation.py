"""RIPA's per-word bootstrap intervals over the relation pairs in the relation study's results (issue 28):
a case small enough to enumerate by hand, and the JSON / frame / points that carry them."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

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
    # nurse (3, 4): RIPA 3 with both pairs, 10/sqrt(5) with (she, he) twice, 2/sqrt(5) with (woman, man) twice
    # (each single-pair resample has probability 1/4); engineer (-1, 7): -1, 5/sqrt(5), -9/sqrt(5)
    frame = result.frame().set_index("word")
    t = scipy.stats.t.ppf(0.975, 1) * math.sqrt(2)  # t with p - 1 = 1 degree of freedom, sqrt(p / (p - 1))
    for word, ripa, values in (("nurse", 3.0, (3.0, 10 / math.sqrt(5), 2 / math.sqrt(5))),
                               ("engineer", -1.0, (-1.0, 5 / math.sqrt(5), -9 / math.sqrt(5)))):
        column = result.intervals.replicates[:, list(frame.index).index(word)]
        assert set(np.round(column, 9)) == {round(v, 9) for v in values}
        counts = [int(np.sum(np.isclose(column, v))) for v in values]
        mean = sum(c * v for c, v in zip(counts, values, strict=True)) / 2000
        sd = math.sqrt(sum(c * (v - mean) ** 2 for c, v in zip(counts, values, strict=True)) / 1999)
        assert frame.loc[word, "ripa"] == pytest.approx(ripa)
        assert frame.loc[word, "ripa_low"] == pytest.approx(2 * ripa - mean - t * sd)
        assert frame.loc[word, "ripa_high"] == pytest.approx(2 * ripa - mean + t * sd)


def test_ripa_interval_in_json_and_points(toy: StaticVectors) -> None:
    study = RelationProjection([("she", "he"), ("woman", "man")], ["nurse"], model=toy)
    record = study.run(level=0.8, n_resamples=300, seed=4).to_dict()
    iv = record["words"][0]["ripa_interval"]
    assert iv["level"] == 0.8 and "relation pairs" in iv["method"] and "recomputed" in iv["method"]
    assert "bias-corrected" in iv["method"] and "population relation vector" in iv["method"]
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


def test_study_notes_pairs_along_two_directions() -> None:
    """Three pairs whose differences are (1, 0.9), (1, -0.9), (1, 0.1): a strong second direction; the study
    says so and its intervals are percentile ones."""
    words = ["a1", "a2", "b1", "b2", "c1", "c2", "w"]
    vectors = np.array([[1, 0.9, 0], [0, 0, 0], [1, -0.9, 0.01], [0, 0, 0], [1, 0.1, 0], [0, 0, 0], [2, 1, 0]],
                       dtype=np.float64)
    study = RelationProjection([("a1", "a2"), ("b1", "b2"), ("c1", "c2")], ["w"],
                               model=StaticVectors(words, vectors, name="toy"))
    result = study.run(n_resamples=200)
    assert any("second direction" in n for n in result.notes)
    assert result.to_dict()["words"][0]["ripa_interval"]["method"].startswith("percentile bootstrap")
