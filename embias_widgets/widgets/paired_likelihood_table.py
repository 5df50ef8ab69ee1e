"""``PairedLikelihoodTable``: sentence pairs side by side with the model's per-token
log-probabilities, the sentence scores, their difference and the preferred side.

What the user typed lives in the synced ``pairs`` trait (saved with the
notebook's widget state; :meth:`PairedLikelihoodTable.export_pairs` gives it
back). Every number the front end shows comes from a
:class:`~embias_widgets.analysis.likelihood.PairedLikelihoodResult` (``table_rows()``, ``view()``: rows,
order, summary and group scores); this class only copies them to traits, and the front end only draws
(``js/paired_likelihood_table.js``).
"""

from __future__ import annotations

import time
from typing import Any

import traitlets

from ..analysis.likelihood import (
    CONVENTIONS,
    GROUPINGS,
    SORTS,
    PairedLikelihood,
    PairedLikelihoodResult,
    pair_from_record,
    pair_record,
)
from ..models.language_models.scoring import MASKED_METRICS
from ._base import EmbiasWidget, bundle


class PairedLikelihoodTable(EmbiasWidget):
    """Rows of (more stereotypical, less stereotypical) sentence pairs scored by a language model.

    The left column is CrowS-Pairs' ``sent_more`` (the more stereotypical
    sentence, in both directions), the right one ``sent_less``; an
    ``antistereo`` row is marked as such and stays in those columns.

    Parameters
    ----------
    pairs
        Initial pairs (see :class:`~embias_widgets.analysis.likelihood.PairedLikelihood`).
    model, metric, convention, model_options
        As for :class:`~embias_widgets.analysis.likelihood.PairedLikelihood`;
        or pass ``study=`` an existing one.
    baseline
        A second model (a name, path or loaded scorer) scored on the same pairs with the same metric: each row
        then says which sentence the baseline prefers and whether the two models disagree, and ``comparison``
        holds the paired change of the bias score from the baseline to this model (McNemar's exact test,
        :func:`~embias_widgets.analysis.likelihood.model_pair.model_disagreements`).
    """

    _esm = bundle("paired_likelihood_table.js")
    _css = bundle("paired_likelihood_table.css")

    pairs = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"stereo", "anti", "bias_type"[, "sense_key", "direction"]}]``: what the user typed (``stereo`` =
    more stereotypical sentence, ``anti`` = less; rows are added and edited here). ``sense_key`` (a WordNet
    3.0 key, e.g. from an SSSB file) and ``direction`` (CrowS-Pairs' ``stereo_antistereo``) are optional."""
    metric = traitlets.Unicode("cps").tag(sync=True)
    """``cps``, ``pll``, ``pll-word-l2r``, ``aul`` or ``aula`` (a causal LM: ``cps``, ``pll``, ``aul``)."""
    convention = traitlets.Unicode("crows").tag(sync=True)
    """``crows`` (percentage, 50 = unbiased) or ``zhou`` (minus 50, 0 = unbiased)."""
    bias_type_filter = traitlets.Unicode("").tag(sync=True)
    """Show only this bias type ("" = all); the summary then scores those pairs."""
    sort_by = traitlets.Unicode("input").tag(sync=True)
    """``input`` (as typed), ``difference`` (most stereotype-preferring first), ``-difference``, ``abs``."""
    group_by = traitlets.Unicode("").tag(sync=True)
    """``""`` (no grouping), ``"bias_type"`` (the sense type of SSSB pairs) or ``"sense_key"``: rows are
    grouped, and the summary gives the bias score of every group."""

    rows = traitlets.List(traitlets.Dict()).tag(sync=True)
    """One dict per pair, in input order: tokens with log-probs and heat shades, scores, difference."""
    order = traitlets.List(traitlets.Int()).tag(sync=True)
    """Indices into ``rows`` to display, after filter and sort."""
    summary = traitlets.Dict().tag(sync=True)
    """The bias score (overall or of the filtered type), its reference line and labels."""
    bias_types = traitlets.List(traitlets.Unicode()).tag(sync=True)
    metrics = traitlets.List(traitlets.Unicode()).tag(sync=True)
    model_name = traitlets.Unicode("").tag(sync=True)
    demo_note = traitlets.Unicode("").tag(sync=True)
    """Non-empty when the model is the offline demo: shown as a banner."""
    revision = traitlets.Int(0).tag(sync=True)
    """Incremented after every recompute, failed or not."""
    elapsed_ms = traitlets.Float(0.0).tag(sync=True)
    baseline_name = traitlets.Unicode("").tag(sync=True)
    """The baseline model's name ("" without one)."""
    comparison = traitlets.Dict().tag(sync=True)
    """With a baseline: ``model_disagreements``' ``change`` (the paired change and its test), ``n_pairs`` and
    ``n_disagree``; rows carry ``baseline`` (the baseline's preferred side, ``disagrees``)."""
    disagreements_only = traitlets.Bool(False).tag(sync=True)
    """Show only the pairs where the two models prefer different sentences."""

    def __init__(
        self,
        pairs: Any = (),
        *,
        model: Any = "embias-demo-mlm",
        metric: str = "cps",
        convention: str = "crows",
        study: PairedLikelihood | None = None,
        baseline: Any = None,
        **model_options: Any,
    ) -> None:
        super().__init__()
        self._ready = False
        self.study = study or PairedLikelihood(
            pairs, model=model, metric=metric, convention=convention, progress=False, **model_options
        )
        self.result: PairedLikelihoodResult | None = None
        self.baseline_study = None if baseline is None else (
            baseline if isinstance(baseline, PairedLikelihood) else PairedLikelihood(
                [], model=baseline, metric=self.study.metric, convention=self.study.convention, progress=False,
                **model_options))
        with self.hold_sync():
            self.baseline_name = "" if self.baseline_study is None else self.baseline_study.scorer.name
            self.metrics = list(self.study.scorer.metrics)
            self.model_name = self.study.scorer.name
            self.metric = self.study.metric
            self.convention = self.study.convention
            self.pairs = [pair_record(p) for p in self.study.pairs]
        self._ready = True
        self._recompute()

    # -- trait changes -------------------------------------------------------------------------------
    @traitlets.validate("metric")
    def _valid_metric(self, proposal: dict) -> str:
        value = proposal["value"]
        allowed = self.metrics or list(MASKED_METRICS)
        if value not in allowed:
            raise traitlets.TraitError(f"metric must be one of {allowed}, got {value!r}")
        return value

    @traitlets.validate("convention", "sort_by", "group_by")
    def _valid_choice(self, proposal: dict) -> str:
        name, value = proposal["trait"].name, proposal["value"]
        allowed = sorted({"convention": CONVENTIONS, "sort_by": SORTS, "group_by": GROUPINGS}[name])
        if value not in allowed:
            raise traitlets.TraitError(f"{name} must be one of {allowed}, got {value!r}")
        return value

    @traitlets.validate("pairs")
    def _valid_pairs(self, proposal: dict) -> list[dict[str, Any]]:
        for i, record in enumerate(proposal["value"]):
            bad = [
                k
                for k in ("stereo", "anti", "bias_type", "sense_key", "direction")
                if k in record and not isinstance(record[k], str)
            ]
            if bad:  # null is not a sentence either: it would be scored as the text "None"
                value = "null" if record[bad[0]] is None else repr(record[bad[0]])
                raise traitlets.TraitError(f"pairs[{i}][{bad[0]!r}] = {value} is not text: type it as text")
        return proposal["value"]

    @traitlets.observe("pairs", "metric", "convention")
    def _inputs_changed(self, change: dict) -> None:
        if getattr(self, "_ready", False):
            self._recompute()

    @traitlets.observe("bias_type_filter", "sort_by", "group_by", "disagreements_only")
    def _view_changed(self, change: dict) -> None:
        if self.result is not None:
            with self.hold_sync():
                self._update_view()

    # -- editing from Python ---------------------------------------------------------------------------
    def add_pair(self, stereo: str, anti: str, bias_type: str = "", sense_key: str = "") -> None:
        """Append a pair (as typing one in the table does)."""
        record = {"stereo": stereo, "anti": anti, "bias_type": bias_type}
        if sense_key:
            record["sense_key"] = sense_key
        self.pairs = [*self.pairs, record]

    def export_pairs(self) -> list[dict[str, str]]:
        """The pairs as typed: ``[{"stereo", "anti", "bias_type"[, "sense_key"]}]`` (JSON-ready)."""
        return [dict(p) for p in self.pairs]

    # -- computing -----------------------------------------------------------------------------------------
    def _recompute(self) -> None:
        self.busy = True
        started = time.perf_counter()
        try:
            self.study.pairs = [pair_from_record(r) for r in self.pairs]
            self.study.metric = self.metric
            self.study.convention = self.convention
            result = self.study.run()
            paired = self._baseline(result)
        except Exception as err:  # any failure must reach the user; the old scores are cleared from view
            self._show_failure(err)
            return
        with self.hold_sync():
            self.result = result
            self.error = ""
            self.stale = False
            rows = result.table_rows()
            for i, row in enumerate(rows):
                if paired is not None and i in paired["rows"]:
                    row["baseline"] = paired["rows"][i]
            self.rows = rows
            self.comparison = {} if paired is None else {k: v for k, v in paired.items() if k != "rows"}
            self.bias_types = result.bias_types
            self.demo_note = result.demo_note
            self._update_view()
            self.elapsed_ms = (time.perf_counter() - started) * 1000
            self.busy = False
            self.revision += 1

    def _baseline(self, result: PairedLikelihoodResult) -> dict[str, Any] | None:
        """The baseline's result on the same pairs and metric, compared with ``result``; None without one."""
        if self.baseline_study is None:
            return None
        from ..analysis.likelihood.model_pair import model_disagreements

        self.baseline_study.pairs = list(self.study.pairs)
        base = self.baseline_study.run(metric=self.metric, convention=self.convention)
        return model_disagreements(result, base)

    def _show_failure(self, err: Exception) -> None:
        message = (
            str(err)
            if isinstance(err, ValueError)
            else (f"{type(err).__name__}: {err} (an internal error: please report it)")
        )
        with self.hold_sync():
            self.result = None
            self.comparison = {}
            self.error = message
            self.stale = True
            self.rows, self.order = [], []
            self.summary = {**self.summary, "score": None, "n": 0}
            self.busy = False
            self.revision += 1

    def _update_view(self) -> None:
        assert self.result is not None
        view = self.result.view(bias_type=self.bias_type_filter, sort_by=self.sort_by, group_by=self.group_by)
        order = list(view.order)
        if self.disagreements_only and self.comparison:
            order = [i for i in order if (self.rows[i].get("baseline") or {}).get("disagrees")]
        self.order = order
        self.summary = view.summary
