"""Issue 18 (part 2): SEAT per word, the NLI explorer's premise words, Stop and heatmap inputs, relation
labels that do not crowd, charts set up once (offline, themed), and one busy trait for every widget.

Every number is checked against a re-implementation (pandas group-by, numpy's seeded sampler, interval
overlap by hand); nothing downloads (the SEAT test uses the bundled GloVe CBoW baseline, NLI the DEMO model).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from _tiny_lm import one_thread

from embias_widgets.analysis.nli import ProbeSubset
from embias_widgets.analysis.nli.subset import sample_premise_words
from embias_widgets.analysis.relation.labels import label_lanes
from embias_widgets.stimuli.nli_probes import load_probe
from embias_widgets.widgets._base import EmbiasWidget


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Iterator[None]:
    yield from one_thread()


# -- SEAT per word ---------------------------------------------------------------------------------------------
def test_seat_word_groups_are_the_mean_and_spread_of_each_words_sentences() -> None:
    from embias_widgets.widgets import WeatExplorer

    explorer = WeatExplorer("sent-weat6", model="cbow-glove-6b-50d", n_samples=2_000)
    result = explorer.result
    groups = result.word_groups()
    sentences = explorer.analysis.sentences_by_word("targ1")
    frame = result.frame()  # one row per sentence
    word_of = {x: w for key in ("targ1", "targ2") for w, xs in explorer.analysis.sentences_by_word(key).items()
               for x in xs}
    frame["slot"] = frame["word"].map(word_of)
    expected = frame.groupby(["set", "slot"], sort=False)["association"].agg(["mean", "std", "min", "max", "count"])
    assert len(groups) == len(expected) == len(explorer.analysis.spec.targ1.examples) + len(
        explorer.analysis.spec.targ2.examples)
    for g in groups:
        row = expected.loc[(g["set"], g["word"])]
        assert g["n"] == row["count"] and g["mean"] == pytest.approx(row["mean"], abs=1e-12)
        assert g["sd"] == pytest.approx(0.0 if row["count"] == 1 else row["std"], abs=1e-12)
        assert (g["min"], g["max"]) == pytest.approx((row["min"], row["max"]))
    john = next(g for g in groups if g["word"] == "John")
    kept = [x for x in result.items["targ1"] if word_of[x] == "John"]  # sentences the model merged count once
    assert [x["sentence"] for x in john["sentences"]] == kept and set(kept) <= set(sentences["John"])
    assert explorer.bars.word_groups == groups  # what the bars draw is the result's
    assert list(result.word_group_frame().columns) == ["set", "category", "word", "n", "mean", "sd", "min", "max"]


def test_weat_has_no_word_groups(glove) -> None:
    from embias_widgets.analysis import AssociationTest

    result = AssociationTest("weat1", model=glove, n_samples=1_000).run()
    assert result.item_words is None and result.word_groups() == [] and result.word_group_frame().empty


# -- NLI: premise words, Stop ------------------------------------------------------------------------------------
def test_premise_words_are_a_seeded_sample_not_the_first_alphabetically() -> None:
    whole = load_probe("gender-occupation").premise_words
    rng = np.random.default_rng(7)
    expected = [whole[i] for i in sorted(rng.choice(len(whole), size=5, replace=False))]
    assert sample_premise_words(whole, 5, seed=7) == expected
    subset = ProbeSubset.of("gender-occupation", n_premise_words=5, n_templates=2, seed=7)
    assert list(subset.source.premise_words) == expected != list(whole[:5])
    assert sample_premise_words(whole, 5, seed=8) != expected
    picked = ProbeSubset.of("gender-occupation", n_premise_words=5, n_templates=2, premise_words=["nurse", "baker"])
    assert list(picked.source.premise_words) == ["nurse", "baker"]
    with pytest.raises(ValueError, match="'nurze' is not in the gender-occupation probe; close matches: nurse"):
        ProbeSubset.of("gender-occupation", n_premise_words=5, n_templates=2, premise_words=["nurze"])


def test_explorer_scores_the_picked_words_and_refuses_unknown_ones() -> None:
    from embias_widgets.widgets import NliExplorer

    w = NliExplorer(n_premise_words=2, n_templates=1, autorun=False)
    assert "nurse" in w.premise_choices and len(w.premise_choices) == 162
    w.set_state({"premise_words": ["nurse"]})
    assert w.size["premise_words"] == 1
    w.run()
    assert w.heatmap["premise_words"] == ["nurse"]
    w.set_state({"premise_words": ["nurse", "nurze"]})
    assert w.premise_words == ["nurse"] and "close matches: nurse" in w.error and w.stale


def test_refused_premise_word_offers_its_close_matches_and_choosing_one_clears_them() -> None:
    import difflib

    from embias_widgets.widgets import NliExplorer

    w = NliExplorer(premise_words=["baker"], n_templates=1, autorun=False)
    assert w.premise_suggestions == {}
    w.set_state({"premise_words": ["baker", "nurze"]})
    whole = load_probe("gender-occupation").premise_words
    expected = difflib.get_close_matches("nurze", whole, n=5, cutoff=0.6)  # the matching, re-done here
    assert "nurse" in expected and w.premise_suggestions == {"nurze": expected}
    assert w.premise_words == ["baker"] and "close matches: nurse" in w.error
    # what the front end's "nurse" button sends: the refused words with nurze replaced by nurse
    w.set_state({"premise_words": ["baker", "nurse"]})
    assert w.premise_suggestions == {} and w.refused == {} and w.error == ""
    assert w.premise_words == ["baker", "nurse"] and w.size["premise_words"] == 2
    # a word with no close match is listed with none; several refused words each get their own
    w.set_state({"premise_words": ["qqqqq", "bakr"]})
    assert w.premise_suggestions == {"qqqqq": [], "bakr": difflib.get_close_matches("bakr", whole, n=5, cutoff=0.6)}
    assert "baker" in w.premise_suggestions["bakr"]


def test_stop_ends_a_background_run_after_the_chunk_in_progress_and_keeps_it() -> None:
    from embias_widgets.widgets import NliExplorer

    w = NliExplorer(n_premise_words=12, n_templates=4, autorun=False)
    chunk = w.size["hypothesis_words"] * w.size["templates"]
    first_chunk = []
    w.observe(lambda c: first_chunk.append(c["new"]["n_scored"]) if c["new"].get("n_scored") else None, "progress")
    w.set_state({"run_requests": 1})
    deadline = time.monotonic() + 60
    while not first_chunk and time.monotonic() < deadline:
        time.sleep(0.01)
    w.set_state({"label": "entailment"})  # the kernel takes other edits while the probe runs
    assert w.label == "entailment"
    w.set_state({"stop_requests": 1})
    w.wait(60)
    assert not w.busy and w.progress["done"] and w.progress["stopped"]
    assert 0 < w.progress["n_scored"] < w.size["n_pairs"] and w.progress["n_scored"] % chunk == 0
    assert w.result is not None and not w.result.complete
    assert w.stop_ms is not None and w.stop_ms < 30_000


# -- relation labels -----------------------------------------------------------------------------------------------
def test_relation_labels_never_overlap_in_a_lane_and_favour_large_ripa() -> None:
    words = ["himself", "guy", "he", "his", "man", "boy", "father", "king", "queen", "she"]
    ripa = [0.50, 0.51, 0.52, 0.53, 0.49, 0.48, 0.30, 0.10, -0.6, -0.62]
    points = [{"word": w, "group": "g", "ripa": r} for w, r in zip(words, ripa, strict=True)]
    lanes = label_lanes(points, top_k=6, width_px=560)
    per_px = (max(ripa) - min(ripa)) / 560
    spans = {}
    for p, lane in zip(points, lanes, strict=True):
        if lane is None:
            continue
        half = (len(p["word"]) * 6.0 + 4.0) / 2 * per_px
        for lo, hi in spans.get(lane, []):
            assert p["ripa"] + half <= lo or p["ripa"] - half >= hi, f"{p['word']} overlaps in lane {lane}"
        spans.setdefault(lane, []).append((p["ripa"] - half, p["ripa"] + half))
    assert sum(lane is not None for lane in lanes) <= 6
    assert lanes[words.index("she")] is not None  # the largest |RIPA| is always labelled
    assert any(lane is None for lane in lanes[:6])  # the cluster is not all labelled


# -- charts and busy -----------------------------------------------------------------------------------------------
def test_charts_are_set_up_offline_and_themed() -> None:
    import altair as alt

    from embias_widgets.analysis import charts

    previous = alt.renderers.active, alt.theme.active
    alt.renderers.enable("default")
    alt.theme.enable("default")
    try:
        frame = pd.DataFrame({"word": ["a"], "group": ["g"], "ripa": [0.1]})
        charts.setup_charts()
        assert (alt.renderers.active, alt.theme.active) == ("embias", "embias")
        spec = alt.Chart(frame).mark_point().encode(x="ripa").to_dict()
        assert spec["config"]["background"] == "transparent"
        bundle = alt.renderers.get()(spec)[0]
        assert "application/vnd.jupyter.widget-view+json" in bundle  # altair's widget, not a CDN <script>
        chart_class = charts._chart_class()
        assert chart_class._is_offline and "esm.sh" not in chart_class._esm
        assert "--jp-ui-font-color1" in chart_class._css
        alt.renderers.enable("html")  # a user's choice is kept
        charts.setup_charts()
        assert alt.renderers.active == "html"
    finally:
        alt.renderers.enable(previous[0])
        alt.theme.enable(previous[1])


def test_every_widget_has_the_one_busy_trait() -> None:
    import embias_widgets.widgets as widgets

    classes = [getattr(widgets, n) for n in dir(widgets) if isinstance(getattr(widgets, n), type)]
    embias = [c for c in classes if issubclass(c, EmbiasWidget)]
    assert len(embias) >= 6
    for cls in embias:
        assert cls.class_traits()["busy"] is EmbiasWidget.class_traits()["busy"], cls.__name__
