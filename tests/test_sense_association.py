"""SenseAssociationTest (analysis/senses) on a small sense-vector file: sense result, eq. 7 and max-over-senses
twins, errors; its result answers the StudyResult protocol."""

from __future__ import annotations

import numpy as np
import pytest
from _result_protocol import assert_study_result

from embias_widgets.analysis import SenseAssociationTest, SenseInputError
from embias_widgets.metrics import sense_weat, weat
from embias_widgets.models.sense_vectors import load_sense_file

LEMMAS = ["nurse", "engineer", "judge", "mentor", "man", "woman", "he", "she"]


@pytest.fixture(scope="module")
def sense_file(wn, tmp_path_factory):
    rng = np.random.default_rng(7)
    keys = [s.key for lemma in ["nurse", "engineer", "judge", "mentor", "man", "woman", "boy", "girl"]
            for s in wn.senses(lemma)]
    path = tmp_path_factory.mktemp("senses") / "lmms.txt"
    path.write_text("".join(k + " " + " ".join(f"{v:.6f}" for v in rng.normal(size=8)) + "\n" for k in keys))
    return path


def _run(sense_file, **sets):
    return SenseAssociationTest(model=str(sense_file), seed=0, **sets).run()


def test_sense_result_equals_the_core_on_the_same_vectors(sense_file):
    sets = dict(targ1=["nurse%1:18:00::", "engineer%1:18:00::"], targ2=["nurse%2:29:00::", "engineer%2:31:01::"],
                attr1=["man%1:18:00::", "boy%1:18:00::"], attr2=["woman%1:18:00::", "girl%1:18:00::"])
    res = _run(sense_file, **sets)
    vecs = load_sense_file(sense_file)
    X, Y, A, B = (vecs.vectors(sets[k]) for k in ("targ1", "targ2", "attr1", "attr2"))
    plain = weat(X, Y, A, B, variant="max", rng=0)
    assert res.effect_size == pytest.approx(plain.effect_size)
    assert res.pvalue == pytest.approx(plain.pvalue)
    # eq. 7 twin: every item's lemma as the mean of its sense vectors
    words = {k: vecs.word_vectors([vecs.keys[vecs.keys.index(i)].split("%")[0] for i in sets[k]]) for k in sets}
    twin = weat(words["targ1"], words["targ2"], words["attr1"], words["attr2"], variant="max", rng=0)
    assert res.word_average.effect_size == pytest.approx(twin.effect_size)
    # noun and verb senses of the same lemmas: the word-level twins cannot tell X from Y
    assert res.word_average.effect_size is None or abs(res.word_average.effect_size) < 1e-9
    frame = res.frame()
    assert set(frame["level"]) == {"sense", "word_average", "word_max"} and len(frame) == 12
    levels = res.levels()
    assert list(levels["level"]) == ["sense", "word_average", "word_max"]
    assert res.chart().to_dict()["mark"]["type"] == "bar"
    record = res.to_dict()
    assert record["num_targ1"] == 2 and record["variant"] == "max" and "word_level" in record
    assert_study_result(res)


def test_lemma_items_max_over_senses_and_winners(sense_file):
    res = _run(sense_file, targ1=["nurse"], targ2=["engineer"], attr1=["man"], attr2=["woman"])
    vecs = load_sense_file(sense_file)
    groups = [[vecs.vectors(vecs.keys_of(w))] for w in ("nurse", "engineer", "man", "woman")]
    direct = sense_weat(*groups, rng=0).result
    np.testing.assert_allclose(res.sense.result.association_x, direct.association_x)
    row = res.frame().query("level == 'word_max' and item == 'nurse'").iloc[0]
    won_t, won_a = row["target_sense_vs_attr1"], row["attr1_sense"]
    cos = float(vecs.vector(won_t) @ vecs.vector(won_a) / np.linalg.norm(vecs.vector(won_t))
                / np.linalg.norm(vecs.vector(won_a)))
    assert cos == pytest.approx(res.word_max.winners.cosine_a[0])
    all_pairs = [float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))
                 for u in vecs.vectors(vecs.keys_of("nurse")) for v in vecs.vectors(vecs.keys_of("man"))]
    assert cos == pytest.approx(max(all_pairs))


def test_senses_average_uses_eq7_vectors_for_lemmas(sense_file):
    res = SenseAssociationTest(model=str(sense_file), senses="average", targ1=["nurse", "judge"],
                               targ2=["engineer", "mentor"], attr1=["man"], attr2=["woman"]).run()
    assert res.sense.result.effect_size == pytest.approx(res.word_average.effect_size)


def test_bad_items_are_named(sense_file):
    base = dict(targ1=["nurse"], targ2=["engineer"], attr1=["man"], attr2=["woman"])
    with pytest.raises(SenseInputError, match=r"targ1 .*WordNet 3.0 has no sense key 'nurse%1:18:09::'"):
        _run(sense_file, **{**base, "targ1": ["nurse%1:18:09::"]})
    with pytest.raises(SenseInputError, match=r"attr1 .*no lemma 'mman'.*man"):
        _run(sense_file, **{**base, "attr1": ["mman"]})
    with pytest.raises(SenseInputError, match=r"attr2 .* is empty"):
        _run(sense_file, **{**base, "attr2": []})
    with pytest.raises(SenseInputError, match="has no vector for any sense of 'doctor'"):
        _run(sense_file, **{**base, "targ2": ["doctor"]})
    from embias_widgets.models.errors import MissingSenseError

    with pytest.raises(MissingSenseError, match="doctor%1:18:00::"):
        _run(sense_file, **{**base, "targ2": ["doctor%1:18:00::"]})
    with pytest.raises(ValueError, match="senses must be one of"):
        SenseAssociationTest(model=str(sense_file), senses="min")


def test_an_edit_within_a_lemma_reuses_the_word_level_twins(sense_file):
    study = SenseAssociationTest(model=str(sense_file), targ1=["nurse%1:18:00::", "judge"], targ2=["engineer"],
                                 attr1=["man"], attr2=["woman"])
    first = study.run()
    study.set_items("targ1", ["nurse%2:29:00::", "judge"])  # another sense of the same lemma
    second = study.run()
    assert second.word_max is first.word_max and second.word_average is first.word_average
    assert second.sense.result.association_x[0] != first.sense.result.association_x[0]
    study.set_items("targ1", ["mentor", "judge"])  # a new lemma: the twins change
    third = study.run()
    assert third.word_average is not first.word_average
    assert third.word_average.association_x[0] != first.word_average.association_x[0]
