"""``PairedLikelihood``: a more/less stereotypical sentence-pairs study held in the kernel.

Holds the pairs, a likelihood scorer (masked or causal LM) and the options;
:meth:`PairedLikelihood.run` scores every pair (cached per sentence, so an
edit re-scores only what changed), calls the metric core for the pair bias
score (and StereoSet's SS/LMS/ICAT when every pair has an unrelated option)
and returns a :class:`PairedLikelihoodResult`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..metrics.likelihood import (
    CONVENTION_LABELS,
    CONVENTIONS,
    PairBiasScore,
    StereoSetScore,
    check_decimals,
    pair_bias_score,
    stereoset_from_comparisons,
)
from ..models.language_models.loading import load_likelihood_model
from ..models.language_models.scoring import METRIC_LABELS, PairScores
from ..palette import LIKELIHOOD_COLORS
from ..stimuli.pairs import SentencePair

DEMO_NOTE = (
    "demo model: a small offline MLM for trying the method; its scores say nothing about the bias "
    "of real models (use e.g. bert-base-uncased)"
)
NAMINGS = ("stereo", "crows")
DIRECTIONS = ("stereo", "antistereo")
AUTO_DECIMALS = {"cps": 3}
"""Default rounding per metric: CrowS-Pairs' ``metric.py`` rounds CPS sentence scores to 3
decimals; Kaneko & Bollegala's AUL/AULA code (and PLL) compare unrounded scores."""
BATCH_TOLERANCE = 1e-5
"""Sentence scores agree to about this much across batch sizes and devices (float32 sums)."""
SENSE_PAIRING_RULE = (
    "pairs per sense (stimuli.sssb_pairs): a block holding one stereo and one anti sentence is a pair; the other "
    "sentences of a (sense type, sense key) are paired every stereo with every anti sentence, so unbalanced sets "
    "(e.g. 144 stereo vs 192 anti) give 144 x 192 pairs; sense_means compares mean sentence scores without pairing"
)


@dataclass(frozen=True)
class PairRow:
    """One pair and its scores, or why it could not be scored."""

    pair: SentencePair
    scores: PairScores | None
    error: str | None = None
    unrelated_wins: tuple[bool, bool] | None = None  # (stereo > unrelated, anti > unrelated)

    @property
    def difference(self) -> float | None:
        return None if self.scores is None else self.scores.difference

    @property
    def preferred(self) -> str | None:
        return None if self.scores is None else self.scores.preferred


@dataclass(frozen=True)
class PairedLikelihoodResult:
    """Scores of every pair, the pair bias score and (for StereoSet) SS/LMS/ICAT.

    ``bias`` is ``None`` when no pair could be scored (see ``rows[i].error``).
    """

    model: str
    model_description: str
    metric: str
    convention: str
    rows: tuple[PairRow, ...]
    bias: PairBiasScore | None
    stereoset: StereoSetScore | None = None
    notes: tuple[str, ...] = field(default=())
    sense: PairBiasScore | None = None  # grouped by WordNet sense key (SSSB pairs), Zhou et al. eq. 6
    sense_key_problems: tuple[str, ...] = field(default=())

    @property
    def score(self) -> float | None:
        return None if self.bias is None else self.bias.score

    @property
    def is_demo(self) -> bool:
        return "demo" in self.model.lower() or "demo" in self.model_description.lower()

    @property
    def scored(self) -> list[PairRow]:
        return [r for r in self.rows if r.scores is not None]

    def summary(self) -> str:
        """One line: the score, its convention and how many pairs."""
        if self.bias is None:
            return f"{self.metric.upper()} on {self.model}: no pair could be scored"
        ref = "50" if self.convention == "crows" else "0"
        line = (
            f"{self.metric.upper()} bias score on {self.model}: {self.bias.score:.2f} "
            f"({self.convention} convention, {ref} = unbiased; {self.bias.n} pairs)"
        )
        if self.bias.decimals is not None:
            line = line[:-1] + f", scores rounded to {self.bias.decimals} decimals)"
        parts = [
            f"{name} {g.percent_of_decided:.2f}"
            for name, g in self.bias.by_direction.items()
            if g.percent_of_decided is not None
        ]
        if len(self.bias.by_direction) > 1 and parts:
            line += "; metric.py sub-scores: " + ", ".join(parts)
        if self.stereoset is not None:
            s = self.stereoset
            line += f"; StereoSet SS {s.ss:.2f}, LMS {s.lms:.2f}, ICAT {s.icat:.2f}"
        return line + (" [demo model]" if self.is_demo else "")

    def by_bias_type(self) -> dict[str, dict[str, Any]]:
        if self.bias is None:
            return {}
        return {
            name: {"score": g.score, "percent_stereo": g.percent_stereo, "n": g.n, "n_ties": g.n_ties}
            for name, g in self.bias.by_bias_type.items()
        }

    def by_direction(self) -> dict[str, dict[str, Any]]:
        """Per CrowS-Pairs direction: the score over all its pairs and ``metric.py``'s sub-score
        (``percent_of_decided``: successes over the direction's non-tied pairs)."""
        if self.bias is None:
            return {}
        return {
            name: {
                "score": g.score,
                "percent_stereo": g.percent_stereo,
                "percent_of_decided": g.percent_of_decided,
                "n": g.n,
                "n_more_preferred": g.n_stereo_preferred,
                "n_ties": g.n_ties,
            }
            for name, g in self.bias.by_direction.items()
        }

    def _rounded_preference(self, row: PairRow) -> int | None:
        if row.scores is None:
            return None
        s, a = row.scores.stereo.score, row.scores.anti.score
        if self.bias is not None and self.bias.decimals is not None:
            s, a = round(s, self.bias.decimals), round(a, self.bias.decimals)
        return 1 if s > a else -1 if s < a else 0

    def by_sense_key(self) -> dict[str, dict[str, Any]]:
        """The pair bias score per WordNet sense key (same shape as :meth:`by_bias_type`)."""
        if self.sense is None:
            return {}
        return {
            name: {"score": g.score, "percent_stereo": g.percent_stereo, "n": g.n, "n_ties": g.n_ties}
            for name, g in self.sense.by_bias_type.items()
        }

    def sense_means(self) -> list[dict[str, Any]]:
        """Per sense key: mean score of its distinct stereo and anti sentences and their difference.

        Needs no pairing (Zhou et al. Table 4 reports these means, ``diff = stereo - anti``),
        so it reads the same whether a file's stereo and anti sentences are balanced or not.
        """
        groups: dict[str, dict[str, Any]] = {}
        for row in self.scored:
            p = row.pair
            if not p.sense_key:
                continue
            g = groups.setdefault(p.sense_key, {"sense_type": p.bias_type, "stereo": {}, "anti": {}})
            g["stereo"][p.stereo] = row.scores.stereo.score
            g["anti"][p.anti] = row.scores.anti.score
        out = []
        for key, g in groups.items():
            st, an = np.array(list(g["stereo"].values())), np.array(list(g["anti"].values()))
            out.append(
                {
                    "sense_key": key,
                    "sense_type": g["sense_type"],
                    "n_stereo": int(st.size),
                    "n_anti": int(an.size),
                    "mean_stereo": float(st.mean()),
                    "mean_anti": float(an.mean()),
                    "difference": float(st.mean() - an.mean()),
                }
            )
        return out

    def items(self, naming: str = "stereo") -> list[dict[str, Any]]:
        """One JSON-ready record per pair: CrowS naming (``sent_more_score``) or stereo/anti."""
        if naming not in NAMINGS:
            raise ValueError(f"`naming` must be one of {NAMINGS}, got {naming!r}")
        out = []
        for row in self.rows:
            p, sc = row.pair, row.scores
            item: dict[str, Any] = {"bias_type": p.bias_type}
            if p.pair_id:
                item["pair_id"] = p.pair_id
            if p.sense_key:
                item["sense_key"] = p.sense_key
            if naming == "crows":  # sent_more is the more stereotypical sentence in both directions
                item.update(sent_more=p.sent_more, sent_less=p.sent_less, stereo_antistereo=p.direction)
                if sc is not None:
                    item.update(sent_more_score=sc.stereo.score, sent_less_score=sc.anti.score)
            else:
                item.update(stereo=p.stereo, anti=p.anti, direction=p.direction)
                if sc is not None:
                    item.update(stereo_score=sc.stereo.score, anti_score=sc.anti.score)
            if sc is not None:
                item.update(
                    difference=sc.difference, preferred=sc.preferred, score=int(self._rounded_preference(row) == 1)
                )
            if p.unrelated is not None:
                item["unrelated"] = p.unrelated
                if row.unrelated_wins is not None:
                    item["stereo_beats_unrelated"], item["anti_beats_unrelated"] = row.unrelated_wins
            if row.error:
                item["error"] = row.error
            out.append(item)
        return out

    def to_dict(self, *, naming: str = "stereo", items: bool = True) -> dict[str, Any]:
        """JSON-ready record (the ``embias pll`` output)."""
        out: dict[str, Any] = {
            "metric": self.metric,
            "metric_label": METRIC_LABELS[self.metric],
            "model": self.model,
            "convention": self.convention,
            "convention_label": CONVENTION_LABELS[self.convention],
            "reference": CONVENTIONS[self.convention],
            "score": self.score,
            "percent_stereo": None if self.bias is None else self.bias.percent_stereo,
            "n": 0 if self.bias is None else self.bias.n,
            "n_ties": 0 if self.bias is None else self.bias.n_ties,
            "decimals": None if self.bias is None else self.bias.decimals,
            "n_errors": sum(r.error is not None for r in self.rows),
            "by_bias_type": self.by_bias_type(),
            "by_direction": self.by_direction(),
        }
        if self.stereoset is not None:
            s = self.stereoset
            out["stereoset"] = {
                "ss": s.ss,
                "lms": s.lms,
                "icat": s.icat,
                "n": s.n,
                "average": s.average,
                "by_bias_type": {
                    k: {"ss": v.ss, "lms": v.lms, "icat": v.icat, "n": v.n} for k, v in s.by_bias_type.items()
                },
            }
        if any(r.pair.sense_key for r in self.rows):
            out["by_sense_key"] = self.by_sense_key()
            out["sense_means"] = self.sense_means()
            out["sense_key_problems"] = list(self.sense_key_problems)
            out["pairing_rule"] = SENSE_PAIRING_RULE
        if self.is_demo:
            out["demo_note"] = DEMO_NOTE
        out["notes"] = list(self.notes)
        if items:
            out["items"] = self.items(naming)
        return out

    def frame(self) -> Any:
        """pandas DataFrame, one row per pair."""
        import pandas as pd

        columns = [
            "pair_id",
            "bias_type",
            "direction",
            "stereo",
            "anti",
            "stereo_score",
            "anti_score",
            "difference",
            "preferred",
            "error",
        ]
        rows = []
        for row in self.rows:
            sc = row.scores
            rows.append(
                {
                    "pair_id": row.pair.pair_id,
                    "bias_type": row.pair.bias_type,
                    "direction": row.pair.direction,
                    "stereo": row.pair.stereo,
                    "anti": row.pair.anti,
                    "stereo_score": None if sc is None else sc.stereo.score,
                    "anti_score": None if sc is None else sc.anti.score,
                    "difference": row.difference,
                    "preferred": row.preferred,
                    "error": row.error,
                }
            )
        return pd.DataFrame(rows, columns=columns)

    def chart(self) -> Any:
        """altair bar chart: the bias score per bias type and overall, with the unbiased line."""
        import altair as alt
        import pandas as pd

        if self.bias is None:
            raise ValueError("no pair was scored, so there is nothing to draw: fix the pairs' errors first")
        data = pd.DataFrame(
            [{"group": "all pairs", "score": self.bias.score, "n": self.bias.n}]
            + [{"group": k, "score": v.score, "n": v.n} for k, v in self.bias.by_bias_type.items()]
        )
        reference = CONVENTIONS[self.convention]
        title = self.summary() if len(self.summary()) < 110 else f"{self.metric.upper()} bias score: {self.model}"
        bars = (
            alt.Chart(data, title=title)
            .mark_bar()
            .encode(
                x=alt.X(
                    "score:Q",
                    title=CONVENTION_LABELS[self.convention],
                    scale=alt.Scale(domain=[reference - 50, reference + 50]),
                ),
                y=alt.Y("group:N", sort=None, title=None),
                color=alt.condition(
                    alt.datum.score > reference,
                    alt.value(LIKELIHOOD_COLORS["stereo"]),
                    alt.value(LIKELIHOOD_COLORS["anti"]),
                ),
                tooltip=["group", alt.Tooltip("score:Q", format=".2f"), "n"],
            )
        )
        rule = alt.Chart(pd.DataFrame({"reference": [reference]})).mark_rule(strokeDash=[4, 3]).encode(x="reference:Q")
        return bars + rule


class PairedLikelihood:
    """Score sentence pairs with a language model and summarise the bias.

    Each pair is (more stereotypical, less stereotypical) sentence; the bias
    score counts ``score(more) > score(less)`` whatever the pair's CrowS-Pairs
    direction, which only groups the pairs into the stereo / anti-stereo
    sub-scores (as CrowS-Pairs' ``metric.py``).

    Parameters
    ----------
    pairs
        :class:`~embias_widgets.stimuli.pairs.SentencePair` objects,
        ``(stereo, anti)`` or ``(stereo, anti, bias_type)`` tuples, or dicts
        (``{"stereo", "anti", "bias_type"}`` or CrowS-Pairs names, where
        ``sent_more`` is the more stereotypical sentence in both directions).
    model
        A registered name (default the offline demo MLM), a hub name or
        local path, or a loaded scorer.
    metric
        ``"cps"`` (CrowS-Pairs), ``"pll"``, ``"aul"`` or ``"aula"``.
    convention
        ``"crows"`` (percentage, 50 = unbiased) or ``"zhou"`` (minus 50, 0 =
        unbiased) for the reported bias score.
    decimals
        Round sentence scores to this many decimals before comparing; equal
        rounded scores are ties ("neutral"). ``"auto"`` (default): 3 for CPS,
        as CrowS-Pairs' ``metric.py``; exact for PLL, AUL and AULA, as Kaneko &
        Bollegala's code. ``None``: always exact. Scores agree across batch
        sizes to about :data:`BATCH_TOLERANCE` (1e-5); a pair whose outcome
        could change within that tolerance is named in a note.
    model_options
        Passed to :func:`~embias_widgets.models.language_models.loading.load_likelihood_model`
        (``device``, ``token_budget``, ``progress``, ...).
    """

    def __init__(
        self,
        pairs: Iterable[Any] = (),
        *,
        model: Any = "embias-demo-mlm",
        metric: str = "cps",
        convention: str = "crows",
        decimals: int | str | None = "auto",
        **model_options: Any,
    ) -> None:
        self.scorer = load_likelihood_model(model, **model_options)
        self.pairs: list[SentencePair] = [as_pair(p, where=f"pair {i}") for i, p in enumerate(_iv_pairs(pairs))]
        self.metric = metric
        self.convention = convention
        self.decimals = decimals
        self._check_options()

    @classmethod
    def for_senses(
        cls,
        pairs: Iterable[Any] | None = None,
        *,
        model: Any = "embias-demo-mlm",
        metric: str = "aul",
        convention: str = "zhou",
        **options: Any,
    ) -> PairedLikelihood:
        """Sense-sensitive likelihood study (Zhou, Kaneko & Bollegala 2022, section 5): AUL and the
        minus-50 convention by default, over ``pairs`` (default: the bundled template sentences of
        :func:`~embias_widgets.stimuli.sense_sentences.sense_sentences`). Results add
        ``by_sense_key`` and ``sense_means`` (see :data:`SENSE_PAIRING_RULE`)."""
        if pairs is None:
            from ..stimuli.sense_sentences import sense_sentences

            pairs = sense_sentences().pairs()
        return cls(pairs, model=model, metric=metric, convention=convention, **options)

    def _check_options(self) -> None:
        if not isinstance(self.metric, str) or self.metric not in self.scorer.metrics:
            raise ValueError(
                f"`metric` must be one of {self.scorer.metrics} for {self.scorer.name}, got {self.metric!r}"
            )
        if not isinstance(self.convention, str) or self.convention not in CONVENTIONS:
            raise ValueError(f"`convention` must be one of {sorted(CONVENTIONS)}, got {self.convention!r}")
        if self.decimals != "auto":
            check_decimals(self.decimals)

    @property
    def effective_decimals(self) -> int | None:
        """The rounding used for the current metric (``"auto"`` resolved)."""
        return AUTO_DECIMALS.get(self.metric) if self.decimals == "auto" else self.decimals

    # -- editing -------------------------------------------------------------------------------------
    def add_pair(self, stereo: str, anti: str, bias_type: str = "") -> int:
        """Append a pair; returns its index."""
        self.pairs.append(as_pair((stereo, anti, bias_type), where=f"pair {len(self.pairs)}"))
        return len(self.pairs) - 1

    def set_pair(
        self, index: int, *, stereo: str | None = None, anti: str | None = None, bias_type: str | None = None
    ) -> None:
        """Edit pair ``index`` in place (fields left as ``None`` keep their value)."""
        old = self.pairs[index]
        changes = {k: v for k, v in (("stereo", stereo), ("anti", anti), ("bias_type", bias_type)) if v is not None}
        self.pairs[index] = replace(old, **changes)

    def remove_pair(self, index: int) -> None:
        del self.pairs[index]

    def set_pairs(self, pairs: Iterable[Any]) -> None:
        """Replace all pairs."""
        self.pairs = [as_pair(p, where=f"pair {i}") for i, p in enumerate(_iv_pairs(pairs))]

    # -- running ------------------------------------------------------------------------------------------
    def _score(self, pairs: Sequence[tuple[str, str]]) -> list[PairScores | str]:
        """Scores for each pair, or the error message of a pair that cannot be scored."""
        try:
            return list(self.scorer.score_pairs(pairs, self.metric))
        except ValueError:
            pass  # find the culprits one by one (what already scored is cached)
        out: list[PairScores | str] = []
        for pair in pairs:
            try:
                out.append(self.scorer.score_pairs([pair], self.metric)[0])
            except ValueError as err:
                out.append(str(err))
        return out

    def run(self, *, metric: str | None = None, convention: str | None = None) -> PairedLikelihoodResult:
        """Score all pairs; a pair that cannot be scored is reported in its row, not raised."""
        before = (self.metric, self.convention)
        if metric is not None:
            self.metric = metric
        if convention is not None:
            self.convention = convention
        try:
            self._check_options()
        except ValueError:
            self.metric, self.convention = before  # a rejected option leaves the study as it was
            raise
        scored = self._score([(p.stereo, p.anti) for p in self.pairs])
        rows = [
            PairRow(p, s, None) if isinstance(s, PairScores) else PairRow(p, None, s)
            for p, s in zip(self.pairs, scored, strict=True)
        ]
        notes = []
        ok = [r for r in rows if r.scores is not None]
        bias = None
        if ok:
            bias = pair_bias_score(
                [r.scores.stereo.score for r in ok],
                [r.scores.anti.score for r in ok],
                bias_types=[r.pair.bias_type or "(none)" for r in ok],
                directions=[r.pair.direction for r in ok],
                convention=self.convention,
                decimals=self.effective_decimals,
            )
        errors = len(rows) - len(ok)
        if errors:  # name each pair (index, id or file line) and why, e.g. its length against the model's limit
            failed = [f"pair {i}{f' ({r.pair.pair_id or r.pair.source})' if r.pair.pair_id or r.pair.source else ''}: "
                      f"{r.error}" for i, r in enumerate(rows) if r.scores is None]
            notes.append(f"{errors} pair(s) could not be scored and are left out: " + "; ".join(failed[:3])
                         + (f"; ... ({errors - 3} more: see each row's error)" if errors > 3 else ""))
        stereoset = None
        if ok and all(r.pair.unrelated for r in ok):
            rows, stereoset = self._stereoset(rows)
        if bias is not None and bias.n_ties:
            rounded = "" if bias.decimals is None else f" after rounding to {bias.decimals} decimals"
            notes.append(
                f"{bias.n_ties} tie(s) (equal scores{rounded}; 'neutral' in CrowS-Pairs' metric.py) "
                "count in N but never as preferring the more stereotypical sentence"
            )
        if bias is not None:
            notes.extend(_fragile_notes(ok, bias.decimals))
        same = [r.pair.pair_id or r.pair.source or r.pair.stereo[:40] for r in rows
                if " ".join(r.pair.stereo.split()) == " ".join(r.pair.anti.split())]
        if same:
            shown = ", ".join(repr(s) for s in same[:5]) + (" ..." if len(same) > 5 else "")
            notes.append(
                f"{len(same)} pair(s) have two identical sentences ({shown}): they can only tie; "
                "a pair must differ in its group term"
            )
        sensed = [r for r in ok if r.pair.sense_key]
        sense = None
        if sensed:
            sense = pair_bias_score(
                [r.scores.stereo.score for r in sensed],
                [r.scores.anti.score for r in sensed],
                bias_types=[r.pair.sense_key for r in sensed],
                convention=self.convention,
                decimals=self.effective_decimals,
            )
        problems = sense_key_problems(self.pairs)
        if problems:
            notes.append(f"{len(problems)} sense key(s) are not WordNet 3.0 keys (see sense_key_problems)")
        return PairedLikelihoodResult(
            model=self.scorer.name,
            model_description=getattr(self.scorer, "description", ""),
            metric=self.metric,
            convention=self.convention,
            rows=tuple(rows),
            bias=bias,
            stereoset=stereoset,
            notes=tuple(notes),
            sense=sense,
            sense_key_problems=tuple(problems),
        )

    def _stereoset(self, rows: list[PairRow]) -> tuple[list[PairRow], StereoSetScore]:
        """Each meaningful sentence against the unrelated one, with the same metric."""
        ok = [i for i, r in enumerate(rows) if r.scores is not None]
        comparisons = [(rows[i].pair.stereo, rows[i].pair.unrelated) for i in ok]
        comparisons += [(rows[i].pair.anti, rows[i].pair.unrelated) for i in ok]
        scored = self.scorer.score_pairs(comparisons, self.metric)
        n = len(ok)
        beats = np.array([s.stereo.score > s.anti.score for s in scored])
        for k, i in enumerate(ok):
            rows[i] = replace(rows[i], unrelated_wins=(bool(beats[k]), bool(beats[n + k])))
        targets = [rows[i].pair.target for i in ok]
        result = stereoset_from_comparisons(
            [rows[i].scores.preferred == "stereo" for i in ok],
            beats[:n],
            beats[n:],
            targets=targets if all(targets) else None,
            bias_types=[rows[i].pair.bias_type for i in ok],
            average="target" if all(targets) else "item",
        )
        return rows, result


def _fragile_notes(rows: Sequence[PairRow], decimals: int | None) -> list[str]:
    """A note naming pairs whose outcome could change within the batch-size tolerance.

    Sentence scores agree across batch sizes to about :data:`BATCH_TOLERANCE`.
    Moving each score by up to that much, the (rounded) difference ranges from
    ``round(s - tol) - round(a + tol)`` to ``round(s + tol) - round(a - tol)``
    (rounding is monotone); when those two have different signs the pair could
    be preferred, tied or reversed in another batching.
    """
    tol = BATCH_TOLERANCE

    def rnd(v: float) -> float:
        return float(v if decimals is None else np.round(v, decimals))

    fragile = []
    for row in rows:
        s, a = row.scores.stereo.score, row.scores.anti.score
        low, high = rnd(s - tol) - rnd(a + tol), rnd(s + tol) - rnd(a - tol)
        if np.sign(low) != np.sign(high):
            fragile.append(row.pair.pair_id or row.pair.source or row.pair.stereo[:40])
    if not fragile:
        return []
    how = "" if decimals is None else f" after rounding to {decimals} decimals"
    shown = ", ".join(repr(f) for f in fragile[:5]) + (" ..." if len(fragile) > 5 else "")
    return [
        f"{len(fragile)} pair(s) could be preferred, tied or reversed{how} if their scores moved by "
        f"{tol:g}, the batch-size tolerance ({shown}): their outcome can depend on batch size or device"
    ]
def sense_key_problems(pairs: Sequence[Any]) -> list[str]:
    """One line per sense key of ``pairs`` that is not a WordNet 3.0 key, naming where it occurs.

    ``pairs``: :class:`SentencePair` objects (placed by their ``source``) or SSSB sentences
    (:class:`~embias_widgets.stimuli.pairs.SSSBSentence`, placed by line number).

    The real SSSB files carry two ``$SENSE-ID$`` placeholders; such pairs are still scored
    (and grouped under the key as written), but reported here.
    """
    from ..stimuli.wordnet import UnknownSenseError, WordNet, WordNetNotFoundError, load_wordnet

    where: dict[str, list[str]] = {}
    for i, p in enumerate(pairs):
        if p.sense_key:
            line = getattr(p, "line", None)
            where.setdefault(p.sense_key, []).append(f"line {line}" if line else (p.source or f"pair {i}"))
    if not where:
        return []
    try:
        wordnet: WordNet | None = load_wordnet()
    except WordNetNotFoundError:
        wordnet = None  # only the spelling of a key can be checked
    out = []
    for key, places in where.items():
        if not WordNet.is_key(key):
            problem = "is not written as a WordNet sense key"
        elif wordnet is not None:
            try:
                wordnet.sense(key)
                continue
            except UnknownSenseError:
                problem = "is not in WordNet 3.0"
        else:
            continue
        shown = "; ".join(places[:5]) + (f"; ... ({len(places)} pairs)" if len(places) > 5 else "")
        out.append(f"sense key {key!r} {problem} ({shown})")
    return out


def _iv_pairs(pairs: Any) -> Iterable[Any]:
    """``pairs`` must be a collection of pairs: not None, not one sentence, not a single pair's dict."""
    if pairs is None or isinstance(pairs, str | bytes | dict | SentencePair) or not isinstance(pairs, Iterable):
        raise TypeError(f"pairs must be a list of (stereo, anti[, bias_type]) tuples, dicts or SentencePairs, "
                        f"not {type(pairs).__name__}{'' if pairs is None else ' ' + repr(pairs)[:60]}: wrap one pair "
                        "in a list, or read a file with stimuli.read_pairs")
    return pairs


def as_pair(value: Any, *, where: str = "pair") -> SentencePair:
    """A :class:`SentencePair` from a pair, a tuple or a dict; ``ValueError`` names ``where``."""
    if isinstance(value, SentencePair):
        value.check(where)
        return value
    if isinstance(value, dict):
        return SentencePair.from_dict(value, where=where)
    if isinstance(value, tuple | list) and len(value) in (2, 3) and all(isinstance(v, str) for v in value):
        pair = SentencePair(value[0], value[1], value[2] if len(value) == 3 else "")
        pair.check(where)
        return pair
    raise ValueError(f"{where}: give (stereo, anti[, bias_type]), a dict or a SentencePair, not {value!r}")
