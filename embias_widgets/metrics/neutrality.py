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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .score_intervals import DEFAULT_LEVEL, ScoreInterval, t_interval, t_interval_from_sums, wilson_interval

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


@dataclass
class NeutralityStats:
    """Sums and counts per (premise word, hypothesis word) key.

    For key ``k`` with pairs ``i in k``: ``count[k] = |k|``, ``sums[k] = sum_i
    (e_i, n_i, c_i)``, ``argmax[k, j] = #{i: argmax_i = j}``, ``above[k, t] =
    #{i: n_i > taus[t]}``. These add across chunks; every score is a function
    of them. ``squares[k] = sum_i n_i^2`` (the neutral probability squared) gives the t interval of NN over
    sentence pairs (:meth:`intervals`); it is ``None`` when unknown (statistics read from files that did
    not store it), and then that one interval is undefined.
    """

    taus: tuple[float, ...] = DEFAULT_TAUS
    keys: list[tuple[str, str]] = field(default_factory=list)
    count: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sums: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    argmax: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    above: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    squares: np.ndarray | None = field(default_factory=lambda: np.zeros(0))

    def __post_init__(self) -> None:
        self.taus = _iv_taus(self.taus)
        if self.above.shape[1] != len(self.taus):
            self.above = np.zeros((len(self.keys), len(self.taus)), dtype=np.int64)
        if self.squares is not None and len(self.squares) != len(self.keys):
            self.squares = None  # built without it (e.g. an older chunk file): unknown, not zero
        self._where = {key: i for i, key in enumerate(self.keys)}

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def from_probs(
        cls,
        probs: np.ndarray,
        premise_words: Sequence[str],
        hypothesis_words: Sequence[str],
        taus: Sequence[float] = DEFAULT_TAUS,
    ) -> NeutralityStats:
        """Statistics of one chunk: ``probs[i]`` belongs to ``(premise_words[i], hypothesis_words[i])``."""
        P = _iv_probs(probs)
        if not (len(premise_words) == len(hypothesis_words) == len(P)):
            raise ValueError(f"{len(P)} probability rows but {len(premise_words)} premise words and "
                             f"{len(hypothesis_words)} hypothesis words")
        taus = _iv_taus(taus)
        where: dict[tuple[str, str], int] = {}
        group = np.empty(len(P), dtype=np.int64)
        for i, key in enumerate(zip(premise_words, hypothesis_words, strict=True)):
            group[i] = where.setdefault(key, len(where))
        k = len(where)
        count = np.bincount(group, minlength=k).astype(np.int64)
        sums = np.zeros((k, 3))
        np.add.at(sums, group, P)
        argmax = np.zeros((k, 3), dtype=np.int64)
        np.add.at(argmax, (group, P.argmax(axis=1)), 1)
        above = np.zeros((k, len(taus)), dtype=np.int64)
        if len(P):
            np.add.at(above, group, (P[:, 1:2] > np.asarray(taus)[None, :]).astype(np.int64))
        squares = np.bincount(group, weights=P[:, 1] ** 2, minlength=k).astype(np.float64)
        return cls(taus, list(where), count, sums, argmax, above, squares)

    def merge(self, other: NeutralityStats) -> NeutralityStats:
        """A new object holding the statistics of both (same ``taus``); keys keep first-seen order."""
        if self.taus != other.taus:
            raise ValueError(f"cannot merge statistics for thresholds {self.taus} and {other.taus}")
        keys = list(self.keys)
        where = dict(self._where)
        for key in other.keys:
            if key not in where:
                where[key] = len(keys)
                keys.append(key)
        k = len(keys)
        rows = np.array([where[key] for key in other.keys], dtype=np.int64)

        def grow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            out = np.zeros((k, *a.shape[1:]), dtype=a.dtype)
            out[: len(a)] = a
            out[rows] += b
            return out

        squares = None if self.squares is None or other.squares is None else grow(self.squares, other.squares)
        return NeutralityStats(self.taus, keys, grow(self.count, other.count), grow(self.sums, other.sums),
                               grow(self.argmax, other.argmax), grow(self.above, other.above), squares)

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
        """The statistics of the pairs whose premise word / hypothesis word is (one of) the given."""
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

    def intervals(self, level: float = DEFAULT_LEVEL) -> dict[str, dict[str, ScoreInterval | None]]:
        """``{"pairs": {measure: interval}, "word_pairs": {...}}`` with the keys of :meth:`pair_level`.

        Over sentence pairs: NN's t interval of the mean neutral probability (from ``sum n_i`` and
        ``squares``), FN's and T:tau's Wilson score intervals of the share. Over word pairs: the same over
        the word pairs' template means (t for NN, Wilson for FN and T:tau). Both treat the units as
        independent draws, which templates shared across word pairs make them only approximately.
        """
        self._nonempty()
        n, k = self.n_pairs, self.n_word_pairs
        M = self.word_pair_means()
        pair_shares = [("fraction_neutral", int(self.argmax[:, 1].sum()))]
        pair_shares += [(threshold_key(t), int(self.above[:, j].sum())) for j, t in enumerate(self.taus)]
        word_shares = [("fraction_neutral", int(np.sum(M.argmax(axis=1) == 1)))]
        word_shares += [(threshold_key(t), int(np.sum(M[:, 1] > t))) for t in self.taus]
        out: dict[str, dict[str, ScoreInterval | None]] = {}
        for name, size, what, shares in (("pairs", n, f"the {n:,} sentence pairs", pair_shares),
                                         ("word_pairs", k, f"the {k:,} word pairs' template means", word_shares)):
            method = f"t interval of the mean neutral probability over {what}"
            if name == "word_pairs":
                nn = t_interval(M[:, 1], level=level, method=method)
            elif self.squares is not None:
                nn = t_interval_from_sums(float(self.sums[:, 1].sum()), float(self.squares.sum()), n, level=level,
                                          method=method)
            else:
                nn = None
            out[name] = {"net_neutral": nn}
            for measure, hits in shares:
                out[name][measure] = wilson_interval(hits, size, level=level, method="Wilson score interval of the "
                                                     f"share of {what} counted ({hits:,} of {size:,})")
        return out

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
    """Intervals over sampled sentence pairs: ``{"nn": (low, high), "fn": (low, high)}``, the t interval of
    the mean of ``neutral`` (NN) and the Wilson score interval of the share ``is_neutral`` (FN)."""
    nn = t_interval(np.asarray(neutral, dtype=np.float64), level=level)
    hits = np.asarray(is_neutral, dtype=bool)
    fn = wilson_interval(int(hits.sum()), int(hits.size), level=level)
    nan = (float("nan"), float("nan"))
    return {"nn": nan if nn is None else (nn.low, nn.high), "fn": nan if fn is None else (fn.low, fn.high)}
