"""How far to trust d, in the widgets (issue 28, section 5; issue 31, item 21): the effect-size bars hold the
result's bootstrap interval (drawn as whiskers), its subset-stability verdict with the rule, and each word's
influence (d without it, the movers marked); the alpha and the correction behind the star are stated; all of it
follows an edit made as the front end makes it (set_state). Leave-one-out d is checked against a direct rerun."""

from __future__ import annotations

import json

import numpy as np
import pytest

from embias_widgets.analysis import AssociationTest
from embias_widgets.widgets import EffectSizeBars, WeatExplorer
from embias_widgets.widgets.effect_size_bars import mark_movers


def with_word(sets: dict, key: str, word: str) -> dict:
    new = json.loads(json.dumps(sets))
    new[key]["examples"].append(word)
    return new


@pytest.fixture
def explorer(glove):
    return WeatExplorer("weat6", model=glove)


def test_bars_hold_the_interval_verdict_and_influence_of_the_result(explorer, glove):
    result = AssociationTest("weat6", model=glove).run()
    bars = explorer.bars
    assert bars.effect_size_interval == result.interval_record()
    low, high = bars.effect_size_interval["low"], bars.effect_size_interval["high"]
    assert low < bars.effect_size < high and bars.effect_size_interval["level"] == 0.95
    assert "resampled" in bars.effect_size_interval["method"] or "drawn with replacement" in \
        bars.effect_size_interval["method"]
    stability = result.stability(alpha=bars.alpha)
    assert bars.stability["verdict"] == stability["verdict"] and bars.stability["rule"] == stability["rule"]
    assert "alpha = 0.01" in bars.stability["rule"]  # one default level: the report's and embias weat's
    records = result.influence(alpha=bars.alpha)
    assert [{k: v for k, v in r.items() if k != "mover"} for r in bars.influence] == records
    assert len(bars.influence) == sum(len(result.items[k]) for k in ("targ1", "targ2", "attr1", "attr2"))
    assert bars.correction == "none (one test)"


def test_leave_one_out_d_equals_a_rerun_without_the_word(explorer, glove):
    for record in [r for r in explorer.bars.influence if r["mover"]][:2]:
        test = AssociationTest("weat6", model=glove)
        test.set_items(record["set"], [w for w in getattr(test.spec, record["set"]).examples if w != record["word"]])
        again = test.run(confidence_interval=False)
        assert record["effect_size_without"] == pytest.approx(again.effect_size, abs=1e-12)
        assert record["p_value_without"] == pytest.approx(again.pvalue, abs=1e-12)


def test_the_movers_are_the_largest_changes_and_every_flip():
    records = [
        {"set": "targ1", "word": w, "effect_size_change": c, "flips_sign": f, "flips_significance": False}
        for w, c, f in [("a", 0.01, False), ("b", -0.30, False), ("c", 0.20, False), ("d", 0.05, False),
                        ("e", 0.002, True), ("f", -0.10, False), ("g", None, False)]
    ]
    marked = {r["word"] for r in mark_movers(records, n=3) if r["mover"]}
    assert marked == {"b", "c", "f", "e"}  # three largest |change|, and e flips the sign


def test_an_edit_redraws_interval_and_influence(explorer, glove):
    before = explorer.bars.influence
    explorer.editor.set_state({"sets": with_word(explorer.editor.sets, "targ2", "Alice")})
    want = AssociationTest("weat6", model=glove)
    want.set_items("targ2", explorer.editor.sets["targ2"]["examples"])
    result = want.run()
    assert explorer.bars.effect_size_interval == result.interval_record()
    assert [r["word"] for r in explorer.bars.influence if r["set"] == "targ2"][-1] == "Alice"
    assert len(explorer.bars.influence) == len(before) + 1
    alice = next(r for r in explorer.bars.influence if r["word"] == "Alice")
    original = AssociationTest("weat6", model=glove).run().effect_size
    assert alice["effect_size_without"] == pytest.approx(original, abs=1e-12)  # without Alice: the published test


def test_alpha_of_the_star_is_the_alpha_of_influence_and_stability(glove):
    explorer = WeatExplorer("weat6", model=glove, alpha=0.0001)
    result = AssociationTest("weat6", model=glove).run()
    assert explorer.bars.significant == (result.pvalue < 0.0001)
    assert "alpha = 0.0001" in explorer.bars.stability["rule"]
    assert [r["flips_significance"] for r in explorer.bars.influence] == \
        [r["flips_significance"] for r in result.influence(alpha=0.0001)]


def test_the_bars_say_in_one_sentence_where_p_and_interval_disagree(glove):
    """weat9 on GloVe: p = 0.023 < 0.05 (the star) while its interval over word choice holds 0: the bars hold
    the result's one sentence and a fragile verdict whose reason it is; at alpha 0.01 they agree (no sentence)."""
    result = AssociationTest("weat9", model=glove).run()
    explorer = WeatExplorer("weat9", model=glove, alpha=0.05)
    story = explorer.bars.stability["story"]
    assert story == result.story(alpha=0.05) == ("significant for these words; the interval over word choice "
                                                 "includes 0")
    assert explorer.bars.significant and explorer.bars.stability["verdict"] == "fragile"
    assert explorer.bars.stability["reason"] == story
    strict = WeatExplorer("weat9", model=glove)  # the default alpha, 0.01
    assert strict.bars.alpha == 0.01
    assert strict.bars.stability["story"] is None and strict.bars.stability["verdict"] == "fragile"


def test_a_failed_recompute_marks_interval_and_influence_stale(explorer):
    sets = json.loads(json.dumps(explorer.editor.sets))
    sets["targ2"]["examples"] = []
    explorer.editor.set_state({"sets": sets})
    assert explorer.bars.stale is True  # the front end draws no d, whiskers or influence while stale
    assert explorer.bars.error.startswith("Not computed")


def test_a_provisional_p_comes_without_influence_then_the_final_with_it(glove):
    shown = []
    explorer = WeatExplorer("weat1", model=glove, n_samples=60_000, sampler="keys")
    original = explorer.bars.show

    def record(result, **kw):
        original(result, **kw)
        shown.append((explorer.bars.p_provisional, len(explorer.bars.influence), dict(explorer.bars.stability),
                      dict(explorer.bars.effect_size_interval)))

    explorer.bars.show = record
    explorer.editor.set_state({"sets": with_word(explorer.editor.sets, "targ1", "lotus")})
    (first_prov, first_n, first_stab, first_ci), (final_prov, final_n, final_stab, final_ci) = shown
    assert first_prov and first_n == 0 and first_stab == {} and first_ci  # d and its interval are final at once
    assert not final_prov and final_n > 0 and final_stab["verdict"] in ("stable", "fragile")
    assert first_ci == final_ci


def test_seat_influence_is_per_word(glove):
    explorer = WeatExplorer("sent-weat6", model="cbow-glove-6b-50d", n_samples=1_000)
    words = {r["word"] for r in explorer.bars.influence if r["set"] == "targ1"}
    assert words == set(explorer.editor.sets["targ1"]["examples"])  # words, not sentences
    assert explorer.bars.effect_size_interval["method"].count("sentences") >= 1


def test_bars_without_a_result_interval_draw_none():
    bars = EffectSizeBars()
    assert bars.effect_size_interval == {} and bars.influence == [] and bars.stability == {}


def test_sense_explorer_draws_each_levels_interval_verdict_and_influence(tmp_path):
    from _tiny_senses import occupations_spec, write_tiny_lmms

    from embias_widgets.analysis.senses import SenseAssociationTest
    from embias_widgets.widgets import SenseWeatExplorer

    model = write_tiny_lmms(tmp_path / "tiny-lmms.txt", seed=7)
    explorer = SenseWeatExplorer(occupations_spec(), model=model, n_samples=2000)
    result = SenseAssociationTest(occupations_spec(), model=model, n_samples=2000).run()
    assert explorer.sense_bars.effect_size_interval == result.interval_record()
    assert explorer.sense_bars.effect_size_interval["level"] == 0.95
    assert explorer.sense_bars.correction == "none (one test)"
    stability = result.stability(alpha=explorer.sense_bars.alpha)
    assert explorer.sense_bars.stability["verdict"] == stability["verdict"]
    assert explorer.sense_bars.stability["rule"] == stability["rule"]
    records = result.influence(alpha=explorer.sense_bars.alpha)
    assert [{k: v for k, v in r.items() if k != "mover"} for r in explorer.sense_bars.influence] == records
    # the word-level panel: its own interval, verdict and influence, from the result's word-level records
    assert explorer.word_bars.effect_size_interval == result.interval_record("word_average")
    assert "lemmas" in explorer.word_bars.effect_size_interval["method"]
    word_stability = result.stability(alpha=explorer.word_bars.alpha, level="word_average")
    assert explorer.word_bars.stability["verdict"] == word_stability["verdict"] in ("stable", "fragile")
    word_records = result.influence(alpha=explorer.word_bars.alpha, level="word_average")
    assert [{k: v for k, v in r.items() if k != "mover"} for r in explorer.word_bars.influence] == word_records


def test_the_word_levels_interval_and_influence_are_of_its_lemma_vectors(tmp_path):
    """The eq. 7 level's records, checked by hand: its cosines are those of each lemma's mean sense vector, d
    from them is the twin's d, its interval the same bootstrap over lemmas, and d without a lemma is WEAT run
    again (the metric core) on the other lemmas' mean vectors."""
    from _tiny_senses import occupations_spec, write_tiny_lmms

    from embias_widgets.analysis.senses import SenseAssociationTest
    from embias_widgets.analysis.senses.resolve import SET_KEYS
    from embias_widgets.metrics import weat
    from embias_widgets.metrics.bootstrap import effect_size_interval_from_cosines

    model = write_tiny_lmms(tmp_path / "tiny-lmms.txt", seed=7)
    study = SenseAssociationTest(occupations_spec(), model=model, n_samples=2000)
    result = study.run()
    lemmas = {k: [r.lemma for r in result.level_items("word_average")[k]] for k in SET_KEYS}
    mean = {lemma: study.model.vectors(keys).mean(axis=0) for lemma, keys in result.lemma_keys.items()}
    X, Y, A, B = (np.vstack([mean[w] for w in lemmas[k]]) for k in SET_KEYS)
    unit = [m / np.linalg.norm(m, axis=1, keepdims=True) for m in (np.vstack([X, Y]), A, B)]
    cos_a, cos_b = unit[0] @ unit[1].T, unit[0] @ unit[2].T
    np.testing.assert_allclose(result.word_cosines[0], cos_a, atol=1e-12)
    np.testing.assert_allclose(result.word_cosines[1], cos_b, atol=1e-12)
    assert weat(X, Y, A, B, variant=study.word_variant, n_samples=10).effect_size == pytest.approx(
        result.core("word_average").effect_size, abs=1e-12)
    want = effect_size_interval_from_cosines(cos_a, cos_b, len(X), variant=study.word_variant, ddof=1,
                                             n_resamples=2_000, confidence_level=0.95, rng=study.seed)
    record = result.interval_record("word_average")
    assert (record["low"], record["high"], record["level"]) == pytest.approx((want.low, want.high, 0.95))
    assert result.to_dict()["word_level"]["word_average"]["effect_size_interval"] == record
    first = lemmas["targ1"][0]
    without = next(r for r in result.influence(level="word_average") if r["set"] == "targ1" and r["word"] == first)
    d = weat(X[1:], Y, A, B, variant=study.word_variant, n_samples=10).effect_size
    assert without["effect_size_without"] == pytest.approx(d, abs=1e-12)


def test_tiny_sets_say_why_no_subset_can_be_significant(glove):
    """A classroom's 3 + 3 words: subsets keep 2 + 2 targets, whose exact p is at least 1/C(4, 2) = 1/6 > 0.05,
    so no subset can be significant; the bars carry why beside the share. The verdict reads the full test and
    the interval, with its reason."""
    from embias_widgets.widgets.effect_size_bars import robustness_of

    result = AssociationTest(targ1=["rose", "tulip", "lily"], targ2=["ant", "wasp", "flea"],
                             attr1=["love", "peace", "joy"], attr2=["hatred", "war", "pain"],
                             model=glove).run()
    stability = robustness_of(result, 0.05)["stability"]
    assert "1/6" in stability["share_significant_note"]
    full_significant = result.pvalue < 0.05  # 3 + 3 words: exact p at least 1/20
    outside = result.interval.low > 0
    assert stability["verdict"] == ("stable" if full_significant and outside else "fragile")
    assert stability["reason"] and (stability["story"] is None) == (full_significant == outside)
