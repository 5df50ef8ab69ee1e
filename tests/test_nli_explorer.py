"""NliExplorer (Python side): a front-end edit (set_state) recomputes the traits from
NliProbe and the model; checked against the analysis and the model called directly."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from _tiny_lm import one_thread

from embias_widgets.analysis.nli import NliProbe
from embias_widgets.models.nli_classifiers import LABELS, load_nli_model
from embias_widgets.widgets.nli_explorer import NliExplorer


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Iterator[None]:
    yield from one_thread()


@pytest.fixture(scope="module")
def explorer() -> NliExplorer:
    return NliExplorer("gender-occupation", n_premise_words=3, n_templates=4)


def test_run_draws_what_the_probe_computes(explorer: NliExplorer) -> None:
    source = explorer.subset()
    assert explorer.size["n_pairs"] == len(source) == 3 * 6 * 4
    assert explorer.size["whole_pairs"] == 162 * 6 * 1968
    assert explorer.progress == {**explorer.progress, "n_scored": 72, "n_pairs": 72, "done": True}
    expected = NliProbe(source, explorer.classifier).run()
    for level in ("pairs", "word_pairs"):
        for key, value in expected.scores().to_dict()[level].items():
            assert explorer.scores[level][key] == pytest.approx(value, abs=1e-6)  # float32 head: rows per call differ
    for level, measures in expected.levels_dict().items():  # each measure's interval beside it, and the level's n
        assert explorer.scores[level]["n"] == measures["n"]
        for key, iv in ((k, v) for k, v in measures.items() if k.endswith("_interval")):
            shown = explorer.scores[level][key]
            assert (shown is None) == (iv is None), key
            if iv is not None:
                assert (shown["low"], shown["high"]) == pytest.approx((iv["low"], iv["high"]), abs=1e-5), key
                assert shown["level"] == iv["level"] == 0.95 and shown["method"] == iv["method"]
    table = expected.word_pairs_table()
    hm = explorer.heatmap
    assert hm["premise_words"] == list(source.premise_words) and hm["label"] == "neutral"
    i = hm["premise_words"].index(table["premise_word"][4])
    j = hm["hypothesis_words"].index(table["hypothesis_word"][4])
    assert hm["values"][i][j] == pytest.approx(table["neutral"][4], abs=1e-6)
    assert explorer.demo_note.startswith("DEMO")
    top = expected.top_pairs("entailment")
    assert [r["premise"] for r in explorer.top["entailment"]] == list(top["premise"])


def test_label_and_cell_from_the_front_end(explorer: NliExplorer) -> None:
    explorer.set_state({"label": "contradiction"})
    source = explorer.subset()
    p, w = source.premise_words[1], source.hypothesis_words[2]
    explorer.set_state({"cell": [p, w]})
    rows = explorer.cell_pairs
    assert len(rows) == 4
    P = explorer.classifier.predict([r["premise"] for r in rows], [r["hypothesis"] for r in rows])
    np.testing.assert_allclose([[r[label] for label in LABELS] for r in rows], P, atol=1e-6)
    i, j = explorer.heatmap["premise_words"].index(p), explorer.heatmap["hypothesis_words"].index(w)
    assert explorer.heatmap["values"][i][j] == pytest.approx(P[:, 2].mean(), abs=1e-6)


def test_typed_pair_is_scored_by_the_model(explorer: NliExplorer) -> None:
    explorer.set_state({"premise_text": "The nurse bought a car.", "hypothesis_text": "<b>The woman</b> bought a car."})
    model = load_nli_model("embias-demo-nli")
    expected = model.predict(["The nurse bought a car."], ["<b>The woman</b> bought a car."])[0]
    assert [explorer.typed[label] for label in LABELS] == pytest.approx(list(expected), abs=1e-6)
    assert sum(explorer.typed[label] for label in LABELS) == pytest.approx(1.0)
    explorer.set_state({"hypothesis_text": "  "})
    assert explorer.typed == {}


def test_partial_results_arrive_per_premise_word() -> None:
    seen = []
    w = NliExplorer(n_premise_words=2, n_templates=2, autorun=False)
    w.observe(lambda change: seen.append(change["new"]["n_scored"]), names="progress")
    w.set_state({"run_requests": 1})  # the Run button: scored in a background thread (the kernel stays free)
    w.wait(120)
    assert [n for n in seen if n] == [12, 24, 24]  # one premise word per chunk, then the final result
    assert w.progress["done"]


def test_bad_input_reaches_the_error_trait() -> None:
    w = NliExplorer(n_premise_words=1, n_templates=1, autorun=False)
    w.set_state({"probe": "no-such-probe"})
    assert "unknown probe" in w.error


@pytest.mark.parametrize("change", [{"probe": "religion-polarity"}, {"n_templates": 1}, {"premise_words": ["nurse"]}])
def test_a_change_during_a_run_leaves_the_old_numbers_stale(change: dict) -> None:
    """Start a gender-occupation run and pick another probe (or subset) after its first chunk, as the front end
    does while the run goes on: the run ends after the chunk in progress, and what stays drawn (gender-occupation's
    numbers) is marked stale, at the end of the run too, until Run scores what is now asked."""
    w = NliExplorer("gender-occupation", n_premise_words=3, n_templates=2, autorun=False)
    old_words = list(w.subset().premise_words)
    drawn, on_chunk = [], w._on_chunk

    def first_chunk_then_edit(*args: object) -> None:
        on_chunk(*args)
        drawn.append((w.result.n_scored, w.stale))
        if len(drawn) == 1:
            w.set_state(change)  # a front-end edit, arriving between two chunks

    w._on_chunk = first_chunk_then_edit
    result = w.run()
    assert drawn == [(12, False)]  # current while it was what was asked; the run stopped after that chunk
    assert result.n_scored == 12 < result.n_pairs == 36 and w.progress["stopped"]
    assert list(w.heatmap["premise_words"]) == old_words  # still the old subset's grid, drawn as stale
    assert w.stale is True and w.error == ""
    w._on_chunk = on_chunk
    w.run()  # Run: what is asked now, current again
    assert w.stale is False and w.progress["done"] and not w.progress["stopped"]
    assert list(w.heatmap["premise_words"]) == list(w.subset().premise_words)
    assert w.result.n_pairs == len(w.subset())
