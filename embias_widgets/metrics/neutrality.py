"""Neutrality scores of NLI bias probes, from sufficient statistics that add up.

Dev, Li, Phillips & Srikumar (2020), section 2.3 (``../shared/papers/001_…``):
every probe pair should be neutral, so with per-pair probabilities
``(e, n, c)`` over ``N`` pairs

- Net Neutral      ``NN = (1/N) sum_i n_i``
- Fraction Neutral ``FN = (1/N) sum_i 1[argmax(e_i, n_i, c_i) = neutral]``
- Threshold        ``T:tau = (1/N) sum_i 1[n_i > tau]``  (tau = 0.5, 0.7, or any list)

all 1 for an unbiased model. Two levels are in use (``../shared/docs/metrics.md``
section 3) and give different numbers:

- **sentence pairs** (:meth:`NeutralityStats.pair_level`): the means above over
  every pair, as AllenNLP's fairness metric, MABEL and later papers report;
- **word pairs** (:meth:`NeutralityStats.word_level`): first average ``(e, n, c)``
  of each (premise word, hypothesis word) over its templates, then take the
  means over word pairs, as the authors' ``evaluation.py`` (``club``,
  ``fracNeutral``; it prints NN and T only, FN here is the argmax of the
  averaged triple).

Everything is computed from per-(premise word, hypothesis word) sums and
counts (:class:`NeutralityStats`): stats of two chunks of pairs add
(:meth:`NeutralityStats.merge`), so a run split over chunks, processes or
machines gives the same numbers as one pass; any slice (all pairs with "rude"
and "iraqi") is a subset of the rows. :class:`TopPairs` keeps the ``k`` pairs
with the largest entailment and contradiction (the paper's Tables 2, 4, 6)
across chunks. Pure numpy; argmax ties go to the first label (entailment,
then neutral), as ``numpy.argmax``.

The same sums per *template* (:class:`TemplateStats`) let the intervals
resample the two independent units of a probe, templates and word pairs
(:mod:`.neutrality_intervals`): the sentence pairs are their crossing, not
independent draws.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .score_intervals import DEFAULT_LEVEL, ScoreInterval, t_interval, wilson_interval

LABELS = ("entailment", "neutral", "contradiction")
DEFAULT_TAUS: tuple[float, ...] = (0.5, 0.7)


def _iv_probs(probs: np.ndarray) -> np.ndarray:
    P = np.asarray(probs, dtype=np.float64)
    if P.ndim != 2 or P.shape[1] != 3:
        raise ValueError(f"probabilities must be an (n, 3) array (entailment, neutral, contradiction), got {P.shape}")
    if P.size and not np.all(np.isfinite(P)):
        raise ValueError("probabilities contain nan or inf")
    return P


def _iv_taus(taus: Iterable[float]) -> tuple[float, ...]:
    out = tuple(float(t) for t in taus)
    if any(not 0.0 <= t <= 1.0 for t in out):
        raise ValueError(f"thresholds tau must lie in [0, 1], got {out}")
    return out


def threshold_key(tau: float) -> str:
    """The report key of ``T:tau``: ``threshold_0.5``, ``threshold_0.7``."""
    return f"threshold_{float(tau):g}"


def scores_from_probs(probs: np.ndarray, taus: Sequence[float] = DEFAULT_TAUS) -> dict[str, float]:
    """NN, FN and T:tau of an ``(n, 3)`` array directly (no grouping): the plain definition."""
    P = _iv_probs(probs)
    if len(P) == 0:
        raise ValueError("no pairs to score")
    out = {"net_neutral": float(P[:, 1].mean()), "fraction_neutral": float((P.argmax(axis=1) == 1).mean())}
    for tau in _iv_taus(taus):
        out[threshold_key(tau)] = float((P[:, 1] > tau).mean())
    return out


def _group_sums(P: np.ndarray, group: np.ndarray, k: int,
                taus: tuple[float, ...]) -> tuple[np.ndarray, ...]:
    """Per group ``0..k-1``: count, sums of (e, n, c), argmax counts, counts above each tau, sum of n^2."""
    count = np.bincount(group, minlength=k).astype(np.int64)
    sums = np.zeros((k, 3))
    np.add.at(sums, group, P)
    argmax = np.zeros((k, 3), dtype=np.int64)
    np.add.at(argmax, (group, P.argmax(axis=1)), 1)
    above = np.zeros((k, len(taus)), dtype=np.int64)
    if len(P):
        np.add.at(above, group, (P[:, 1:2] > np.asarray(taus)[None, :]).astype(np.int64))
    squares = np.bincount(group, weights=P[:, 1] ** 2, minlength=k).astype(np.float64)
    return count, sums, argmax, above, squares


def _codes(labels: Iterable[object]) -> tuple[list, np.ndarray]:
    """First-seen keys and each item's code."""
    where: dict[object, int] = {}
    codes = np.fromiter((where.setdefault(key, len(where)) for key in labels), dtype=np.int64)
    return list(where), codes


def _merged(keys_a: list, keys_b: list, arrays_a: Sequence[np.ndarray],
            arrays_b: Sequence[np.ndarray]) -> tuple[list, list[np.ndarray]]:
    """Keys in first-seen order and each array of ``a`` with ``b``'s rows added at their keys' places."""
    keys = list(keys_a)
    where = {key: i for i, key in enumerate(keys)}
    for key in keys_b:
        if key not in where:
            where[key] = len(keys)
            keys.append(key)
    rows = np.array([where[key] for key in keys_b], dtype=np.int64)
    out = []
    for a, b in zip(arrays_a, arrays_b, strict=True):
        grown = np.zeros((len(keys), *a.shape[1:]), dtype=a.dtype)
        grown[: len(a)] = a
        grown[rows] += b
        out.append(grown)
    return keys, out


@dataclass
class TemplateStats:
    """Sums and counts per template (the sentence frame a pair was built from): ``count[t]``, ``sums[t]``
    = sum of (e, n, c), ``argmax[t, j]``, ``above[t, tau]``, as :class:`NeutralityStats` keeps them per word
    pair. They add across chunks; the two-way intervals resample templates from them."""

    keys: list[str] = field(default_factory=list)
    count: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sums: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    argmax: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    above: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    @classmethod
    def from_probs(cls, probs: np.ndarray, templates: Sequence[str], taus: tuple[float, ...]) -> TemplateStats:
        """Statistics of pairs ``probs`` whose templates are ``templates`` (one label per pair)."""
        if len(templates) != len(probs):
            raise ValueError(f"{len(probs)} probability rows but {len(templates)} template labels")
        keys, group = _codes(str(t) for t in templates)
        count, sums, argmax, above, _ = _group_sums(probs, group, len(keys), taus)
        return cls(keys, count, sums, argmax, above)

    def merge(self, other: TemplateStats) -> TemplateStats:
        """A new object holding the statistics of both; keys keep first-seen order."""
        mine = (self.count, self.sums, self.argmax, self.above)
        theirs = (other.count, other.sums, other.argmax, other.above)
        if self.above.shape[1:] != other.above.shape[1:] and len(self.keys) and len(other.keys):
            raise ValueError("cannot merge template statistics for different numbers of thresholds")
        if not len(self.keys):
            mine = tuple(np.zeros((0, *b.shape[1:]), dtype=b.dtype) for b in theirs)
        keys, arrays = _merged(self.keys, other.keys, mine, theirs)
        return TemplateStats(keys, *arrays)


@dataclass
class NeutralityStats:
    """Sums and counts per (premise word, hypothesis word) key.

    For key ``k`` with pairs ``i in k``: ``count[k] = |k|``, ``sums[k] = sum_i
    (e_i, n_i, c_i)``, ``argmax[k, j] = #{i: argmax_i = j}``, ``above[k, t] =
    #{i: n_i > taus[t]}``. These add across chunks; every score is a function
    of them. ``squares[k] = sum_i n_i^2`` (the neutral probability squared) gives the pairs' own spread,
    which the two-way intervals take out of the template component (:meth:`intervals`); ``None`` when
    unknown. ``templates`` holds the same sums per template (:class:`TemplateStats`), ``None`` when the pairs'
    templates were not given: the intervals then resample word pairs only and say so.
    """

    taus: tuple[float, ...] = DEFAULT_TAUS
    keys: list[tuple[str, str]] = field(default_factory=list)
    count: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sums: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    argmax: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    above: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    squares: np.ndarray | None = field(default_factory=lambda: np.zeros(0))
    templates: TemplateStats | None = None

    def __post_init__(self) -> None:
        self.taus = _iv_taus(self.taus)
        if self.above.shape[1] != len(self.taus):
            self.above = np.zeros((len(self.keys), len(self.taus)), dtype=np.int64)
        if self.squares is not None and len(self.squares) != len(self.keys):
            self.squares = None  # built without it: unknown, not zero
        self._where = {key: i for i, key in enumerate(self.keys)}

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def from_probs(
        cls,
        probs: np.ndarray,
        premise_words: Sequence[str],
        hypothesis_words: Sequence[str],
        taus: Sequence[float] = DEFAULT_TAUS,
        templates: Sequence[str] | None = None,
    ) -> NeutralityStats:
        """Statistics of one chunk: ``probs[i]`` belongs to ``(premise_words[i], hypothesis_words[i])`` and,
        when given, to template ``templates[i]`` (a label such as ``"bought a phone"``)."""
        P = _iv_probs(probs)
        if not (len(premise_words) == len(hypothesis_words) == len(P)):
            raise ValueError(f"{len(P)} probability rows but {len(premise_words)} premise words and "
                             f"{len(hypothesis_words)} hypothesis words")
        taus = _iv_taus(taus)
        keys, group = _codes(zip(premise_words, hypothesis_words, strict=True))
        per_template = None if templates is None else TemplateStats.from_probs(P, templates, taus)
        return cls(taus, keys, *_group_sums(P, group, len(keys), taus), per_template)

    def merge(self, other: NeutralityStats) -> NeutralityStats:
        """A new object holding the statistics of both (same ``taus``); keys keep first-seen order. Template
        statistics survive only when both sides have them (else the merged pairs' templates are unknown)."""
        if self.taus != other.taus:
            raise ValueError(f"cannot merge statistics for thresholds {self.taus} and {other.taus}")
        mine = [self.count, self.sums, self.argmax, self.above]
        theirs = [other.count, other.sums, other.argmax, other.above]
        known = self.squares is not None and other.squares is not None
        if known:
            mine.append(self.squares)
            theirs.append(other.squares)
        keys, arrays = _merged(self.keys, other.keys, mine, theirs)
        templates = self._merged_templates(other)
        return NeutralityStats(self.taus, keys, *arrays[:4], arrays[4] if known else None, templates)

    def _merged_templates(self, other: NeutralityStats) -> TemplateStats | None:
        empty_self, empty_other = self.n_pairs == 0, other.n_pairs == 0
        if self.templates is None or other.templates is None:
            # an empty side knows nothing to lose: keep the other's templates
            return other.templates if empty_self else self.templates if empty_other else None
        return self.templates.merge(other.templates)

    __add__ = merge

    @classmethod
    def combine(cls, parts: Iterable[NeutralityStats], taus: Sequence[float] = DEFAULT_TAUS) -> NeutralityStats:
        """Merge statistics in the order given (the order fixes the float sums, so keep it fixed)."""
        out = cls(tuple(taus))
        for part in parts:
            out = out.merge(part)
        return out

    # -- reading ------------------------------------------------------------------------------
    @property
    def n_pairs(self) -> int:
        return int(self.count.sum())

    @property
    def n_word_pairs(self) -> int:
        return len(self.keys)

    def _nonempty(self) -> None:
        if self.n_pairs == 0:
            raise ValueError("no pairs scored yet: neutrality scores are undefined")

    def pair_level(self) -> dict[str, float]:
        """NN, FN, T:tau over sentence pairs (AllenNLP's fairness metric, MABEL)."""
        self._nonempty()
        n = self.n_pairs
        out = {"net_neutral": float(self.sums[:, 1].sum() / n), "fraction_neutral": float(self.argmax[:, 1].sum() / n)}
        for t, tau in enumerate(self.taus):
            out[threshold_key(tau)] = float(self.above[:, t].sum() / n)
        return out

    def word_pair_means(self) -> np.ndarray:
        """``(k, 3)`` mean (e, n, c) of each word pair over its templates."""
        self._nonempty()
        return self.sums / self.count[:, None]

    def word_level(self) -> dict[str, float]:
        """NN, FN, T:tau over word pairs after averaging each over templates (the authors' evaluation.py)."""
        M = self.word_pair_means()
        out = {"net_neutral": float(M[:, 1].mean()), "fraction_neutral": float((M.argmax(axis=1) == 1).mean())}
        for tau in self.taus:
            out[threshold_key(tau)] = float((M[:, 1] > tau).mean())
        return out

    def slice(self, premise_word: str | Iterable[str] | None = None,
              hypothesis_word: str | Iterable[str] | None = None) -> NeutralityStats:
        """The statistics of the pairs whose premise word / hypothesis word is (one of) the given (their
        templates' sums are not kept per word pair, so a slice has none: its intervals resample word pairs)."""
        def wanted(value: str | Iterable[str] | None) -> set[str] | None:
            return None if value is None else {value} if isinstance(value, str) else set(value)

        p, h = wanted(premise_word), wanted(hypothesis_word)
        rows = [i for i, (pw, hw) in enumerate(self.keys) if (p is None or pw in p) and (h is None or hw in h)]
        if not rows:
            raise ValueError(f"no scored pairs with premise word {premise_word!r} and hypothesis word "
                             f"{hypothesis_word!r}")
        idx = np.asarray(rows)
        return NeutralityStats(self.taus, [self.keys[i] for i in rows], self.count[idx], self.sums[idx],
                               self.argmax[idx], self.above[idx], None if self.squares is None else self.squares[idx])

    def intervals(self, level: float = DEFAULT_LEVEL, *, n_resamples: int = 2_000,
                  seed: int = 0) -> dict[str, dict[str, ScoreInterval | None]]:
        """``{"pairs": {measure: interval}, "word_pairs": {...}}`` with the keys of :meth:`pair_level`: the
        two-way bootstrap over templates and word pairs (:func:`~.neutrality_intervals.two_way_intervals`)."""
        from .neutrality_intervals import two_way_intervals

        return two_way_intervals(self, level=level, n_resamples=n_resamples, seed=seed)

    def top_word_pairs(self, k: int = 10, by: str = "entailment") -> list[dict[str, object]]:
        """The ``k`` word pairs with the largest mean ``by`` (entailment, neutral or contradiction);
        ties by first-seen order."""
        if by not in LABELS:
            raise ValueError(f"`by` must be one of {LABELS}, got {by!r}")
        M = self.word_pair_means()
        order = np.argsort(-M[:, LABELS.index(by)], kind="stable")[: max(0, int(k))]
        return [
            {"premise_word": self.keys[i][0], "hypothesis_word": self.keys[i][1], "n_pairs": int(self.count[i]),
             **{label: float(M[i, j]) for j, label in enumerate(LABELS)}}
            for i in order
        ]


@dataclass
class TopPairs:
    """The ``k`` pairs (by index) with the largest value of one label, kept across chunks.

    Ties go to the smaller pair index, so merging chunks in any grouping gives
    the same result as one pass.
    """

    k: int = 10
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    indices: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def _keep(self, values: np.ndarray, indices: np.ndarray) -> TopPairs:
        order = np.lexsort((indices, -values))[: self.k]
        return TopPairs(self.k, values[order], indices[order])

    def update(self, values: np.ndarray, indices: np.ndarray) -> TopPairs:
        """A new TopPairs over these ``values`` of pairs ``indices`` and the ones kept so far."""
        v = np.concatenate([self.values, np.asarray(values, dtype=np.float64)])
        i = np.concatenate([self.indices, np.asarray(indices, dtype=np.int64)])
        return self._keep(v, i)

    def merge(self, other: TopPairs) -> TopPairs:
        return TopPairs(max(self.k, other.k), self.values, self.indices).update(other.values, other.indices)


def nli_intervals(neutral: np.ndarray, is_neutral: np.ndarray, level: float = DEFAULT_LEVEL) -> dict[str, tuple]:
    """Intervals over independently sampled sentence pairs: ``{"nn": (low, high), "fn": (low, high)}``, the t
    interval of the mean of ``neutral`` (NN) and the Wilson score interval of the share ``is_neutral`` (FN).
    Not for a probe's pairs, which share templates and word pairs: use :meth:`NeutralityStats.intervals`."""
    nn = t_interval(np.asarray(neutral, dtype=np.float64), level=level)
    hits = np.asarray(is_neutral, dtype=bool)
    fn = wilson_interval(int(hits.sum()), int(hits.size), level=level)
    nan = (float("nan"), float("nan"))
    return {"nn": nan if nn is None else (nn.low, nn.high), "fn": nan if fn is None else (fn.low, fn.high)}
