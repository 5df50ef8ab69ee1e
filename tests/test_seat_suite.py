"""The bundled SEAT suite and SentenceAssociationTest: every published test
name, editing words re-encodes only their sentences, and the command line and
the notebook API give the same numbers on all-MiniLM-L6-v2."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from embias_widgets.analysis.association import SentenceAssociationTest, paper_test_names, run_suite
from embias_widgets.cli import main
from embias_widgets.models import load_model
from embias_widgets.models.sentence_encoders import CBoWEncoder
from embias_widgets.stimuli import SET_KEYS
from embias_widgets.stimuli.sentence_tests import load_sentence_test

# May et al. (2019), appendix B: the names of their test files
_CALISKAN = [f"weat{i}" for i in range(1, 11)] + ["weat3b", "weat5b", "weat6b", "weat7b", "weat8b"]
_ABW = ["angry_black_woman_stereotype", "angry_black_woman_stereotype_b"]
_HEILMAN = [
    f"heilman_double_bind_{attr}_{suffix}"
    for attr in ("competent", "likable")
    for suffix in ("one_word", "one_sentence", "1", "1+3-", "1-")
]
PAPER_NAMES = [
    *_CALISKAN, *[f"sent-{n}" for n in _CALISKAN], *_ABW, *[f"sent-{n}" for n in _ABW],
    *_HEILMAN, "sent-heilman_double_bind_competent_one_word",
    "sent-heilman_double_bind_likable_one_word",
]  # fmt: skip
SMALL = "heilman_double_bind_competent_one_sentence"  # 8 + 8 + 10 + 10 sentences


def test_every_test_of_the_paper_is_bundled_by_its_published_name():
    assert sorted(paper_test_names()) == sorted(PAPER_NAMES)
    assert len(PAPER_NAMES) == 46


def test_every_bundled_sentence_test_generates_four_nonempty_sets():
    for name in PAPER_NAMES:
        if name.startswith("sent-") or name.endswith(("_one_sentence", "_1", "_1+3-", "_1-")):
            spec = load_sentence_test(name)
            assert all(s.sentences() for s in spec.sets().values()), name


class RecordingModel:
    """Wraps a model and records what it is asked to encode."""

    def __init__(self, model):
        self.model, self.calls = model, []
        self.name, self.options = model.name, model.options

    def encode(self, items):
        self.calls.append(list(items))
        return self.model.encode(self.calls[-1])


def test_editing_a_word_encodes_only_its_sentences(minilm):
    model = RecordingModel(minilm)
    test = SentenceAssociationTest(SMALL, model=model)
    before = test.run()
    assert sum(len(c) for c in model.calls) == 36
    assert before.counts() == {"num_targ1": 8, "num_targ2": 8, "num_attr1": 10, "num_attr2": 10}
    model.calls.clear()
    test.set_items("targ1", ["Zebulon", *test.spec.targ1.examples[1:]])  # replaces John
    assert test.sentences("targ1")[0] == "Zebulon is an engineer."
    after = test.run()
    assert model.calls == [["Zebulon is an engineer."]]
    assert after.items["targ1"][0] == "Zebulon is an engineer."
    assert after.effect_size != before.effect_size
    exported = test.to_sentence_spec()
    assert exported.targ1.examples[0] == "Zebulon is an engineer."


def test_cli_and_notebook_api_give_the_same_numbers(minilm):
    out = io.StringIO()
    assert main(["weat", SMALL, "weat6", "--model", "all-MiniLM-L6-v2", "--format", "json"],
                out=out) == 0
    rows = {r["test"]: r for r in json.loads(out.getvalue())}
    api = SentenceAssociationTest(SMALL, model="all-MiniLM-L6-v2").run()
    frame = run_suite([SMALL, "weat6"], ["all-MiniLM-L6-v2"]).frame().set_index("test")
    cli = rows[SMALL]
    assert cli["effect_size"] == pytest.approx(api.effect_size, abs=1e-12)
    assert cli["p_value"] == api.pvalue
    assert cli["exact"] == api.core.exact and cli["n_permutations"] == api.core.n_permutations
    assert [cli[f"num_{k}"] for k in SET_KEYS] == [8, 8, 10, 10]
    for name, row in rows.items():
        assert row["effect_size"] == pytest.approx(frame.loc[name, "effect_size"], abs=1e-12)
        assert row["p_value"] == frame.loc[name, "p_value"]
        assert row["model"] == "all-MiniLM-L6-v2"
        assert row["oov"] == []


def test_static_vectors_on_a_sentence_test_are_the_cbow_baseline(glove):
    test = SentenceAssociationTest("sent-weat9", model=glove, n_samples=2_000)
    assert isinstance(test.model, CBoWEncoder)
    result = test.run()
    assert result.counts()["num_targ1"] == 18
    cbow = load_model("cbow-glove-6b-50d")
    X = cbow.encode(test.sentences("targ1")).vectors
    np.testing.assert_allclose(test.encoded()["targ1"][1], X)


def test_a_word_test_with_kinds_runs_as_a_sentence_test(minilm):
    kinds = {"targ1": "name", "targ2": "name", "attr1": "engineer-trait", "attr2": "engineer-trait"}
    test = SentenceAssociationTest("heilman_double_bind_likable_one_word", kinds=kinds,
                                   model=minilm)
    assert test.sentences("attr1")[0] == "The engineer is agreeable."
    assert test.sentences("targ1")[7] == "The person's name is John."
    with pytest.raises(ValueError, match="not a bundled sentence test: give template kinds"):
        SentenceAssociationTest("weat1", model=minilm)
