"""``PairedLikelihood``: a more/less stereotypical sentence-pairs study held in the kernel.

Holds the pairs, a likelihood scorer (masked or causal LM) and the options;
:meth:`PairedLikelihood.run` scores every pair (cached per sentence, so an
edit re-scores only what changed), calls the metric core for the pair bias
score (and StereoSet's SS/LMS/ICAT when every pair has an unrelated option)
and returns a :class:`~.result.PairedLikelihoodResult`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...metrics.likelihood import (
    CONVENTIONS,
    PairBiasScore,
    StereoSetScore,
    check_decimals,
    pair_bias_score,
    stereoset_from_comparisons,
)
from ...models.language_models.loading import load_likelihood_model
from ...models.language_models.scoring import PairScores
from ...stimuli.pairs import SentencePair
from .notes import run_notes
from .pair_input import as_pair, as_pairs
from .result import PairedLikelihoodResult
from .rows import PairRow
from .senses import sense_key_problems

__all__ = ["AUTO_DECIMALS", "PairedLikelihood"]

AUTO_DECIMALS = {"cps": 3}
"""Default rounding per metric: CrowS-Pairs' ``metric.py`` rounds CPS sentence scores to 3
decimals; Kaneko & Bollegala's AUL/AULA code (and PLL) compare unrounded scores."""


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
        self.pairs: list[SentencePair] = as_pairs(pairs)
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
        ``by_sense_key`` and ``sense_means`` (see :data:`~.senses.SENSE_PAIRING_RULE`)."""
        if pairs is None:
            from ...stimuli.sense_sentences import sense_sentences

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
        """Remove pair ``index``."""
        del self.pairs[index]

    def set_pairs(self, pairs: Iterable[Any]) -> None:
        """Replace all pairs."""
        self.pairs = as_pairs(pairs)

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

    def _set_options(self, metric: str | None, convention: str | None) -> None:
        """Take the run's options; a rejected option leaves the study as it was."""
        before = (self.metric, self.convention)
        if metric is not None:
            self.metric = metric
        if convention is not None:
            self.convention = convention
        try:
            self._check_options()
        except ValueError:
            self.metric, self.convention = before
            raise

    def _bias(self, rows: Sequence[PairRow], labels: list[str], *, directions: bool) -> PairBiasScore | None:
        """The pair bias score of the scored ``rows``, broken down by ``labels`` (one per row)."""
        if not rows:
            return None
        return pair_bias_score(
            [r.scores.stereo.score for r in rows],
            [r.scores.anti.score for r in rows],
            bias_types=labels,
            directions=[r.pair.direction for r in rows] if directions else None,
            convention=self.convention,
            decimals=self.effective_decimals,
        )

    def run(self, *, metric: str | None = None, convention: str | None = None) -> PairedLikelihoodResult:
        """Score all pairs; a pair that cannot be scored is reported in its row, not raised."""
        self._set_options(metric, convention)
        scored = self._score([(p.stereo, p.anti) for p in self.pairs])
        rows = [
            PairRow(p, s, None) if isinstance(s, PairScores) else PairRow(p, None, s)
            for p, s in zip(self.pairs, scored, strict=True)
        ]
        ok = [r for r in rows if r.scores is not None]
        bias = self._bias(ok, [r.pair.bias_type or "(none)" for r in ok], directions=True)
        stereoset = None
        if ok and all(r.pair.unrelated for r in ok):
            rows, stereoset = self._stereoset(rows)
        sensed = [r for r in ok if r.pair.sense_key]
        sense = self._bias(sensed, [r.pair.sense_key for r in sensed], directions=False)
        problems = sense_key_problems(self.pairs)
        return PairedLikelihoodResult(
            model=self.scorer.name,
            model_description=getattr(self.scorer, "description", ""),
            metric=self.metric,
            convention=self.convention,
            rows=tuple(rows),
            bias=bias,
            stereoset=stereoset,
            # a half precision states its tolerance (models.runtime.precision_note) first
            notes=(*filter(None, [getattr(self.scorer, "precision_note", "")]), *run_notes(rows, bias, len(problems))),
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
