"""Widget model tests: edit as the front end would (set_state), check what Python recomputed."""

import json

import numpy as np
import pytest

from embias_widgets.analysis import AssociationTest
from embias_widgets.widgets import EffectSizeBars, WeatExplorer, WordSetEditor


def edited(sets, key, examples):
    new = json.loads(json.dumps(sets))
    new[key]["examples"] = examples
    return new


@pytest.fixture
def explorer(glove):
    return WeatExplorer("weat6", model=glove)


def test_initial_state(explorer):
    res = AssociationTest("weat6").run()
    assert explorer.bars.effect_size == pytest.approx(res.effect_size)
    assert explorer.bars.p_value == pytest.approx(res.pvalue)
    assert "exact" in explorer.bars.method_text and "12,870" in explorer.bars.method_text
    assert [r["word"] for r in explorer.bars.per_word][:2] == ["John", "Paul"]
    assert explorer.editor.sets["attr1"]["category"] == "Career"


def test_typed_word_recomputes(explorer):
    before = explorer.bars.effect_size
    sets = edited(explorer.editor.sets, "targ2", [*explorer.editor.sets["targ2"]["examples"], "Mary"])
    explorer.editor.set_state({"sets": sets})
    expected = AssociationTest("weat6")
    expected.set_items("targ2", sets["targ2"]["examples"])
    assert explorer.bars.effect_size == pytest.approx(expected.run().effect_size)
    assert explorer.bars.effect_size != before
    assert explorer.bars.per_word[-1]["word"] == "Mary"


def test_oov_is_flagged_with_suggestions_and_kept(explorer):
    sets = edited(explorer.editor.sets, "targ1", [*explorer.editor.sets["targ1"]["examples"], "Jonh"])
    explorer.editor.set_state({"sets": sets})
    assert explorer.editor.sets["targ1"]["examples"][-1] == "Jonh"  # what was typed is kept
    flagged = explorer.editor.oov["targ1"]
    assert flagged[0]["item"] == "Jonh" and "john" in flagged[0]["suggestions"]


def test_empty_set_error_keeps_the_sets(explorer):
    sets = edited(explorer.editor.sets, "attr2", [])
    explorer.editor.set_state({"sets": sets})
    assert "is empty" in explorer.editor.error and "Not computed" in explorer.bars.error
    assert explorer.editor.sets["attr1"]["examples"]  # nothing else lost
    sets = edited(explorer.editor.sets, "attr2", ["home", "family"])
    explorer.editor.set_state({"sets": sets})
    assert explorer.editor.error == "" and explorer.bars.error == ""


def test_rename_category(explorer):
    sets = json.loads(json.dumps(explorer.editor.sets))
    sets["attr1"]["category"] = "Work"
    explorer.editor.set_state({"sets": sets})
    assert explorer.analysis.spec.attr1.category == "Work"
    assert explorer.bars.categories["attr1"] == "Work"


def test_import_and_export():
    editor = WordSetEditor()
    editor.set_state({"import_text": "{not json"})
    assert "Import failed" in editor.error and editor.sets["targ1"]["examples"] == []
    good = {k: {"category": k.upper(), "examples": ["a", "a", "b"]} for k in ("targ1", "targ2", "attr1", "attr2")}
    editor.set_state({"import_text": json.dumps(good)})
    assert editor.error == "" and editor.sets["targ1"]["examples"] == ["a", "b"]
    assert json.loads(editor.export_text)["attr2"]["category"] == "ATTR2"
    assert editor.import_text == ""


def test_user_text_is_data(explorer):
    evil = "<img src=x onerror=alert(1)>"
    sets = edited(explorer.editor.sets, "targ1", [*explorer.editor.sets["targ1"]["examples"], evil])
    explorer.editor.set_state({"sets": sets})
    assert explorer.editor.sets["targ1"]["examples"][-1] == evil
    assert explorer.editor.oov["targ1"][0]["item"] == evil


def test_bars_draw_undefined_effect_size(glove):
    bars = EffectSizeBars()
    res = AssociationTest(targ1=["cat"], targ2=["cat "], attr1=["good"], attr2=["bad"], model=glove).run()
    bars.show(res)
    assert bars.effect_size is None and "undefined" in bars.method_text


def test_front_end_bundles_exist():
    from embias_widgets.widgets._base import STATIC

    for name in ("word_set_editor.js", "effect_size_bars.js"):
        text = (STATIC / name).read_text()
        assert "export" in text and "innerHTML" not in text


def test_sentence_test_in_explorer_regenerates_sentences_from_words():
    explorer = WeatExplorer("sent-weat6", model="cbow-glove-6b-50d", n_samples=2_000)
    assert explorer.editor.sets["targ1"]["examples"][0] == "John"  # the editor shows words
    before = explorer.result.effect_size
    sets = edited(explorer.editor.sets, "targ1", [*explorer.editor.sets["targ1"]["examples"], "Tom"])
    explorer.editor.set_state({"sets": sets})
    assert "This is Tom." in explorer.analysis.sentences("targ1")
    assert explorer.result.effect_size != before


def test_plain_association_test_runs_bundled_sentence_names(glove):
    from embias_widgets.models import load_model

    res = AssociationTest("sent-weat6", model=load_model("cbow-glove-6b-50d"), n_samples=1_000).run()
    assert res.items["targ1"][0] == "This is John."


def test_sampled_test_shows_a_provisional_p_first_then_the_full_p(glove):
    from embias_widgets.metrics.permutation import sampling_block_rows

    shown = []
    explorer = WeatExplorer("weat1", model=glove, n_samples=60_000, sampler="keys")
    original = explorer.bars.show

    def record(result, **kw):
        original(result, **kw)
        shown.append((result, explorer.bars.p_provisional, explorer.bars.method_text, explorer.bars.p_value))

    explorer.bars.show = record
    sets = edited(explorer.editor.sets, "targ1", [*explorer.editor.sets["targ1"]["examples"][:-1], "lotus"])
    explorer.editor.set_state({"sets": sets})
    assert len(shown) == 2
    (first, first_flag, first_text, first_p_shown), (final, final_flag, final_text, final_p) = shown
    n = sum(len(v) for k, v in first.items.items() if k.startswith("targ"))
    block = sampling_block_rows(n)
    assert first_flag and "provisional" in first_text and f"first {block + 1:,} of 60,000" in first_text
    assert first.provisional_of == 60_000 and first.core.n_permutations == block + 1
    assert first_p_shown == first.pvalue
    assert not final_flag and "provisional" not in final_text and final.core.n_permutations == 60_000
    assert first.effect_size == final.effect_size  # d is final from the start
    # The provisional p counts over exactly the first block of the full run's splits (same seed).
    np.testing.assert_array_equal(first.core.null_distribution, final.core.null_distribution[:block])
    reference = AssociationTest("weat1", model=glove, n_samples=60_000, sampler="keys")
    reference.set_items("targ1", sets["targ1"]["examples"])
    assert final_p == reference.run().pvalue
    assert explorer.first_ms <= explorer.elapsed_ms


def test_exact_test_shows_one_final_p(explorer):
    shown = []
    explorer.bars.show = lambda result, **kw: shown.append(result)
    sets = edited(explorer.editor.sets, "targ2", [*explorer.editor.sets["targ2"]["examples"], "Mary"])
    explorer.editor.set_state({"sets": sets})
    assert len(shown) == 1 and shown[0].provisional_of is None and shown[0].core.exact


def test_explorer_pickers_load_a_test_and_a_model(explorer):
    label = "WEAT 1: Flowers vs insects with pleasant vs unpleasant (Caliskan Test 1)"
    assert ["weat1", "weat1 · flowers/insects × (un)pleasant", label] in explorer.editor.test_choices
    assert {"glove-6b-50d", "cbow-glove-6b-50d"} <= {name for name, _ in explorer.editor.model_choices}
    assert explorer.bars.title.startswith("WEAT 6: Male vs female names")
    explorer.editor.set_state({"test_name": "weat1"})
    assert explorer.editor.sets["targ1"]["category"] == "Flowers"
    assert explorer.editor.published == explorer.editor.sets
    assert explorer.bars.effect_size == pytest.approx(AssociationTest("weat1").run().effect_size)
    assert explorer.bars.title.startswith("WEAT 1: Flowers vs insects")
    explorer.editor.set_state({"model_name": "cbow-glove-6b-50d"})
    assert explorer.bars.subtitle == "on cbow-glove-6b-50d" and explorer.bars.model_name == "cbow-glove-6b-50d"
    # one word per item: the CBoW sentence vector is the word vector, so d is unchanged (cosines are scale-free)
    assert explorer.bars.effect_size == pytest.approx(AssociationTest("weat1").run().effect_size)


def test_any_failed_recompute_shows_the_error_and_marks_the_result_stale(explorer, monkeypatch):
    assert explorer.bars.per_word and explorer.bars.effect_size is not None
    revision = explorer.bars.revision

    def broken(**kwargs):
        raise RuntimeError("encoder crashed")

    monkeypatch.setattr(explorer.analysis, "run", broken)
    sets = edited(explorer.editor.sets, "targ2", [*explorer.editor.sets["targ2"]["examples"], "Mary"])
    explorer.editor.set_state({"sets": sets})
    assert "RuntimeError: encoder crashed" in explorer.editor.error
    assert explorer.bars.error.startswith("Not computed: RuntimeError: encoder crashed")
    assert explorer.bars.stale is True  # the front end clears the old d, p and bars from view
    assert explorer.result is None and explorer.bars.revision == revision + 1 and not explorer.bars.busy


def test_a_model_that_cannot_load_is_a_plain_error(explorer):
    explorer.editor.set_state({"model_name": "no-such-model"})
    assert "no-such-model" in explorer.editor.error and "internal error" not in explorer.editor.error
    assert explorer.bars.stale is True


def test_per_word_rows_carry_both_cosine_terms(explorer):
    for row in explorer.bars.per_word:
        assert row["cos_a"] - row["cos_b"] == pytest.approx(row["association"], abs=1e-12)
    res = AssociationTest("weat6", variant="max").run()
    frame = res.frame()
    assert (frame.cos_a - frame.cos_b).to_numpy() == pytest.approx(frame.association.to_numpy(), abs=1e-12)


def test_editor_shows_case_variants_merged_by_the_analysis(explorer):
    sets = edited(explorer.editor.sets, "targ1", [*explorer.editor.sets["targ1"]["examples"], "john"])
    explorer.editor.set_state({"sets": sets})
    assert explorer.editor.sets["targ1"]["examples"][-1] == "john"  # what was typed is kept
    merged = explorer.editor.merged["targ1"]
    assert len(merged) == 1 and {merged[0]["item"], *merged[0]["variants"]} == {"John", "john"}
    kept = explorer.result.items["targ1"]
    assert kept.count("John") + kept.count("john") == 1
