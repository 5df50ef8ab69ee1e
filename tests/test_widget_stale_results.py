"""Issue 22, section 3: a widget never shows an old result as if it were new.

One rule for every widget (``embias_widgets/widgets/_base.py``): a bad value set from Python raises
``TraitError`` and the previous value stays; a bad value from the front end (``set_state``, what a comm
``update`` message calls) is refused: the trait keeps its previous value, the front end's copy is set
back to it, the refused value and the reason land in the synced ``refused`` and ``error`` traits and
the numbers on screen are marked ``stale``; a failed recompute sets ``error`` and ``stale``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import traitlets
from _tiny_lm import one_thread, tiny_scorer
from _tiny_senses import occupations_spec, write_tiny_lmms

from embias_widgets.models import StaticVectors
from embias_widgets.stimuli import AssociationTestSpec, WordSet
from embias_widgets.widgets import (
    EffectSizeBars,
    NliExplorer,
    PairedLikelihoodTable,
    RelationProjectionWidget,
    SenseSelector,
    SenseWeatExplorer,
    WeatExplorer,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread() -> Iterator[None]:
    yield from one_thread()


@pytest.fixture(scope="module")
def sense_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write_tiny_lmms(tmp_path_factory.mktemp("senses") / "tiny-lmms.txt", seed=3, size=8)


def _weat_spec() -> AssociationTestSpec:
    return AssociationTestSpec(
        "flowers", WordSet("flowers", ("rose", "tulip", "daisy")), WordSet("insects", ("ant", "wasp", "moth")),
        WordSet("pleasant", ("love", "peace", "joy")), WordSet("unpleasant", ("hate", "war", "grief")),
    )


def _toy_vectors() -> StaticVectors:
    words = ["she", "he", "woman", "man", "nurse", "engineer"]
    vectors = np.array([[2, 1], [0, 0], [3, 0], [1, 1], [3, 4], [-1, 7]], dtype=np.float64)
    return StaticVectors(words, vectors, name="toy")


@dataclass
class Case:
    """One widget: where its input lives, a bad and a good value for one input, where its numbers are."""

    make: Callable[[pytest.FixtureRequest], Any]
    target: Callable[[Any], Any]  # the anywidget holding the input trait
    trait: str
    bad: Any
    reason: str  # a piece of the reason the error must give
    numbers: Callable[[Any], list[Any]]  # widgets whose ``stale`` marks the numbers (empty: no numbers)
    break_recompute: Callable[[Any, pytest.MonkeyPatch], None] | None = None
    edit: Callable[[Any], None] | None = None  # a valid edit that triggers the (broken) recompute
    agree: Callable[[Any], None] | None = None  # state, chips and export agree


def _weat(request: pytest.FixtureRequest) -> WeatExplorer:
    return WeatExplorer(_weat_spec(), n_samples=500, seed=1)


def _sense_explorer(request: pytest.FixtureRequest) -> SenseWeatExplorer:
    return SenseWeatExplorer(occupations_spec(), model=request.getfixturevalue("sense_file"), n_samples=500)


def _selector(request: pytest.FixtureRequest) -> SenseSelector:
    return SenseSelector(["nurse%1:18:00::"], wordnet=request.getfixturevalue("wn"))


def _selector_agrees(w: SenseSelector) -> None:
    assert [c["item"] for c in w.chips] == w.selected
    assert [e["item"] for e in json.loads(w.export_text)["selected"]] == w.selected


def _editor_agrees(w: WeatExplorer) -> None:
    assert json.loads(w.editor.export_text) == w.editor.sets
    assert w.editor.sets["targ1"]["examples"] == list(w.analysis.spec.targ1.examples)


def _break(attr: str) -> Callable[[Any, pytest.MonkeyPatch], None]:
    def breaker(w: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("disk on fire")

        monkeypatch.setattr(getattr(w, attr), "run", broken)
    return breaker


def _nli_agrees(w: NliExplorer) -> None:
    assert w.result.source.name == w.probe and w.heatmap["premise_words"] == list(w.result.source.premise_words)


def _add_word(w: WeatExplorer) -> None:
    sets = json.loads(json.dumps(w.editor.sets))
    sets["targ1"]["examples"].append("lily")
    w.editor.set_state({"sets": sets})


CASES = {
    "weat-explorer": Case(
        _weat, lambda w: w.editor, "sets", {"targ1": {"category": "flowers", "examples": ["rose", 5]}}, "not a string",
        lambda w: [w.bars], _break("analysis"), _add_word, _editor_agrees),
    "sense-selector": Case(
        _selector, lambda w: w, "selected", ["nurse%1:18:00::", "nurse%9:99:99::"], "nurse%9:99:99::",
        lambda w: [], agree=_selector_agrees),
    "sense-explorer": Case(
        _sense_explorer, lambda w: w.selectors["targ1"], "selected", ["engineer%1:18:00::", "nurse%1:18:09::"],
        "nurse%1:18:09::", lambda w: [w.sense_bars, w.word_bars], _break("analysis"),
        lambda w: w.selectors["targ1"].set_state({"selected": ["engineer%1:18:00::"]}),
        lambda w: _selector_agrees(w.selectors["targ1"])),
    "nli-explorer": Case(
        lambda r: NliExplorer(n_premise_words=1, n_templates=1), lambda w: w, "probe", "gender-ocupation",
        "unknown probe", lambda w: [w], agree=lambda w: _nli_agrees(w)),
    "relation": Case(
        lambda r: RelationProjectionWidget([("she", "he"), ("woman", "man")], ["nurse", "engineer"],
                                           model=_toy_vectors()),
        lambda w: w, "pairs", [["she", "he"], ["woman"]], "[first, second]", lambda w: [w], _break("analysis"),
        lambda w: w.set_state({"groups": {"words": ["nurse"]}}),
        lambda w: None if w.result.pairs == (("she", "he"), ("woman", "man")) else pytest.fail("pairs drifted")),
    "likelihood-table": Case(
        lambda r: PairedLikelihoodTable([("She is a nurse.", "He is a nurse.", "gender")], model=tiny_scorer()),
        lambda w: w, "metric", "perplexity", "metric must be one of", lambda w: [w], _break("study"),
        lambda w: w.add_pair("Women can not drive.", "Men can not drive.", "gender"),
        lambda w: None if len(w.rows) == len(w.pairs) == len(w.export_pairs()) else pytest.fail("rows drifted")),
    "effect-size-bars": Case(
        lambda r: EffectSizeBars(), lambda w: w, "alpha", 1.5, "between 0 and 1", lambda w: [w]),
}


@pytest.fixture(params=list(CASES))
def case(request: pytest.FixtureRequest) -> tuple[Case, Any]:
    c = CASES[request.param]
    return c, c.make(request)


@pytest.fixture(params=[name for name, c in CASES.items() if c.break_recompute is not None])
def recomputing(request: pytest.FixtureRequest) -> tuple[Case, Any]:
    """The widgets that recompute on an edit (the NLI explorer runs on request: its own tests below)."""
    c = CASES[request.param]
    return c, c.make(request)


def _sent_updates(widget: Any, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(widget, "_send", lambda msg, buffers=None: sent.append(msg))
    return sent


class TestEveryWidget:
    def test_bad_value_from_python_raises_and_keeps_the_state(self, case: tuple[Case, Any]) -> None:
        c, w = case
        target = c.target(w)
        before = json.dumps(getattr(target, c.trait))
        with pytest.raises(traitlets.TraitError) as info:
            setattr(target, c.trait, c.bad)
        assert c.reason in str(info.value)
        assert json.dumps(getattr(target, c.trait)) == before
        if c.agree:
            c.agree(w)

    def test_bad_value_from_the_front_end_is_refused_shown_and_sent_back(
        self, case: tuple[Case, Any], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        c, w = case
        target = c.target(w)
        before = getattr(target, c.trait)
        sent = _sent_updates(target, monkeypatch)
        target.set_state({c.trait: c.bad})  # what a comm "update" message from the front end calls
        assert getattr(target, c.trait) == before
        assert target.refused[c.trait]["value"] == c.bad  # nothing typed is lost
        assert c.reason in target.refused[c.trait]["reason"]
        assert target.error.startswith(f"Refused {c.trait} = ") and c.reason in target.error
        assert target.stale is True
        for bars in c.numbers(w):
            assert bars.stale is True and bars.error
        updates = [m["state"] for m in sent if m.get("method") == "update" and c.trait in m["state"]]
        assert updates and updates[-1][c.trait] == json.loads(json.dumps(before))  # the front end's copy reset
        if c.agree:
            c.agree(w)
        # a valid value (here: the kept one, sent again) fixes the refused input and clears its error
        target.set_state({c.trait: json.loads(json.dumps(before))})
        assert target.refused == {} and target.error == "" and target.stale is False  # back to before
        for bars in c.numbers(w):
            assert bars.stale is False and bars.error == ""  # recomputed (or restored) for what is shown

    def test_failed_recompute_sets_error_and_marks_or_clears_the_numbers(
        self, recomputing: tuple[Case, Any], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        c, w = recomputing
        c.break_recompute(w, monkeypatch)
        c.edit(w)
        assert getattr(w, "result", None) is None
        for bars in c.numbers(w):
            assert bars.stale is True and "disk on fire" in bars.error


# -- the reported cases, one by one ------------------------------------------------------------------------
def test_nli_probe_typo_then_run_never_redraws_a_result_without_naming_the_refusal() -> None:
    w = NliExplorer(n_premise_words=1, n_templates=1)
    w.set_state({"probe": "gender-ocupation"})
    assert w.probe == "gender-occupation" and w.stale and "gender-ocupation" in w.error
    result = w.run()
    assert result is not None and result.source.name == w.probe  # what runs is what the picker shows
    assert "gender-ocupation" in w.refused["probe"]["message"]  # and the refused typo is still shown


def test_nli_zero_premise_words_from_python_is_refused() -> None:
    w = NliExplorer(n_premise_words=1, n_templates=1)
    with pytest.raises(traitlets.TraitError, match="n_premise_words must be at least 1"):
        w.n_premise_words = 0
    assert w.n_premise_words == 1 and w.size["premise_words"] == 1


def test_nli_changed_subset_or_failed_model_marks_the_old_numbers() -> None:
    w = NliExplorer(n_premise_words=1, n_templates=1)
    assert w.stale is False and w.scores
    w.set_state({"n_templates": 2})  # valid, but the numbers drawn are of 1 template until Run
    assert w.stale is True and w.error == ""
    w.run()
    assert w.stale is False
    w.set_state({"model_name": "./no-such-nli-model"})
    assert w.run() is None
    assert w.stale is True and w.error and w.result is None


def test_nli_failed_typed_pair_clears_the_previous_probabilities(monkeypatch: pytest.MonkeyPatch) -> None:
    w = NliExplorer(n_premise_words=1, n_templates=1, autorun=False)
    w.predict("The nurse ate.", "The man ate.")
    assert w.typed

    def broken(*args: Any) -> None:
        raise RuntimeError("tokenizer crashed")

    monkeypatch.setattr(w.classifier, "predict", broken)
    w.set_state({"hypothesis_text": "The woman ate."})
    assert w.typed == {} and "tokenizer crashed" in w.error


def test_refusal_after_a_failed_recompute_keeps_the_failure_once_fixed(monkeypatch: pytest.MonkeyPatch) -> None:
    w = RelationProjectionWidget([("she", "he")], ["nurse"], model=_toy_vectors())
    _break("analysis")(w, monkeypatch)
    w.set_state({"groups": {"words": ["engineer"]}})
    assert w.stale and "disk on fire" in w.error and w.points == []
    w.set_state({"pairs": [["she"]]})
    assert w.error.startswith("Refused pairs")
    w.set_state({"pairs": [["she", "he"]]})  # the refusal is fixed, the failure still stands
    assert w.refused == {} and w.stale and "disk on fire" in w.error


def test_weat_unknown_test_pick_from_the_front_end_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    w = WeatExplorer(_weat_spec(), n_samples=500, seed=1)
    w.editor.test_choices = [["weat1", "WEAT 1"], ["weat2", "WEAT 2"]]
    w.editor.set_state({"test_name": "weat99"})
    assert w.editor.test_name == "" and "weat99" in w.editor.refused["test_name"]["message"]
    assert w.bars.stale is True and w.result is not None  # kept, but marked: the user sees a refused pick


def test_two_traits_in_one_message_only_the_bad_one_is_refused() -> None:
    w = RelationProjectionWidget([("she", "he")], ["nurse"], model=_toy_vectors())
    w.set_state({"pairs": [["she", "he"], ["woman", "man"]], "groups": {"words": "nurse"}})
    assert w.pairs == [["she", "he"], ["woman", "man"]] and w.result.pairs == (("she", "he"), ("woman", "man"))
    assert w.groups == {"words": ["nurse"]} and "groups" in w.refused and "pairs" not in w.refused


@pytest.mark.parametrize("module", ["effect_size_bars", "nli_explorer", "paired_likelihood_table",
                                    "relation_projection", "sense_selector", "word_set_editor"])
def test_every_front_end_shows_error_refused_and_stale(module: str) -> None:
    source = (ROOT / "js" / f"{module}.js").read_text()
    assert ".show(model" in source  # lib/ui.js errorState.show: error + refused inputs as text, data-stale
    for trait in ("error", "refused", "stale"):
        assert f'"{trait}"' in source, f"js/{module}.js does not redraw when {trait} changes"


def test_fixing_a_refusal_after_a_failure_recomputes_and_clears_the_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    w = WeatExplorer(_weat_spec(), n_samples=500, seed=1)
    _break("analysis")(w, monkeypatch)
    _add_word(w)
    assert "disk on fire" in w.editor.error and w.bars.stale
    w.editor.set_state({"sets": {"targ2": {"category": "insects", "examples": [None]}}})
    assert w.editor.error.startswith("Refused sets")
    monkeypatch.undo()
    w.editor.set_state({"sets": json.loads(json.dumps(w.editor.sets))})  # fixed: recomputed, nothing old
    assert w.editor.refused == {} and w.editor.error == "" and w.bars.stale is False
    assert w.result is not None and w.result.items["targ1"][-1] == "lily"
