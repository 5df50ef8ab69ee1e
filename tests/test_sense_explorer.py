"""SenseWeatExplorer model tests: pick senses as the front end would (set_state on a selector) and check
that both bars hold what the analysis computes for the same items, on a small LMMS-format sense file."""

from __future__ import annotations

import pytest
from _tiny_senses import occupations_spec, write_tiny_lmms

from embias_widgets.analysis.senses import SenseAssociationTest
from embias_widgets.formatting import format_value
from embias_widgets.widgets.sense_explorer import SenseWeatExplorer


@pytest.fixture(scope="module")
def sense_file(tmp_path_factory):
    return write_tiny_lmms(tmp_path_factory.mktemp("senses") / "tiny-lmms.txt", seed=7)


def expected(sense_file, **items):
    test = SenseAssociationTest(occupations_spec(), model=sense_file, n_samples=2000)
    for key, value in items.items():
        test.set_items(key, value)
    return test.run()


@pytest.fixture
def explorer(sense_file):
    return SenseWeatExplorer(occupations_spec(), model=sense_file, n_samples=2000)


def test_bars_show_sense_and_word_level_results(explorer, sense_file):
    want = expected(sense_file)
    assert explorer.sense_bars.effect_size == pytest.approx(want.core("sense").effect_size)
    assert explorer.sense_bars.p_value == pytest.approx(want.core("sense").pvalue)
    assert explorer.word_bars.effect_size == pytest.approx(want.core("word_average").effect_size)
    assert explorer.sense_bars.effect_size != pytest.approx(explorer.word_bars.effect_size)
    assert [r["word"] for r in explorer.sense_bars.per_word] == [
        "engineer%1:18:00::", "carpenter%1:18:00::", "nurse%1:18:00::", "secretary%1:18:00::"
    ]
    assert "word_average" not in explorer.word_bars.title and "eq. 7" in explorer.word_bars.title
    d_max = want.core("word_max").effect_size
    assert f"d = {format_value(d_max, 'effect')}" in explorer.word_bars.method_text  # the one formatter, as report.html
    assert explorer.selectors["attr1"].chips[1]["kind"] == "lemma"  # "boy": any sense


def test_picking_another_sense_recomputes_only_the_sense_level(explorer, sense_file):
    before_sense, before_word = explorer.sense_bars.effect_size, explorer.word_bars.effect_size
    picks = ["nurse%2:29:00::", "secretary%1:18:00::"]
    explorer.selectors["targ2"].set_state({"selected": picks})
    want = expected(sense_file, targ2=picks)
    assert explorer.sense_bars.effect_size == pytest.approx(want.core("sense").effect_size)
    assert explorer.sense_bars.effect_size != pytest.approx(before_sense)
    # the word level sees lemmas only: noun or verb nurse is the same eq. 7 vector
    assert explorer.word_bars.effect_size == pytest.approx(before_word)
    assert explorer.sense_bars.per_word[2]["word"] == "nurse%2:29:00::"
    assert explorer.word_bars.per_word[2]["word"] == "nurse"  # the word level sees the lemma


def test_a_lemma_chip_takes_the_max_over_its_senses(explorer, sense_file):
    explorer.selectors["targ2"].set_state({"selected": ["nurse", "secretary%1:18:00::"]})
    want = expected(sense_file, targ2=["nurse", "secretary%1:18:00::"])
    assert explorer.sense_bars.effect_size == pytest.approx(want.core("sense").effect_size)
    row = explorer.sense_bars.per_word[2]
    assert row["word"] == "nurse"
    sense_rows = want.frame()
    assert row["association"] == pytest.approx(
        sense_rows[(sense_rows.level == "sense") & (sense_rows["item"] == "nurse")]["association"].item()
    )


def test_empty_set_is_an_error_and_picks_are_kept(explorer):
    d = explorer.sense_bars.effect_size
    explorer.selectors["targ1"].set_state({"selected": []})
    assert "targ1" in explorer.sense_bars.error and "empty" in explorer.sense_bars.error
    assert explorer.word_bars.error == explorer.sense_bars.error
    assert explorer.sense_bars.stale and explorer.word_bars.stale and not explorer.sense_bars.busy
    assert explorer.result is None
    assert explorer.selectors["targ2"].selected == ["nurse%1:18:00::", "secretary%1:18:00::"]
    explorer.selectors["targ1"].set_state({"selected": ["engineer%1:18:00::", "carpenter%1:18:00::"]})
    assert explorer.sense_bars.error == "" and explorer.sense_bars.effect_size == pytest.approx(d)
    assert not explorer.sense_bars.stale


def test_a_key_the_sense_file_lacks_is_named(explorer):
    explorer.selectors["targ1"].set_state({"selected": ["engineer%1:18:00::", "plumber%1:18:00::"]})
    assert "plumber%1:18:00::" in explorer.sense_bars.error
