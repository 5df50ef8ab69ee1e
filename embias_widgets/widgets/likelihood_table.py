"""``PairedLikelihoodTable``: sentence pairs side by side with the model's per-token
log-probabilities, the sentence scores, their difference and the preferred side.

What the user typed lives in the synced ``pairs`` trait (saved with the
notebook's widget state; :meth:`PairedLikelihoodTable.export_pairs` gives it
back). Every number the front end shows is computed here, by
:class:`~embias_widgets.analysis.likelihood.PairedLikelihood`; the front end
only draws (``js/paired_likelihood_table.js``).
"""

from __future__ import annotations

import math
import time
from typing import Any

import traitlets

from ..analysis.likelihood import DEMO_NOTE, PairedLikelihood, PairedLikelihoodResult, PairRow
from ..analysis.pair_checks import minimal_edit_warning
from ..metrics.likelihood import CONVENTION_LABELS, CONVENTIONS, pair_bias_score
from ..models.language_models.scoring import METRIC_LABELS, TokenScores
from ..stimuli.pairs import SentencePair
from ._base import EmbiasWidget, bundle

SORTS = ("input", "difference", "-difference", "abs")
GROUPINGS = {"": "no grouping", "bias_type": "bias type / sense type", "sense_key": "sense key"}
"""How rows and the summary can be grouped (SSSB files carry the sense type in ``bias_type``)."""


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
    """

    _esm = bundle("paired_likelihood_table.js")
    _css = bundle("paired_likelihood_table.css")

    pairs = traitlets.List(traitlets.Dict()).tag(sync=True)
    """``[{"stereo", "anti", "bias_type"[, "sense_key", "direction"]}]``: what the user typed (``stereo`` =
    more stereotypical sentence, ``anti`` = less; rows are added and edited here). ``sense_key`` (a WordNet
    3.0 key, e.g. from an SSSB file) and ``direction`` (CrowS-Pairs' ``stereo_antistereo``) are optional."""
    metric = traitlets.Unicode("cps").tag(sync=True)
    """``cps``, ``pll``, ``aul`` or ``aula``."""
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
    busy = traitlets.Bool(False).tag(sync=True)
    revision = traitlets.Int(0).tag(sync=True)
    """Incremented after every recompute, failed or not."""
    elapsed_ms = traitlets.Float(0.0).tag(sync=True)

    def __init__(
        self,
        pairs: Any = (),
        *,
        model: Any = "embias-demo-mlm",
        metric: str = "cps",
        convention: str = "crows",
        study: PairedLikelihood | None = None,
        **model_options: Any,
    ) -> None:
        super().__init__()
        self._ready = False
        self.study = study or PairedLikelihood(
            pairs, model=model, metric=metric, convention=convention, progress=False, **model_options
        )
        self.result: PairedLikelihoodResult | None = None
        with self.hold_sync():
            self.metrics = list(self.study.scorer.metrics)
            self.model_name = self.study.scorer.name
            self.metric = self.study.metric
            self.convention = self.study.convention
            self.pairs = [_pair_record(p) for p in self.study.pairs]
        self._ready = True
        self._recompute()

    # -- trait changes -------------------------------------------------------------------------------
    @traitlets.validate("metric")
    def _valid_metric(self, proposal: dict) -> str:
        value = proposal["value"]
        allowed = self.metrics or ["cps", "pll", "aul", "aula"]
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
            bad = [k for k in ("stereo", "anti", "bias_type", "sense_key", "direction")
                   if record.get(k) is not None and not isinstance(record[k], str)]
            if bad:
                raise traitlets.TraitError(f"pairs[{i}][{bad[0]!r}] = {record[bad[0]]!r} is not text: type it as text")
        return proposal["value"]

    @traitlets.observe("pairs", "metric", "convention")
    def _inputs_changed(self, change: dict) -> None:
        if getattr(self, "_ready", False):
            self._recompute()

    @traitlets.observe("bias_type_filter", "sort_by", "group_by")
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
            self.study.pairs = [_pair_of(r) for r in self.pairs]
            self.study.metric = self.metric
            self.study.convention = self.convention
            result = self.study.run()
        except Exception as err:  # any failure must reach the user; the old scores are cleared from view
            message = str(err) if isinstance(err, ValueError) else (
                f"{type(err).__name__}: {err} (an internal error: please report it)"
            )
            with self.hold_sync():
                self.result = None
                self.error = message
                self.stale = True
                self.rows, self.order = [], []
                self.summary = {**self.summary, "score": None, "n": 0}
                self.busy = False
                self.revision += 1
            return
        with self.hold_sync():
            self.result = result
            self.error = ""
            self.stale = False
            self.rows = rows_of(result)
            self.bias_types = list(dict.fromkeys(r.pair.bias_type or "(none)" for r in result.rows))
            self.demo_note = DEMO_NOTE if result.is_demo else ""
            self._update_view()
            self.elapsed_ms = (time.perf_counter() - started) * 1000
            self.busy = False
            self.revision += 1

    def _update_view(self) -> None:
        result = self.result
        assert result is not None
        wanted = self.bias_type_filter
        shown = [i for i, r in enumerate(result.rows) if not wanted or (r.pair.bias_type or "(none)") == wanted]
        scored = [i for i in shown if result.rows[i].scores is not None]
        failed = [i for i in shown if result.rows[i].scores is None]
        if self.sort_by != "input":
            key = {
                "difference": lambda i: -result.rows[i].difference,
                "-difference": lambda i: result.rows[i].difference,
                "abs": lambda i: -abs(result.rows[i].difference),
            }[self.sort_by]
            scored = sorted(scored, key=key)
        order = scored + failed
        if self.group_by:  # stable: groups in first-seen order, the chosen sort inside each
            first_seen = {}
            for i in range(len(result.rows)):
                first_seen.setdefault(group_of(result.rows[i], self.group_by), len(first_seen))
            order = sorted(order, key=lambda i: first_seen[group_of(result.rows[i], self.group_by)])
        self.order = order
        self.summary = summary_of(result, [result.rows[i] for i in scored], wanted, group_by=self.group_by)


# -- what the front end draws ------------------------------------------------------------------------------
def _pair_record(pair: SentencePair) -> dict[str, str]:
    record = {"stereo": pair.stereo, "anti": pair.anti, "bias_type": pair.bias_type}
    if pair.sense_key:
        record["sense_key"] = pair.sense_key
    if pair.direction != "stereo":
        record["direction"] = pair.direction
    return record


def _pair_of(record: dict[str, Any]) -> SentencePair:
    """A pair as typed: empty sentences are kept and reported on their row, not raised."""
    return SentencePair(
        stereo=str(record.get("stereo", "")),
        anti=str(record.get("anti", "")),
        bias_type=str(record.get("bias_type", "")).strip(),
        sense_key=str(record.get("sense_key", "") or "").strip(),
        direction=str(record.get("direction", "stereo")).strip() or "stereo",
    )


def group_of(row: PairRow, group_by: str) -> str:
    """The group a row belongs to: its bias (sense) type or its sense key, ``(none)`` when blank."""
    if group_by == "sense_key":
        return row.pair.sense_key or "(none)"
    return row.pair.bias_type or "(none)"


def sense_note(key: str) -> tuple[str, str]:
    """``(short gloss, problem)`` of a sense key: the gloss when WordNet 3.0 has it, else why not."""
    if key in ("", "(none)"):
        return "", "no sense key"
    from ..stimuli.wordnet import UnknownSenseError, WordNetNotFoundError, load_wordnet
    from .sense_selector import short_gloss

    try:
        sense = load_wordnet().sense(key)
    except UnknownSenseError as err:
        return "", str(err).split(";")[0]
    except WordNetNotFoundError:
        return "", "WordNet is not installed, so the key cannot be checked"
    return short_gloss(sense.gloss), ""


def _shade_scale(result: PairedLikelihoodResult) -> float:
    worst = 0.0
    for row in result.scored:
        for side in (row.scores.stereo, row.scores.anti):
            values = [-v for v in side.log_probs if not math.isnan(v)]
            worst = max(worst, *values, 0.0)
    return max(worst, 1e-9)


def _side(scores: TokenScores, scale: float) -> dict[str, Any]:
    tokens = scores.token_rows()
    for tok in tokens:
        lp = tok["log_prob"]
        tok["shade"] = None if lp is None else min(1.0, max(0.0, -lp / scale))
    return {"text": scores.text, "score": scores.score, "tokens": tokens}


def rows_of(result: PairedLikelihoodResult) -> list[dict[str, Any]]:
    """JSON rows for the table: per token log P and a heat shade in [0, 1] (1 = least likely)."""
    scale = _shade_scale(result)
    out = []
    for index, row in enumerate(result.rows):
        item: dict[str, Any] = {
            "index": index,
            "bias_type": row.pair.bias_type or "(none)",
            "sense_key": row.pair.sense_key,
            "direction": row.pair.direction,
            "error": row.error or "",
            "warning": minimal_edit_warning(row.pair.stereo, row.pair.anti),
        }
        if row.scores is None:
            item.update(
                stereo={"text": row.pair.stereo, "score": None, "tokens": []},
                anti={"text": row.pair.anti, "score": None, "tokens": []},
                difference=None,
                preferred="",
            )
        else:
            item.update(
                stereo=_side(row.scores.stereo, scale),
                anti=_side(row.scores.anti, scale),
                difference=row.scores.difference,
                preferred=row.scores.preferred,
            )
        out.append(item)
    return out


def group_scores(result: PairedLikelihoodResult, rows: list[PairRow], group_by: str) -> list[dict[str, Any]]:
    """The pair bias score of every group of ``rows`` (by bias/sense type or by sense key).

    Each group's score is the pair bias score of its pairs (Zhou, Kaneko & Bollegala 2022, eq. 6, in the
    result's convention). Beside it, ``mean_stereo``/``mean_anti``: the mean score of the group's distinct
    stereotypical and anti-stereotypical sentences (PLL, AUL, AULA; ``None`` for CPS, whose sentence score
    depends on the partner sentence), a comparison that needs no pairing (SSSB's nationality
    and race sentences are not balanced minimal pairs, so pairs are formed by a rule; see
    :func:`~embias_widgets.stimuli.pairs.sssb_pairs`).
    """
    if not rows:
        return []
    labels = [group_of(r, group_by) for r in rows]
    bias = pair_bias_score(
        [r.scores.stereo.score for r in rows],
        [r.scores.anti.score for r in rows],
        bias_types=labels,
        convention=result.convention,
        decimals=None if result.bias is None else result.bias.decimals,
    )
    out = []
    for name, g in bias.by_bias_type.items():
        members = [r for r, label in zip(rows, labels, strict=True) if label == name]
        stereo = {r.pair.stereo: r.scores.stereo.score for r in members}
        anti = {r.pair.anti: r.scores.anti.score for r in members}
        # CPS scores a sentence on the tokens it shares with its partner: no partner-free sentence score
        unpaired = result.metric != "cps"
        group: dict[str, Any] = {
            "name": name,
            "score": g.score,
            "percent_stereo": g.percent_stereo,
            "n": g.n,
            "n_stereo_preferred": g.n_stereo_preferred,
            "n_ties": g.n_ties,
            "mean_stereo": sum(stereo.values()) / len(stereo) if unpaired else None,
            "mean_anti": sum(anti.values()) / len(anti) if unpaired else None,
            "n_stereo_sentences": len(stereo),
            "n_anti_sentences": len(anti),
        }
        if group_by == "sense_key":
            group["gloss"], group["problem"] = sense_note(name)
        else:
            keys = list(dict.fromkeys(r.pair.sense_key for r in members if r.pair.sense_key))
            group["sense_keys"] = keys
        out.append(group)
    return out


def summary_of(
    result: PairedLikelihoodResult, rows: list[PairRow], bias_type: str, *, group_by: str = ""
) -> dict[str, Any]:
    """The summary bar's numbers: of all scored pairs, or of one bias type's; with ``group_by``, every group's."""
    reference = CONVENTIONS[result.convention]
    base = {
        "metric": result.metric,
        "metric_label": METRIC_LABELS[result.metric],
        "convention": result.convention,
        "convention_label": CONVENTION_LABELS[result.convention],
        "reference": reference,
        "axis": [reference - 50.0, reference + 50.0],
        "group": bias_type or "all pairs",
        "notes": list(result.notes),
        "shade_scale": _shade_scale(result),
        "group_by": group_by,
        "group_by_label": GROUPINGS.get(group_by, ""),
        "groups": group_scores(result, rows, group_by) if group_by else [],
    }
    if not rows:
        return {**base, "score": None, "n": 0, "n_stereo_preferred": 0, "n_ties": 0}
    bias = pair_bias_score(
        [r.scores.stereo.score for r in rows],
        [r.scores.anti.score for r in rows],
        directions=[r.pair.direction for r in rows],
        convention=result.convention,
        decimals=None if result.bias is None else result.bias.decimals,
    )
    out = {
        **base,
        "score": bias.score,
        "percent_stereo": bias.percent_stereo,
        "n": bias.n,
        "n_stereo_preferred": bias.n_stereo_preferred,
        "n_ties": bias.n_ties,
        "decimals": bias.decimals,
        "by_direction": {
            k: {"percent_of_decided": g.percent_of_decided, "n": g.n, "n_ties": g.n_ties}
            for k, g in bias.by_direction.items()
        },
    }
    if result.stereoset is not None and not bias_type:
        s = result.stereoset
        out["stereoset"] = {"ss": s.ss, "lms": s.lms, "icat": s.icat, "n": s.n}
    return out
