"""Two senses of one lemma in one set are one word at the word level: merged with a note, counted once."""

from __future__ import annotations

import math

import numpy as np
import pytest

from embias_widgets.analysis import SenseAssociationTest
from embias_widgets.analysis.association import MergedItems
from embias_widgets.metrics import sense_weat, weat
from embias_widgets.models.sense_vectors import load_sense_file

LEMMAS = ["nurse", "engineer", "judge", "mentor", "man", "woman", "boy", "girl"]


@pytest.fixture(scope="module")
def sense_file(wn, tmp_path_factory):
    rng = np.random.default_rng(11)
    keys = [s.key for lemma in LEMMAS for s in wn.senses(lemma)]
    path = tmp_path_factory.mktemp("merge") / "lmms.txt"
    path.write_text("".join(k + " " + " ".join(f"{v:.6f}" for v in rng.normal(size=6)) + "\n" for k in keys))
    return path


def _two(wn, lemma):
    return [s.key for s in wn.senses(lemma)[:2]]


def test_two_senses_per_set_no_longer_give_sqrt3(wn, sense_file):
    """The reported bug: one lemma per target set, two of its senses each: d was +-sqrt(3) whatever the vectors."""
    res = SenseAssociationTest(targ1=_two(wn, "nurse"), targ2=_two(wn, "judge"), attr1=["man%1:18:00::"],
                               attr2=["woman%1:18:00::"], model=str(sense_file), seed=0).run()
    d = res.word_average.effect_size
    assert d is None or not math.isclose(abs(d), math.sqrt(3), rel_tol=1e-6)
    # counted once: one word per target set, two words in all (the permutation test has 2 splits)
    assert res.word_average.association_x.shape == (1,) and res.word_average.association_y.shape == (1,)
    assert res.sense.result.association_x.shape == (2,)  # the sense level keeps both senses


def test_word_level_equals_the_core_on_one_vector_per_lemma(wn, sense_file):
    x_items = [*_two(wn, "nurse"), "engineer%1:18:00::"]
    y_items = ["judge", *_two(wn, "mentor")[:1], "judge%1:18:00::"]  # a lemma item and a sense of it
    a_items, b_items = [*_two(wn, "man"), "boy"], ["woman%1:18:00::", "girl"]
    res = SenseAssociationTest(targ1=x_items, targ2=y_items, attr1=a_items, attr2=b_items,
                               model=str(sense_file), seed=0).run()
    vecs = load_sense_file(sense_file)
    words = {"targ1": ["nurse", "engineer"], "targ2": ["judge", "mentor"], "attr1": ["man", "boy"],
             "attr2": ["woman", "girl"]}
    X, Y, A, B = (vecs.word_vectors(words[k]) for k in ("targ1", "targ2", "attr1", "attr2"))
    plain = weat(X, Y, A, B, variant="max", rng=0)
    assert res.word_average.effect_size == pytest.approx(plain.effect_size)
    assert res.word_average.pvalue == pytest.approx(plain.pvalue)
    groups = [[vecs.vectors(vecs.keys_of(w)) for w in words[k]] for k in ("targ1", "targ2", "attr1", "attr2")]
    direct = sense_weat(*groups, rng=0)
    assert res.word_max.result.effect_size == pytest.approx(direct.result.effect_size)
    # the merge is recorded with the same mechanism as word WEAT, and said in the notes
    assert MergedItems("targ1", x_items[0], (x_items[1],)) in res.merged
    assert MergedItems("targ2", "judge", ("judge%1:18:00::",)) in res.merged
    assert MergedItems("attr1", a_items[0], (a_items[1],)) in res.merged and len(res.merged) == 3
    assert any(n.startswith("word level: targ2: 'judge%1:18:00::' and 'judge' are one item") for n in res.notes)
    assert res.to_dict()["merged"][0] == {"set": "targ1", "item": x_items[0], "same_as": [x_items[1]]}
    frame = res.frame()
    assert (frame["level"] == "sense").sum() == 6 and (frame["level"] == "word_average").sum() == 4
    word_rows = frame[frame["level"] == "word_max"]
    assert list(word_rows["lemma"]) == ["nurse", "engineer", "judge", "mentor"]
    np.testing.assert_allclose(word_rows["association"], np.concatenate([direct.result.association_x,
                                                                         direct.result.association_y]))
    assert all(word_rows["target_sense_vs_attr1"].str.contains("%"))  # winners index the merged items


def test_nothing_merged_when_every_lemma_is_once(wn, sense_file):
    res = SenseAssociationTest(targ1=["nurse"], targ2=["engineer"], attr1=["man"], attr2=["woman"],
                               model=str(sense_file), seed=0).run()
    assert res.merged == () and not any(n.startswith("word level:") for n in res.notes)
    assert res.level_items("word_average") == res.items
