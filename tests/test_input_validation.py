"""Never a silent wrong result (issue 13, class 2): the analysis layer and the widgets.

Each test puts bad input in and checks for a named error or the right number out.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from embias_widgets.analysis import AssociationInputError, AssociationTest
from embias_widgets.models import StaticVectors
from embias_widgets.widgets import WeatExplorer, WordSetEditor

WORDS = ["rose", "tulip", "daisy", "ant", "wasp", "moth", "love", "peace", "joy", "hate", "war", "pain", "lily"]


def toy_vectors(**kwargs) -> StaticVectors:
    rng = np.random.default_rng(7)
    return StaticVectors(WORDS, rng.normal(size=(len(WORDS), 6)), name="toy", **kwargs)


SETS = {
    "targ1": ["rose", "tulip", "daisy"],
    "targ2": ["ant", "wasp", "moth"],
    "attr1": ["love", "peace", "joy"],
    "attr2": ["hate", "war", "pain"],
}


def make(**overrides) -> AssociationTest:
    sets = {**SETS, **{k: v for k, v in overrides.items() if k in SETS}}
    options = {k: v for k, v in overrides.items() if k not in SETS}
    return AssociationTest(model=options.pop("model", toy_vectors()), **sets, **options)


# -- sets: strings and non-strings -------------------------------------------------------------
def test_a_set_given_as_a_string_is_an_error_not_letters() -> None:
    with pytest.raises(AssociationInputError, match=r"targ1 \(X\) is the string 'rose', not a set: give a list"):
        make(targ1="rose")
    test = make()
    with pytest.raises(AssociationInputError, match=r"attr2 .* is the string"):
        test.set_items("attr2", "hate war")
    assert test.spec.attr2.examples == ("hate", "war", "pain")  # left as it was
    assert test.run().counts()["num_attr2"] == 3


@pytest.mark.parametrize("bad", [None, 3, 2.5, {"word": "rose"}, ["rose"]])
def test_non_string_items_are_errors_naming_set_and_position(bad: object) -> None:
    with pytest.raises(AssociationInputError, match=rf"targ2 \(Y\) item 1 is {type(bad).__name__} .*not a string"):
        make(targ2=["ant", bad, "moth"])


# -- vectors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_vector_is_an_error_naming_the_word(bad: float) -> None:
    vectors = toy_vectors()
    vectors.vectors[WORDS.index("wasp"), 2] = bad
    with pytest.raises(AssociationInputError, match=r"targ2: the model's vector for 'wasp' holds NaN or an infinite"):
        make(model=vectors).run()


# -- one item per model vector -------------------------------------------------------------------
def test_case_variants_under_a_lowercasing_model_are_merged_with_a_note() -> None:
    test = make(targ1=["rose", "Rose", "ROSE", "tulip", "daisy"], model=toy_vectors(lowercase=True))
    result = test.run()
    plain = make().run()
    assert result.counts()["num_targ1"] == 3
    assert result.items["targ1"] == ("rose", "tulip", "daisy")
    assert result.effect_size == pytest.approx(plain.effect_size)  # counted once, not three times
    assert result.pvalue == pytest.approx(plain.pvalue)
    (merged,) = result.merged
    assert (merged.set, merged.item, merged.same_as) == ("targ1", "rose", ("Rose", "ROSE"))
    assert any("'Rose', 'ROSE' and 'rose' are one item to the model" in n for n in result.notes)
    record = result.to_dict()
    assert record["merged"] == [{"set": "targ1", "item": "rose", "same_as": ["Rose", "ROSE"]}]
    json.dumps(record)


def test_a_cased_model_keeps_case_variants_apart() -> None:
    words = [*WORDS, "Rose"]
    vectors = StaticVectors(words, np.random.default_rng(3).normal(size=(len(words), 6)), lowercase=False)
    result = make(targ1=["rose", "Rose", "tulip"], model=vectors).run()
    assert result.merged == ()
    assert result.counts()["num_targ1"] == 3


# -- options -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("ddof", 2, "`ddof` must be 0"),
        ("ddof", "1", "`ddof` must be 0"),
        ("n_samples", 0, "`n_samples`"),
        ("n_samples", 1e5, "`n_samples`"),
        ("seed", -3, "`seed`"),
        ("seed", "a", "`seed`"),
        ("alternative", "up", "`alternative`"),
        ("variant", "median", "`variant`"),
        ("method", None, "`method`"),
    ],
)
def test_options_are_checked_on_entry_and_a_rejected_one_leaves_the_test_usable(
    option: str, value: object, match: str
) -> None:
    with pytest.raises(AssociationInputError, match=match):
        make(**{option: value})
    test = make()
    before = test.run()
    with pytest.raises(AssociationInputError, match=match):
        test.set_options(**{option: value, "ddof": 0} if option != "ddof" else {option: value})
    assert test.options["ddof"] == 1  # nothing applied, not even the valid one
    after = test.run()
    assert (after.effect_size, after.pvalue) == (before.effect_size, before.pvalue)
    test.set_options(ddof=0)
    assert test.run().core.ddof == 0


# -- degenerate results say so --------------------------------------------------------------------
def test_one_item_per_target_set_cites_proposition_2() -> None:
    result = make(targ1=["rose"], targ2=["ant"]).run()
    assert abs(result.effect_size) == pytest.approx(np.sqrt(2))  # whatever the words
    assert any("Ethayarajh et al. 2019, proposition 2" in n for n in result.notes)
    assert not any("proposition 2" in n for n in make().run().notes)


def test_a_word_in_both_target_sets_is_named() -> None:
    result = make(targ2=["ant", "wasp", "rose"]).run()
    assert any("'rose' in both target sets (targ1 and targ2)" in n for n in result.notes)
    lowered = make(targ2=["ant", "wasp", "Rose"], model=toy_vectors(lowercase=True)).run()
    assert any("'rose'/'Rose' in both target sets" in n for n in lowered.notes)


def test_capped_exact_enumeration_is_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    from embias_widgets.metrics import permutation

    monkeypatch.setattr(permutation, "MAX_EXACT_SPLITS", 10)
    result = make(n_samples=1000).run()  # C(6, 3) = 20 splits, more than the cap of 10
    assert result.core.method == "sampled"
    assert any("C(6, 3) = 20 splits is more than exact enumeration's cap of 10" in n for n in result.notes)


# -- widgets ---------------------------------------------------------------------------------------
def test_editor_setting_one_key_leaves_the_other_sets_alone() -> None:
    editor = WordSetEditor(make().spec)
    before = dict(editor.sets)
    editor.sets = {"targ1": {"category": "Flowers", "examples": ["lily"]}}
    assert editor.sets["targ1"]["examples"] == ["lily"]
    for key in ("targ2", "attr1", "attr2"):
        assert editor.sets[key] == before[key]


@pytest.mark.parametrize("bad", [None, 3, {"w": 1}])
def test_editor_rejects_items_that_are_not_strings(bad: object) -> None:
    import traitlets

    editor = WordSetEditor(make().spec)
    with pytest.raises(traitlets.TraitError, match="not a string"):
        editor.sets = {"targ1": {"category": "x", "examples": ["rose", bad]}}
    with pytest.raises(traitlets.TraitError, match="must be a list of strings"):
        editor.sets = {"targ1": {"category": "x", "examples": "rose"}}
    assert editor.sets["targ1"]["examples"] == ["rose", "tulip", "daisy"]


def test_explorer_shows_any_failure_and_marks_the_old_result_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    explorer = WeatExplorer(make())
    assert explorer.bars.stale is False and explorer.result is not None
    old_d = explorer.bars.effect_size

    def broken(**_: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(explorer.analysis, "run", broken)
    sets = json.loads(json.dumps(explorer.editor.sets))
    sets["targ1"]["examples"].append("lily")
    explorer.editor.set_state({"sets": sets})
    assert "RuntimeError: disk on fire (an internal error: please report it)" in explorer.editor.error
    assert explorer.bars.error.startswith("Not computed: RuntimeError")
    assert explorer.bars.stale is True  # the d still drawn belongs to the old words
    assert explorer.bars.effect_size == old_d
    assert explorer.result is None
    monkeypatch.undo()
    explorer.refresh()
    assert explorer.bars.stale is False and explorer.bars.error == ""
    assert explorer.result.items["targ1"][-1] == "lily"


def test_explorer_input_error_also_marks_stale() -> None:
    explorer = WeatExplorer(make())
    sets = json.loads(json.dumps(explorer.editor.sets))
    sets["targ2"]["examples"] = ["zzzz"]
    explorer.editor.set_state({"sets": sets})
    assert "no item is in the model's vocabulary" in explorer.editor.error
    assert explorer.bars.stale is True
    assert explorer.result is None


# -- degenerate results of the other studies ------------------------------------------------------
def test_identical_pair_sentences_are_noted() -> None:
    from _tiny_lm import tiny_scorer

    from embias_widgets.analysis import PairedLikelihood

    result = PairedLikelihood([("She cooks.", "She  cooks.", "g"), ("She cooks.", "He cooks.", "g")],
                              model=tiny_scorer()).run()
    assert result.rows[0].scores.difference == 0
    assert any("1 pair(s) have two identical sentences" in n for n in result.notes)


def test_mirrored_relation_pairs_are_noted() -> None:
    from embias_widgets.analysis import RelationProjection

    vectors = toy_vectors()
    result = RelationProjection([("rose", "ant"), ("ant", "rose"), ("tulip", "wasp")], ["joy"], model=vectors).run()
    assert any("('ant', 'rose') also given in the other order" in n for n in result.notes)
    plain = RelationProjection([("rose", "ant"), ("tulip", "wasp")], ["joy"], model=vectors).run()
    assert not any("other order" in n for n in plain.notes)


def test_cbow_sentence_with_an_oov_slot_word_is_noted() -> None:
    from embias_widgets.analysis import SentenceAssociationTest
    from embias_widgets.models import load_model

    test = SentenceAssociationTest("sent-weat1", model=load_model("glove-6b-50d"), n_samples=1000)
    test.set_items("targ1", [*test.spec.targ1.examples, "zzqxw"])
    result = test.run()
    (note,) = [n for n in result.notes if n.startswith("CBoW: slot word(s)")]
    assert "'zzqxw'" in note and "the same vector for every such word" in note
    # and its sentences are one item with those of the other OOV word (same vector), said too
    assert any("'This is a zzqxw.' and 'This is a gladiola.' are one item" in n for n in result.notes)


def test_a_sentence_seen_only_as_unknown_tokens_is_noted() -> None:
    from embias_widgets.models import load_model

    encoder = load_model("all-MiniLM-L6-v2")
    enc = encoder.encode(["\u0b85\u0b86\u0b87", "This is a rose."])
    notes = dict(enc.item_notes)
    assert "only as unknown tokens ([UNK])" in notes["\u0b85\u0b86\u0b87"]
    assert "This is a rose." not in notes
