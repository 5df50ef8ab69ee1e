"""AssociationTest on GloVe: options, OOV, edits, bad input."""

import math
import time

import numpy as np
import pytest
from _result_protocol import assert_study_result

from embias_widgets.analysis import AssociationInputError, AssociationTest
from embias_widgets.metrics import weat
from embias_widgets.models import StaticVectors


def test_matches_core_on_looked_up_vectors(glove):
    at = AssociationTest("weat6", model=glove)
    res = at.run()
    vec = {k: glove.encode(getattr(at.spec, k).examples).vectors for k in ("targ1", "targ2", "attr1", "attr2")}
    core = weat(vec["targ1"], vec["targ2"], vec["attr1"], vec["attr2"])
    assert res.effect_size == core.effect_size and res.pvalue == core.pvalue
    assert res.core.exact and res.core.n_permutations == 12_870


def test_weat1_reports_gladiola_and_counts(glove):
    res = AssociationTest("weat1", model=glove, n_samples=2_000).run()
    assert res.dropped() == ["gladiola"]
    assert res.counts() == {"num_targ1": 24, "num_targ2": 25, "num_attr1": 25, "num_attr2": 25}
    assert any("left out" in n for n in res.notes)
    assert res.oov["targ1"][0].suggestions  # close matches offered


def test_b_test_says_multiword_items_were_averaged(glove):
    res = AssociationTest("weat3b", model=glove, n_samples=1_000).run()
    assert "european american" in [a.lower() for a in res.averaged]
    assert any("mean of their words" in n for n in res.notes)


def test_edit_encodes_only_new_words():
    calls = []

    class Counting(StaticVectors):
        def encode(self, items):
            calls.append(list(items))
            return super().encode(items)

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(20)]
    model = Counting(words, rng.normal(size=(20, 8)))
    at = AssociationTest(targ1=words[:4], targ2=words[4:8], attr1=words[8:12], attr2=words[12:16], model=model)
    at.run()
    calls.clear()
    at.set_items("targ1", [*words[:4], "w16"])
    at.run()
    assert calls == [["w16"]]


def test_seed_reproduces_sampled_p(glove):
    a = AssociationTest("weat3", model=glove, n_samples=5_000, seed=3).run()
    b = AssociationTest("weat3", model=glove, n_samples=5_000, seed=3).run()
    assert a.pvalue == b.pvalue and not a.core.exact


def test_duplicates_are_deduplicated_and_said(glove):
    at = AssociationTest("weat6", model=glove)
    dups = at.set_items("attr1", [*at.spec.attr1.examples, "salary", "salary "])
    assert dups == ("salary", "salary")
    assert at.spec.attr1.examples.count("salary") == 1
    assert any("duplicate" in n for n in at.run().notes)


def test_empty_and_all_oov_sets_are_clear_errors(glove):
    at = AssociationTest("weat6", model=glove)
    at.set_items("attr2", [])
    with pytest.raises(AssociationInputError, match=r"Attribute B 'Family' is empty"):
        at.run()
    at.set_items("attr2", ["qqqzzx", "zzqqxx"])
    with pytest.raises(AssociationInputError, match="no item is in the model's vocabulary"):
        at.run()


def test_zero_variance_is_said_plainly(glove):
    res = AssociationTest(targ1=["cat"], targ2=["cat "], attr1=["good"], attr2=["bad"], model=glove).run()
    assert res.effect_size is None
    assert any("effect size undefined" in n for n in res.notes)


def test_proposition_2_on_real_words(glove):
    for words in (["door", "curtain", "dog", "cat"], ["nurse", "engineer", "he", "she"]):
        x, y, a, b = ([w] for w in words)
        res = AssociationTest(targ1=x, targ2=y, attr1=a, attr2=b, model=glove, ddof=0).run()
        assert abs(res.effect_size) == pytest.approx(2)


def test_edit_latency_is_interactive(glove):
    at = AssociationTest("weat1", model=glove)
    at.run()
    times = []
    for extra in ("sunflower", "orchid", "lotus"):
        t0 = time.perf_counter()
        at.set_items("targ1", [*at.spec.targ1.examples, extra])
        at.run()
        times.append(time.perf_counter() - t0)
    # Generous bound for a loaded CI machine; bench/ reports the real figure.
    assert min(times) < 0.5


def test_result_tables(glove):
    res = AssociationTest("weat7", model=glove).run(confidence_interval=True, n_resamples=300)
    df = res.frame()
    assert list(df.columns) == ["set", "category", "word", "association", "cos_a", "cos_b"]
    assert len(df) == 16
    np.testing.assert_allclose(df.association[:8], res.core.association_x)
    d = res.to_dict()
    interval = d["effect_size_interval"]
    assert interval["low"] <= res.effect_size <= interval["high"] and interval["level"] == 0.95
    assert "300 resamples" in interval["method"] and "words" in interval["method"]
    spec = res.chart().to_dict()
    assert spec["mark"]["type"] == "bar"


def test_bits_sampler_option_reaches_the_test_and_its_record(glove):
    keys = AssociationTest("weat1", model=glove, n_samples=20_000, sampler="keys").run()
    bits = AssociationTest("weat1", model=glove, n_samples=20_000, sampler="bits").run()
    default = AssociationTest("weat1", model=glove, n_samples=20_000).run()
    assert "sampler=keys" in keys.options and "sampler=bits" in bits.options and "sampler" not in default.options
    assert bits.effect_size == keys.effect_size and bits.core.n_permutations == 20_000
    assert not np.array_equal(bits.core.null_distribution, keys.core.null_distribution)  # other draws
    se = math.sqrt(max(keys.pvalue * (1 - keys.pvalue), 1 / 20_000) / 20_000)
    assert abs(bits.pvalue - keys.pvalue) < 6 * se * math.sqrt(2) + 2 / 20_000


def test_unknown_sampler_is_an_input_error(glove):
    with pytest.raises(AssociationInputError, match="`sampler` must be one of 'auto', 'bits', 'indices', 'keys'"):
        AssociationTest("weat1", model=glove, sampler="dice")
    test = AssociationTest("weat1", model=glove)
    test.set_options(sampler="bits")
    assert test.options["sampler"] == "bits"


def test_result_answers_the_study_protocol(glove):
    res = AssociationTest("weat7", model=glove).run(confidence_interval=True, n_resamples=200)
    assert_study_result(res)
    assert res.word_rows() == res.frame().to_dict("records")
