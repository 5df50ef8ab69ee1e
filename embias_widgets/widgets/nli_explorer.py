"""``NliExplorer``: run an NLI bias probe (Dev et al. 2020) on a subset and look inside it.

Pick a probe and a model, the premise words (type or pick them, or take a seeded random sample of
``n_premise_words``) and how many templates to score; the widget runs :class:`~embias_widgets.analysis.nli.NliProbe`
one premise word per chunk and draws the partial result after every chunk, in a background thread ("Stop" ends
the run after the chunk in progress, keeping what was scored; so does another probe, subset or model picked,
the numbers drawn then marked stale): NN, FN and T:tau at both levels,
a heatmap of the mean P(label) of every (premise word, hypothesis word) (or of one template alone), NN and FN per
template, the top sentence pairs by entailment and by contradiction. Click a cell: its sentence pairs with their
(e, n, c). Type a premise and a hypothesis: the model's three probabilities. Every number comes from the analysis
(:mod:`embias_widgets.analysis.nli`); ``js/nli_explorer.js`` only draws.
"""
from __future__ import annotations

import threading
import time
from typing import Any

import traitlets

from ..analysis.nli import (
    DEMO_NOTE,
    LABELS,
    LEVEL_NOTES,
    NliProbe,
    NliProbeResult,
    ProbeSubset,
    available_nli_models,
    available_probes,
    load_nli_model,
    score_pair,
)
from ..analysis.nli.result import heatmap_view
from ..analysis.nli.subset import check_premise_words, unknown_premise_words
from ._base import EmbiasWidget, bundle

MAX_CELL_PAIRS = 200
TYPED_FAILED = "Typed pair not scored: "


def _error_text(err: Exception) -> str:
    if isinstance(err, ValueError | TypeError | KeyError | FileNotFoundError):
        return str(err)
    return f"{type(err).__name__}: {err} (an internal error: please report it)"


class NliExplorer(EmbiasWidget):
    """An NLI bias probe on a subset, drawn as it runs, and a box to try one's own pair.

    Parameters
    ----------
    probe
        ``"gender-occupation"``, ``"nationality-polarity"`` or ``"religion-polarity"``.
    model
        A registered NLI model name (default the offline DEMO ``"embias-demo-nli"``), a hub name or
        directory of a sequence-classification NLI model, or an ``NliClassifier`` object.
    n_premise_words, n_templates
        The subset: ``premise_words`` (or a random sample of ``n_premise_words`` of the probe's premise
        words drawn with ``sample_seed``) x every hypothesis word x ``n_templates`` templates spread evenly
        over the probe's templates.
    premise_words
        Premise words to score (each one of the probe's); empty: the seeded sample.
    autorun
        Run the probe at once (else press "Run" or call :meth:`run`).
    """

    _esm = bundle("nli_explorer.js")
    _css = bundle("nli_explorer.css")

    probe = traitlets.Unicode("gender-occupation").tag(sync=True)
    probes = traitlets.List().tag(sync=True)
    """``[[name, description], ...]`` of the named probes."""
    model_name = traitlets.Unicode("embias-demo-nli").tag(sync=True)
    models = traitlets.List().tag(sync=True)
    """``[[name, description], ...]``: the registered NLI models (and the one given)."""
    n_premise_words = traitlets.Int(8).tag(sync=True)
    """How many premise words the seeded random sample takes (when ``premise_words`` is empty)."""
    premise_words = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """Premise words the user typed or picked (each one of the probe's); empty: a seeded random sample."""
    sample_seed = traitlets.Int(0).tag(sync=True)
    """Seed of the random sample of premise words ("another sample" increments it)."""
    premise_choices = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """Every premise word of the probe (what may be picked)."""
    premise_suggestions = traitlets.Dict().tag(sync=True)
    """``{refused premise word: its close matches}`` while premise words are refused (buttons); else ``{}``."""
    stop_requests = traitlets.Int(0).tag(sync=True)
    """The front end's "Stop" button increments this: a run in progress ends after its current chunk."""
    n_templates = traitlets.Int(12).tag(sync=True)
    label = traitlets.Unicode("neutral").tag(sync=True)
    """Which mean probability the heatmap shows: entailment, neutral or contradiction."""
    template = traitlets.Unicode("").tag(sync=True)
    """The heatmap shows this template alone ("VERB a/an OBJECT"); "" = the mean over the templates scored."""
    templates = traitlets.Dict().tag(sync=True)
    """NN and FN per template, most/least neutral named (``NliProbeResult.templates()``); ``{}`` before a run."""
    run_requests = traitlets.Int(0).tag(sync=True)
    """The front end's "Run" button increments this."""

    size = traitlets.Dict().tag(sync=True)
    """``{n_pairs, whole_pairs, premise_words, hypothesis_words, templates, whole_premise_words, whole_templates}``."""
    progress = traitlets.Dict().tag(sync=True)
    """``{n_scored, n_pairs, seconds, done, stopped}`` while and after a run."""
    scores = traitlets.Dict().tag(sync=True)
    """``{"pairs": {...}, "word_pairs": {...}, "notes": {...}}``: NN, FN, T:tau at both levels."""
    heatmap = traitlets.Dict().tag(sync=True)
    """``{premise_words, hypothesis_words, label, values}``: ``values[i][j]`` mean P(label) or None (not yet run)."""
    top = traitlets.Dict().tag(sync=True)
    """``{"entailment": [rows], "contradiction": [rows]}``: top sentence pairs with their (e, n, c)."""
    cell = traitlets.List(traitlets.Unicode()).tag(sync=True)
    """``[premise word, hypothesis word]`` picked in the heatmap."""
    cell_pairs = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The picked cell's sentence pairs with (e, n, c) (at most 200)."""
    premise_text = traitlets.Unicode("").tag(sync=True)
    hypothesis_text = traitlets.Unicode("").tag(sync=True)
    typed = traitlets.Dict().tag(sync=True)
    """``{premise, hypothesis, entailment, neutral, contradiction, ms}`` for the typed pair, or ``{}``."""
    demo_note = traitlets.Unicode("").tag(sync=True)
    elapsed_ms = traitlets.Float(0.0).tag(sync=True)

    def __init__(
        self,
        probe: str = "gender-occupation",
        model: Any = "embias-demo-nli",
        *,
        n_premise_words: int = 8,
        n_templates: int = 12,
        premise_words: Any = (),
        autorun: bool = True,
        **model_options: Any,
    ) -> None:
        super().__init__()
        self._ready = False
        self.result: NliProbeResult | None = None
        self._source: Any = None
        self._classifiers: dict[str, Any] = {}
        self._model_options = model_options
        self._probe: NliProbe | None = None
        self._stop_asked: float | None = None
        self._asked = 0  # bumped by each change of probe, subset or model: a run's numbers are of the one it began on
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.stop_ms: float | None = None
        """Milliseconds from the last Stop to the end of the run."""
        if not isinstance(model, str):
            self._classifiers[str(model.name)] = load_nli_model(model)
            model = str(model.name)
        nli_models = available_nli_models()
        with self.hold_sync():
            self.probes = [[name, text] for name, text in available_probes().items()]
            self.models = [[name, text] for name, text in nli_models.items()]
            if model not in nli_models:
                self.models = [*self.models, [model, "given model"]]
            self.probe = probe
            self.model_name = model
            self.n_premise_words = n_premise_words
            self.n_templates = n_templates
            self.premise_words = list(premise_words)
        self._ready = True
        self._describe()
        if autorun:
            self.run()

    # -- the model and the subset ---------------------------------------------------------------------
    @property
    def classifier(self) -> Any:
        """The current NLI model (loaded once per name)."""
        name = self.model_name
        if name not in self._classifiers:
            self._classifiers[name] = load_nli_model(name, **self._model_options)
        return self._classifiers[name]

    def subset(self) -> Any:
        """The probe subset this widget scores (a :class:`~embias_widgets.stimuli.nli_probes.TemplateProbe`)."""
        return self._subset_of().source

    def _subset_of(self) -> ProbeSubset:
        return ProbeSubset.of(self.probe, n_premise_words=self.n_premise_words, n_templates=self.n_templates,
                              premise_words=self.premise_words, seed=self.sample_seed)

    def _describe(self) -> None:
        try:
            subset = self._subset_of()
        except Exception as err:  # nothing may run on the previous subset after this
            with self.hold_sync():
                self._source = None
                self.error = _error_text(err)
                self.stale = True
            return
        self._source = subset.source
        with self.hold_sync():
            self.size = subset.size()
            self.premise_choices = list(subset.whole.premise_words)

    # -- the trait boundary (see ``_base``): a bad value is refused and the previous one kept ----------
    @traitlets.validate("probe")
    def _valid_probe(self, proposal: dict) -> str:
        value = proposal["value"]
        if value not in available_probes():
            raise traitlets.TraitError(f"unknown probe {value!r}: choose one of {', '.join(available_probes())}")
        return value

    @traitlets.validate("n_premise_words", "n_templates")
    def _valid_count(self, proposal: dict) -> int:
        name, value = proposal["trait"].name, proposal["value"]
        if value < 1:
            raise traitlets.TraitError(f"{name} must be at least 1, got {value}")
        return value

    @traitlets.validate("template")
    def _valid_template(self, proposal: dict) -> str:
        names = [r["template"] for r in self.templates.get("rows", [])]
        if proposal["value"] and names and proposal["value"] not in names:
            raise traitlets.TraitError(f"template {proposal['value']!r} is not one of this run's {len(names)} "
                                       "templates: pick one from the list, or '' for the mean over all")
        return proposal["value"]

    @traitlets.validate("label")
    def _valid_label(self, proposal: dict) -> str:
        if proposal["value"] not in LABELS:
            raise traitlets.TraitError(f"label must be one of {', '.join(LABELS)}, got {proposal['value']!r}")
        return proposal["value"]

    @traitlets.validate("premise_words")
    def _valid_premise_words(self, proposal: dict) -> list[str]:
        words = [str(w).strip() for w in proposal["value"] if str(w).strip()]
        try:
            check_premise_words(words, self.probe)
        except ValueError as err:
            raise traitlets.TraitError(f"{err}: pick one from the list") from None
        return list(dict.fromkeys(words))

    @traitlets.observe("refused")
    def _refused_changed(self, change: dict) -> None:  # the refused premise words' close matches, or none
        value = change["new"].get("premise_words", {}).get("value")
        words = [str(w).strip() for w in value if str(w).strip()] if isinstance(value, list) else []
        self.premise_suggestions = unknown_premise_words(words, self.probe) if words else {}

    @traitlets.observe("probe", "n_premise_words", "n_templates", "premise_words", "sample_seed")
    def _subset_changed(self, change: dict) -> None:
        if self._ready:
            self._outdated()  # the numbers drawn (and any run going) are of the previous subset until run()
            self._describe()

    def _outdated(self) -> None:  # stale, and a run going ends after its chunk (so that Run starts the new one)
        self._asked += 1
        self.stale = self.result is not None or self._lock.locked()
        self.stop()

    @traitlets.observe("run_requests", "stop_requests")
    def _button_pressed(self, change: dict) -> None:
        if change["name"] == "stop_requests":
            self.stop()
        elif self._ready:
            self.start()

    def start(self) -> threading.Thread | None:
        """Run in a background thread (what the front end's "Run" does): the kernel stays free to take
        "Stop" and other edits; every chunk still redraws. ``None`` when a run is already going."""
        if self._thread is not None and self._thread.is_alive():
            return None
        self._thread = threading.Thread(target=self.run, name="embias-nli-probe", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        """End a running probe after the chunk in progress; the partial result stays drawn (``stopped``)."""
        if self._lock.locked():
            self._stop_asked = time.perf_counter()
            if self._probe is not None:
                self._probe.stop()

    def wait(self, timeout: float | None = None) -> NliProbeResult | None:
        """Wait for a run started by :meth:`start` (or the Run button); returns the result drawn."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.result

    @traitlets.observe("model_name")
    def _model_changed(self, change: dict) -> None:
        if self._ready:
            self._outdated()  # the numbers drawn are of the previous model until run()
            self._score_typed()

    # -- running the probe --------------------------------------------------------------------------------
    def run(self) -> NliProbeResult | None:
        """Score the subset, one premise word per chunk, drawing after each chunk; a :meth:`stop` ends it
        after the chunk in progress. ``None`` when it failed (``error`` says why) or another run is going."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return self._run()
        finally:
            self._probe = None
            self._lock.release()

    def _run(self) -> NliProbeResult | None:
        started = time.perf_counter()
        self._stop_asked = None
        self._describe()
        source, asked = self._source, self._asked
        if source is None:
            return None
        with self.hold_sync():
            self.busy = True
            self.stale = False  # the previous numbers are cleared below: nothing stale is on screen while it scores
            self.error = ""
            self.cell, self.cell_pairs = [], []
            self.progress = {"n_scored": 0, "n_pairs": len(source), "seconds": 0.0, "done": False, "stopped": False}
            self.scores, self.top, self.templates = {}, {}, {}  # the template picked stays (if the run has it)
            self.heatmap = self._heatmap_of(None, source)
        try:
            classifier = self.classifier
            chunk = len(source.hypothesis_words) * len(source.templates)  # one premise word per chunk
            probe = self._probe = NliProbe(source, classifier, chunk_size=chunk, top_k=10)
            result = probe.run(per_pair=True, on_chunk=lambda partial: self._on_chunk(probe, partial, source, asked))
        except Exception as err:  # any failure must reach the user, not a log; partial numbers are stale
            with self.hold_sync():
                self.result = None
                self.error = _error_text(err)
                self.stale = True
                self.busy = False
            return None
        with self.hold_sync():
            self._draw(result, source, done=True, asked=asked)
            self.demo_note = DEMO_NOTE if result.is_demo else ""
            self.elapsed_ms = (time.perf_counter() - started) * 1000
            self.busy = False
        if self._stop_asked is not None:
            self.stop_ms = (time.perf_counter() - self._stop_asked) * 1000
        return result

    def _on_chunk(self, probe: NliProbe, partial: NliProbeResult, source: Any, asked: int) -> None:
        """Draw a finished chunk; a Stop asked meanwhile ends the run before the next one."""
        self._draw(partial, source, done=False, asked=asked)
        if self._stop_asked is not None:
            probe.stop()

    def _draw(self, result: NliProbeResult, source: Any, *, done: bool, asked: int) -> None:
        self.result = result
        with self.hold_sync():
            self.stale = asked != self._asked  # current only while nothing was changed since the run began
            self.progress = {"n_scored": result.n_scored, "n_pairs": result.n_pairs,
                             "seconds": round(result.seconds, 3), "done": done,
                             "stopped": done and result.n_scored < result.n_pairs}
            # each measure with its two-way bootstrap interval and the level's n (200 replicates while running)
            self.scores = {**result.levels_dict(n_resamples=2_000 if done else 200), "notes": dict(LEVEL_NOTES)}
            self.templates = result.templates() if result.n_scored else {}
            self.heatmap = self._heatmap_of(result, source)
            self.top = {by: result.top_records(by) for by in ("entailment", "contradiction")}
            if self.cell:
                self._fill_cell()

    def _heatmap_of(self, result: NliProbeResult | None, source: Any) -> dict[str, Any]:
        return heatmap_view(result, self.label, self.template, source.premise_words, source.hypothesis_words)

    @traitlets.observe("label", "template")
    def _label_changed(self, change: dict) -> None:
        if self._source is not None and self.result is not None:
            self.heatmap = self._heatmap_of(self.result, self.result.source)

    # -- one cell -------------------------------------------------------------------------------------------
    @traitlets.observe("cell")
    def _fill_cell(self, change: dict | None = None) -> None:
        result = self.result
        if len(self.cell) != 2 or result is None:
            self.cell_pairs = []
            return
        try:
            self.cell_pairs = result.cell_pairs(*self.cell, limit=MAX_CELL_PAIRS)
        except Exception as err:
            with self.hold_sync():
                self.cell_pairs = []
                self.error = _error_text(err)

    # -- the typed pair -----------------------------------------------------------------------------------------
    @traitlets.observe("premise_text", "hypothesis_text")
    def _score_typed(self, change: dict | None = None) -> None:
        premise, hypothesis = self.premise_text, self.hypothesis_text
        if self.error.startswith(TYPED_FAILED):  # only this box's own error is cleared here
            self.error = ""
        if not premise.strip() or not hypothesis.strip():
            self.typed = {}
            return
        started = time.perf_counter()
        try:
            scored = score_pair(self.classifier, premise, hypothesis)
        except Exception as err:  # the previous pair's probabilities must not stay beside the new text
            with self.hold_sync():
                self.typed = {}
                self.error = f"{TYPED_FAILED}{_error_text(err)}"
            return
        self.typed = {"premise": premise, "hypothesis": hypothesis, **scored,
                      "ms": (time.perf_counter() - started) * 1000}

    def predict(self, premise: str, hypothesis: str) -> dict[str, float]:
        """What typing the pair shows: ``{entailment, neutral, contradiction}`` (also sets the boxes)."""
        with self.hold_sync():
            self.premise_text = premise
            self.hypothesis_text = hypothesis
        return {label: self.typed[label] for label in LABELS} if self.typed else {}

