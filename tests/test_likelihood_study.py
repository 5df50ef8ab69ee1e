"""PairedLikelihood and its result on a tiny random masked LM: scores, records, frame, chart, StereoSet."""

from __future__ import annotations

import json

import pytest
import torch  # noqa: F401  (test extra: a missing install fails, never skips)
from _result_protocol import assert_study_result
from _tiny_lm import THREE_PAIRS, one_thread, tiny_scorer

from embias_widgets.analysis.likelihood import PairedLikelihood
from embias_widgets.stimuli.pairs import SentencePair

PAIRS = THREE_PAIRS


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


# -- the study ---------------------------------------------------------------------------------
def test_study_scores_and_summarises() -> None:
    study = PairedLikelihood(PAIRS, model=tiny_scorer(), metric="pll", convention="zhou")
    result = study.run()
    stereo = [r.scores.stereo.score for r in result.rows]
    anti = [r.scores.anti.score for r in result.rows]
    expected = 100 * sum(s > a for s, a in zip(stereo, anti, strict=True)) / 3 - 50
    assert result.score == pytest.approx(expected)
    assert result.bias.reference == 0.0
    assert set(result.bias.by_bias_type) == {"gender", "socioeconomic"}
    frame = result.frame()
    assert list(frame["difference"]) == pytest.approx([s - a for s, a in zip(stereo, anti, strict=True)])
    record = result.to_dict()
    assert record["metric"] == "pll"
    assert record["n"] == 3
    assert record["items"][0]["stereo_score"] == pytest.approx(stereo[0])
    json.dumps(record)  # JSON-ready
    chart = result.chart().to_dict()
    assert chart["layer"][1]["mark"]["type"] == "rule"


def test_study_edits_and_crows_naming() -> None:
    study = PairedLikelihood(
        [SentencePair("A poor man.", "A rich man.", "socioeconomic", direction="antistereo")], model=tiny_scorer()
    )
    index = study.add_pair("She cooks.", "He cooks.", "gender")
    study.set_pair(index, anti="He cooks well.")
    items = study.run().items("crows")
    # antistereo: sent_more is still the more stereotypical sentence (no swap), as in metric.py
    assert items[0]["sent_more"] == "A poor man."
    assert items[0]["stereo_antistereo"] == "antistereo"
    assert items[0]["sent_more_score"] != items[0]["sent_less_score"]
    assert items[1]["sent_less"] == "He cooks well."
    study.remove_pair(0)
    assert len(study.pairs) == 1


def test_study_reports_an_unscorable_pair_on_its_row() -> None:
    study = PairedLikelihood([*PAIRS, ("Cats.", "Dogs!", "x")], model=tiny_scorer())
    result = study.run()
    assert result.rows[-1].error is not None
    assert "shares no tokens" in result.rows[-1].error
    assert result.bias.n == 3
    assert any("could not be scored" in n for n in result.notes)


def test_study_stereoset_triples() -> None:
    pairs = [
        SentencePair(
            "The chess player was asian.",
            "The chess player was hispanic.",
            "profession",
            unrelated="The chess player was fox.",
            target="chess player",
        ),
        SentencePair(
            "Ethiopian men are skinny",
            "Ethiopian men are fat",
            "race",
            unrelated="Ethiopian men are floating",
            target="Ethiopian",
        ),
    ]
    result = PairedLikelihood(pairs, model=tiny_scorer(), metric="aul").run()
    assert result.stereoset is not None
    wins = [r.unrelated_wins for r in result.rows]
    expected_lms = 100 * sum(a + b for a, b in wins) / 4  # one item per target
    assert result.stereoset.lms == pytest.approx(expected_lms)
    assert "stereoset" in result.to_dict()


def test_results_answer_the_study_result_protocol() -> None:
    assert_study_result(PairedLikelihood(PAIRS, model=tiny_scorer(), metric="pll").run())
    sense = [SentencePair("She is a nurse.", "He is a nurse.", "noun", sense_key="nurse%1:18:00::")]
    assert_study_result(PairedLikelihood(sense, model=tiny_scorer(), metric="aul", convention="zhou").run())

