"""CEAT: the Contextualized Embedding Association Test (Guo & Caliskan 2021, AIES).

A contextual encoder gives each word many vectors, one per sentence holding it. CEAT draws one vector per
word at random, ``N`` times; each draw is an ordinary WEAT on those vectors, and the ``N`` effect sizes are
combined by a random-effects meta-analysis (their ``code/ceat.py`` in ``weiguowilliam/CEAT``).

One sample i (every word of X, Y, A, B gets one of its contexts, uniformly and independently):

- ``s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b)`` (Caliskan et al. 2017, :func:`.per_word_association`);
- ``e_i = (mean_x s(x) - mean_y s(y)) / std_{w in X u Y} s(w)``, std with ``ddof=1``;
- ``v_i = var_{w in X u Y} s(w)`` with ``ddof=1``: the authors call it the sample's *variance* and weigh by
  it. It is the square of d's denominator, **not** the sampling variance of d; we keep their convention.

Random effects by DerSimonian & Laird (1986), as their ``ceat_meta``:

- ``w_i = 1 / v_i``; ``Q = sum w_i e_i^2 - (sum w_i e_i)^2 / sum w_i``; ``df = N - 1``;
- ``tau^2 = (Q - df) / (sum w_i - sum w_i^2 / sum w_i)`` when ``Q > df``, else 0 (and 0 for one sample, where
  the denominator is 0: one sample has no between-sample spread to estimate);
- ``w*_i = 1 / (v_i + tau^2)``; combined ``ES = sum w*_i e_i / sum w*_i``, ``Var(ES) = 1 / sum w*_i``;
- ``p = 1 - Phi(ES / sqrt(Var(ES)))``, one-sided, as theirs;
- added here: ``I^2 = max(0, (Q - df) / Q)`` (Higgins & Thompson 2002; 0 when Q = 0 or N = 1) and the interval
  ``ES +- z_{(1+level)/2} sqrt(Var(ES))`` (1.96 at 95%).

This combination treats the N samples as independent studies, but they reuse the same few words and contexts:
its interval and p are a reproduction of the paper, not valid inference (they shrink as N grows, whatever the
words). :func:`~embias_widgets.metrics.ceat_inference.ceat_test` gives the valid interval and p.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from .association import cosine_matrix, unit_rows
from .validation import check_options

SET_NAMES = ("X", "Y", "A", "B")
VARIANCE_CONVENTION = (
    "Guo & Caliskan's 'variance': the ddof=1 variance of s(w, A, B) over X u Y in the sample (the square of "
    "d's denominator), not the sampling variance of d"
)
_CHUNK_BYTES = 64 * 2**20  # gathered vectors (or cosines) per chunk of samples
_FULL_COSINES = 2**23  # target x attribute contexts up to which every cosine is computed once (64 MiB)
MAX_CEAT_SAMPLES = 1_000_000
"""Most samples one CEAT run may draw (the paper's N is 10,000): every sample keeps one context index per word
and its effect size and variance, so 10^9 samples would need tens of GiB."""


def check_n_samples(n_samples: object) -> int:
    """``n_samples`` as an int, or a ``ValueError`` naming it and its range (1 to :data:`MAX_CEAT_SAMPLES`)."""
    whole = isinstance(n_samples, int | np.integer) and not isinstance(n_samples, bool | np.bool_)
    if not whole or not 1 <= int(n_samples) <= MAX_CEAT_SAMPLES:
        raise ValueError(f"`n_samples` must be a whole number from 1 to {MAX_CEAT_SAMPLES:,} (the paper: 10,000), "
                         f"got {n_samples!r}")
    return int(n_samples)


@dataclass(frozen=True)
class MetaAnalysis:
    """A DerSimonian-Laird random-effects combination of effect sizes (see the module docstring).

    Attributes
    ----------
    combined_effect_size, standard_error
        ``ES = sum w*_i e_i / sum w*_i`` and ``sqrt(1 / sum w*_i)``.
    interval, level
        ``ES +- z sqrt(Var(ES))`` at ``level`` (normal quantile).
    q, df, tau_squared, i_squared
        Cochran's Q, ``N - 1``, the between-sample variance and the share of Q beyond chance.
    p_value
        One-sided ``1 - Phi(ES / SE)`` (Guo & Caliskan's ``ceat_meta``).
    n
        How many effect sizes were combined.
    """

    combined_effect_size: float
    standard_error: float
    interval: tuple[float, float]
    level: float
    q: float
    df: int
    tau_squared: float
    i_squared: float
    p_value: float
    n: int


@dataclass(frozen=True)
class CeatSamples:
    """The ``N`` draws of a CEAT run: each sample's effect size ``e_i``, 'variance' ``v_i`` and chosen contexts.

    ``indices[i, j]`` is the context (row of that word's array) drawn for word j in sample i, words in the order
    X, Y, A, B as given.
    """

    effect_sizes: np.ndarray
    variances: np.ndarray
    indices: np.ndarray


def random_effects(effect_sizes: Sequence[float] | np.ndarray, variances: Sequence[float] | np.ndarray, *,
                   level: float = 0.95) -> MetaAnalysis:
    """Combine effect sizes ``e_i`` with within-sample variances ``v_i`` by DerSimonian-Laird random effects.

    Formulas in the module docstring (Guo & Caliskan 2021's ``ceat_meta``; DerSimonian & Laird 1986). Every
    ``v_i`` must be positive and finite (``w_i = 1 / v_i``).
    """
    check_options(confidence_level=level)
    e = np.asarray(effect_sizes, dtype=np.float64).ravel()
    v = np.asarray(variances, dtype=np.float64).ravel()
    if e.size == 0 or e.shape != v.shape:
        raise ValueError(f"give one variance per effect size (got {e.size} effect sizes and {v.size} variances)")
    bad = np.flatnonzero(~np.isfinite(e) | ~np.isfinite(v) | (v <= 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"sample {i} has effect size {e[i]!r} and variance {v[i]!r}: a random-effects weight "
                         "1/v needs a finite effect size and a positive, finite variance")
    w = 1.0 / v
    sum_w = w.sum()
    q = float(np.sum(w * e**2) - np.sum(w * e) ** 2 / sum_w)
    df = e.size - 1
    c = sum_w - np.sum(w**2) / sum_w  # 0 for one sample (and rounding can leave q a hair above df = 0)
    tau2 = (q - df) / c if q > df and df > 0 and c > 0 else 0.0
    w_star = 1.0 / (v + tau2)
    es = float(np.sum(w_star * e) / np.sum(w_star))
    se = float(np.sqrt(1.0 / np.sum(w_star)))
    from scipy import stats  # here, not at import: scipy.stats costs about 1 s to import

    half = float(stats.norm.ppf(0.5 + level / 2)) * se
    i2 = max(0.0, (q - df) / q) if q > 0 and df > 0 else 0.0
    return MetaAnalysis(
        combined_effect_size=es, standard_error=se, interval=(es - half, es + half), level=float(level),
        q=q, df=df, tau_squared=float(tau2), i_squared=float(i2), p_value=float(stats.norm.sf(es / se)), n=int(e.size),
    )


def _word_arrays(sets: Sequence[Sequence[np.ndarray]]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Stack every word's contexts (unit rows); each word's count and each set's size."""
    arrays, sizes = [], []
    for name, words in zip(SET_NAMES, sets, strict=True):
        if len(words) == 0:
            raise ValueError(f"set {name} has no words with contexts: CEAT needs at least one word in each set")
        sizes.append(len(words))
        for j, contexts in enumerate(words):
            arr = np.asarray(contexts, dtype=np.float64)
            if arr.ndim != 2 or arr.shape[0] == 0:
                raise ValueError(f"word {j} of set {name} needs a 2-D array of at least one context vector, "
                                 f"got shape {arr.shape}")
            arrays.append(arr)
    if len({a.shape[1] for a in arrays}) != 1:
        dims = sorted({a.shape[1] for a in arrays})
        raise ValueError(f"every context vector must have the same dimension, got {dims}")
    if sizes[0] + sizes[1] < 2:
        raise ValueError("X and Y together need at least 2 words: the ddof=1 standard deviation of s(w) needs two")
    counts = np.array([len(a) for a in arrays])
    stacked = unit_rows(np.vstack(arrays), name="context vectors")
    if not np.isfinite(stacked).all():
        raise ValueError("a context vector holds NaN or an infinite value: fix or drop that context")
    return stacked, counts, sizes


def ceat_samples(X: Sequence[np.ndarray], Y: Sequence[np.ndarray], A: Sequence[np.ndarray],
                 B: Sequence[np.ndarray], *, n_samples: int, rng: np.random.Generator | int | None = None,
                 indices: np.ndarray | None = None) -> CeatSamples:
    """Draw one context per word ``n_samples`` times; each draw's WEAT ``e_i`` and 'variance' ``v_i``.

    ``X, Y, A, B``: one array per word, ``(its contexts, dim)``. Contexts are drawn uniformly and independently
    per word (``rng.integers``), or taken from ``indices`` (``(n_samples, words)``, words in the order X, Y, A,
    B) to replay given draws. Vectorised over chunks of samples (:func:`_sample_associations`); ``s``, ``e_i``
    and ``v_i`` are as :func:`.per_word_association` and :func:`.effect_size` (``ddof=1``) compute them per
    sample. A sample whose ``s`` has zero variance is an error naming it (``e_i`` is undefined there).
    """
    check_options(seed=rng)
    n_samples = check_n_samples(n_samples)
    stacked, counts, sizes = _word_arrays((X, Y, A, B))
    return _draw_samples(stacked, counts, sizes, n_samples, np.random.default_rng(rng) if indices is None else None,
                         indices)[0]


def _draw_samples(stacked: np.ndarray, counts: np.ndarray, sizes: list[int], n_samples: int,
                  rng: np.random.Generator | None, indices: np.ndarray | None = None) -> tuple[CeatSamples, np.ndarray]:
    """The samples (see :func:`ceat_samples`) and ``m_j = mean_i s_ij / sd_i``, each target word's association
    over the samples in units of its sample's spread (so ``mean_i e_i = mean_X m - mean_Y m``)."""
    nx, ny, na, _ = sizes
    if indices is None:
        indices = rng.integers(0, counts, size=(n_samples, counts.size))
    indices = np.asarray(indices)
    if indices.shape != (n_samples, counts.size) or (indices < 0).any() or (indices >= counts).any():
        raise ValueError(f"`indices` must be ({n_samples}, {counts.size}) context numbers, each below its word's "
                         "number of contexts")
    rows = np.concatenate([[0], np.cumsum(counts)[:-1]]) + indices
    e, v = np.empty(n_samples), np.empty(n_samples)
    standardised = np.zeros(nx + ny)
    for part, s in _sample_associations(stacked, counts, rows, nx + ny, na):
        v[part] = s.var(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):  # a zero variance is reported below
            sd = np.sqrt(v[part])
            e[part] = (s[:, :nx].mean(axis=1) - s[:, nx:].mean(axis=1)) / sd
            standardised += (s / sd[:, None]).sum(axis=0)
    zero = np.flatnonzero(~(v > 0))
    if zero.size:
        raise ValueError(f"sample {int(zero[0])}: every target word has the same association s(w, A, B), so its "
                         "effect size is undefined; use contexts that tell the words apart")
    return CeatSamples(effect_sizes=e, variances=v, indices=indices), standardised / n_samples


def _sample_associations(stacked: np.ndarray, counts: np.ndarray, rows: np.ndarray, t: int,
                         na: int) -> Iterator[tuple[slice, np.ndarray]]:
    """``s(w, A, B)`` of every target word in each sample, ``(samples, |X| + |Y|)``, chunk by chunk.

    With at most :data:`_FULL_COSINES` target x attribute contexts, every cosine is computed once
    (:func:`.cosine_matrix`) and each sample gathers its own; otherwise each chunk gathers the drawn vectors and
    multiplies them. Either way ``s`` is :func:`.per_word_association`'s mean variant.
    """
    n_target_rows = int(counts[:t].sum())
    n = len(rows)
    if n_target_rows * (len(stacked) - n_target_rows) <= _FULL_COSINES:
        cos = cosine_matrix(stacked[:n_target_rows], stacked[n_target_rows:])
        chunk = max(1, _CHUNK_BYTES // (t * (rows.shape[1] - t) * 8))
        for start in range(0, n, chunk):
            r = rows[start : start + chunk]
            rt, ra, rb = r[:, :t, None], r[:, None, t : t + na] - n_target_rows, r[:, None, t + na :] - n_target_rows
            yield slice(start, start + chunk), cos[rt, ra].mean(axis=2) - cos[rt, rb].mean(axis=2)
        return
    chunk = max(1, _CHUNK_BYTES // (rows.shape[1] * stacked.shape[1] * 8))
    for start in range(0, n, chunk):
        gathered = stacked[rows[start : start + chunk]]  # (c, words, dim)
        targets = gathered[:, :t]
        yield slice(start, start + chunk), (
            np.matmul(targets, gathered[:, t : t + na].transpose(0, 2, 1)).mean(axis=2)
            - np.matmul(targets, gathered[:, t + na :].transpose(0, 2, 1)).mean(axis=2))
