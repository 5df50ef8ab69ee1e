"""Paired changes whose items are not independent: StereoSet by target, NLI by template and word pair, RIPA by
relation pair. One resample of the independent units serves both models (``../shared/docs/metrics.md`` 6c).

- **StereoSet** (Nadeem et al. 2021): the official scores average per-target scores, ``SS = mean_t SS_t`` and
  ``LMS = mean_t LMS_t``, so the change is ``mean_t (SS_t after - SS_t before)``. The cluster bootstrap
  resamples targets with replacement (a target drawn twice counts as two targets) and recomputes SS, LMS and
  ``ICAT = LMS min(SS, 100 - SS) / 50`` of each model on the same draw. SS and LMS are means of the targets'
  differences, so their interval is Student's t interval of those ``k`` differences (``t_{k-1}``: the percentile
  bootstrap undercovers with few targets, 0.89 at 10 in the calibration suite) and their test the sign-flip test
  over them (:func:`~.paired.sign_flip_test`); ICAT, not a mean, gets the percentile bootstrap and its p
  (:func:`~.paired.bootstrap_p_value`). ``targets=None`` makes every item its own cluster (``average="item"``).
- **NLI** (Dev et al. 2020): NN, FN and T:tau are means over sentence pairs that share templates and word
  pairs (a crossed design). The pigeonhole bootstrap (Owen 2007) draws templates and word pairs with
  replacement, independently; a sentence pair weighs ``count(template) x count(word pair)``, and each measure
  is the weighted mean, for both models on the same draw. Owen shows its variance is slightly larger than the
  true one; with few templates or word pairs the percentile interval still undercovers (the size of its test
  was 0.10 with 6 templates x 10 word pairs), so the interval is ``change +- t_{df} SE*`` with ``SE*`` the
  replicates' standard deviation and ``df = min(templates, word pairs) - 1``, and the test its two-sided t p.
- **RIPA** (Ethayarajh, Duvenaud & Hirst 2019): ``RIPA(w) = <w, b>`` with ``b`` the relation vector of the
  model's own pairs. Each replicate resamples the relation pairs (the same pair indices for both models),
  recomputes each model's ``b`` (top right singular vector of the difference matrix, sign such that the pairs'
  mean projection is positive) and every word's projection; per word the percentile interval of the change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .paired import (
    DEFAULT_PAIRED_RESAMPLES,
    PairedChange,
    bias_distance,
    bootstrap_p_value,
    interval_of,
    sign_flip_test,
)
from .score_intervals import DEFAULT_LEVEL, ScoreInterval, bootstrap_indices, check_level, resample_counts, t_interval
from .validation import check_options

__all__ = ["RipaChange", "neutrality_change", "ripa_change", "stereoset_change"]


def _codes(labels: Sequence[object], n: int, name: str) -> tuple[np.ndarray, int]:
    if len(labels) != n:
        raise ValueError(f"`{name}` has {len(labels)} labels for {n} items: give one per item")
    where: dict[str, int] = {}
    codes = np.array([where.setdefault(str(t), len(where)) for t in labels], dtype=np.int64)
    return codes, len(where)


def _per_cluster(values: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, weights=values, minlength=k) / np.bincount(codes, minlength=k)


def _icat(ss: np.ndarray, lms: np.ndarray) -> np.ndarray:
    return lms * np.minimum(ss, 100.0 - ss) / 50.0


def stereoset_change(
    stereo_wins: tuple[Sequence[float], Sequence[float]],
    related_wins: tuple[Sequence[float], Sequence[float]],
    targets: Sequence[str] | None,
    *,
    level: float = DEFAULT_LEVEL,
    n_resamples: int = DEFAULT_PAIRED_RESAMPLES,
    rng: np.random.Generator | int | None = None,
) -> dict[str, PairedChange]:
    """``{"ss", "lms", "icat"}``: the change in each StereoSet score between two models on the same items.

    ``stereo_wins = (before, after)``: per item 1 when the stereotype beats the anti-stereotype;
    ``related_wins = (before, after)``: per item the share (0, 1/2, 1) of its meaningful sentences that beat the
    unrelated one; ``targets`` one label per item (None: items are their own clusters). See the module
    docstring for the resampling and the tests; SS's bias is ``|SS - 50|``, LMS's and ICAT's the distance
    below 100."""
    level = check_level(level)
    check_options(n_resamples=n_resamples, seed=rng)
    sw = [np.asarray(w, dtype=np.float64) for w in stereo_wins]
    rw = [np.asarray(w, dtype=np.float64) for w in related_wins]
    n = sw[0].size
    if n == 0 or any(a.ndim != 1 or a.size != n for a in (*sw, *rw)):
        raise ValueError("the wins of both models must be non-empty 1-D arrays of one length (one per item, the "
                         "same items in the same order)")
    codes, k = _codes(targets, n, "targets") if targets is not None else (np.arange(n), n)
    per = {name: [_per_cluster(w[m], codes, k) for m in range(2)] for name, w in (("ss", sw), ("lms", rw))}
    per = {name: [100.0 * v for v in vs] for name, vs in per.items()}
    gen = np.random.default_rng(rng)
    idx = bootstrap_indices(gen, k, int(n_resamples))
    reps = {name: [vs[m][idx].mean(axis=1) for m in range(2)] for name, vs in per.items()}
    reps["icat"] = [_icat(reps["ss"][m], reps["lms"][m]) for m in range(2)]
    point = {name: [float(vs[m].mean()) for m in range(2)] for name, vs in per.items()}
    point["icat"] = [float(_icat(np.float64(point["ss"][m]), np.float64(point["lms"][m]))) for m in range(2)]
    unit = "targets" if targets is not None else "items"
    method = (f"paired cluster bootstrap: {n_resamples} replicates resampling the {k} {unit} with replacement "
              "(the same draw for both models), each score recomputed per target and averaged")
    out: dict[str, PairedChange] = {}
    for name, ref, better in (("ss", 50.0, False), ("lms", 100.0, True), ("icat", 100.0, True)):
        before, after = point[name]
        change_reps = reps[name][1] - reps[name][0]
        interval = interval_of(change_reps, level, method)
        if name == "icat":
            p, how = bootstrap_p_value(change_reps), "bootstrap p (percentile interval inverted), two-sided"
        else:
            diffs = per[name][1] - per[name][0]
            p, exact = sign_flip_test(diffs, n_resamples=10_000, rng=gen)
            how = (f"sign-flip test over the {k} {unit}' differences, two-sided, "
                   + ("exact" if exact else "10,000 random sign patterns (+1 adjusted)"))
            interval = t_interval(diffs, level=level, method=f"Student's t interval of the mean of the {k} {unit}' "
                                  f"differences (t with {k - 1} degrees of freedom)")
        bias_reps = bias_distance(reps[name][1], ref, higher_is_better=better) - \
            bias_distance(reps[name][0], ref, higher_is_better=better)
        out[name] = PairedChange(
            before=before, after=after, change=after - before, interval=interval,
            p_value=p, test=how, reference=ref,
            bias_change=float(bias_distance(after, ref, higher_is_better=better)
                              - bias_distance(before, ref, higher_is_better=better)),
            bias_interval=interval_of(bias_reps, level, method), n=k, counts={"items": n, "clusters": k},
            replicates=change_reps)
    return out


def _item_measures(probs: np.ndarray, taus: Sequence[float]) -> dict[str, np.ndarray]:
    out = {"net_neutral": probs[:, 1], "fraction_neutral": (probs.argmax(axis=1) == 1).astype(np.float64)}
    for tau in taus:
        out[f"threshold_{float(tau):g}"] = (probs[:, 1] > tau).astype(np.float64)
    return out


def neutrality_change(
    probs: tuple[np.ndarray, np.ndarray],
    templates: Sequence[str],
    word_pairs: Sequence[str],
    *,
    taus: Sequence[float] = (0.5, 0.7),
    level: float = DEFAULT_LEVEL,
    n_resamples: int = DEFAULT_PAIRED_RESAMPLES,
    rng: np.random.Generator | int | None = None,
    batch: int = 128,
) -> dict[str, PairedChange]:
    """``{"net_neutral", "fraction_neutral", "threshold_<tau>"}``: the change in each NLI neutrality measure over
    sentence pairs between two models on the same pairs, by the two-way pigeonhole bootstrap over templates and
    word pairs (see the module docstring). ``probs = (before, after)``, each ``(n, 3)`` (entailment, neutral,
    contradiction); ``templates`` and ``word_pairs`` one label per sentence pair. Bias is ``1 - measure``."""
    level = check_level(level)
    check_options(n_resamples=n_resamples, seed=rng)
    P = [np.asarray(p, dtype=np.float64) for p in probs]
    if P[0].ndim != 2 or P[0].shape[1] != 3 or P[0].shape != P[1].shape or len(P[0]) == 0:
        raise ValueError("`probs` must be two (n, 3) arrays of one shape (the same sentence pairs in the same order)")
    if not all(np.all(np.isfinite(p)) for p in P):
        raise ValueError("`probs` hold a NaN or infinite probability")
    n = len(P[0])
    t_codes, n_t = _codes(templates, n, "templates")
    w_codes, n_w = _codes(word_pairs, n, "word_pairs")
    measures = [_item_measures(p, taus) for p in P]
    names = list(measures[0])
    X = [np.column_stack([m[k] for k in names]) for m in measures]  # (n, measures)
    gen = np.random.default_rng(rng)
    it = bootstrap_indices(gen, n_t, int(n_resamples))
    iw = bootstrap_indices(gen, n_w, int(n_resamples))
    reps = [np.empty((int(n_resamples), len(names))) for _ in range(2)]
    for s in range(0, int(n_resamples), batch):
        r = min(batch, int(n_resamples) - s)
        ct, cw = resample_counts(it[s:s + r], n_t), resample_counts(iw[s:s + r], n_w)
        weights = ct[:, t_codes] * cw[:, w_codes]  # (r, n)
        total = weights.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            for m in range(2):
                reps[m][s:s + r] = (weights @ X[m]) / total
    from scipy import stats

    df = max(1, min(n_t, n_w) - 1)
    q = float(stats.t.ppf((1 + level) / 2, df))
    method = (f"paired two-way (pigeonhole) bootstrap standard error: {n_resamples} replicates resampling the {n_t} "
              f"templates and the {n_w} word pairs with replacement, independently (a sentence pair weighs "
              f"count(template) x count(word pair); the same draw for both models); change +- t({df}) x SE")
    out = {}
    for j, name in enumerate(names):
        before, after = float(X[0][:, j].mean()), float(X[1][:, j].mean())
        change_reps = reps[1][:, j] - reps[0][:, j]
        finite = change_reps[np.isfinite(change_reps)]
        se = float(finite.std(ddof=1)) if finite.size > 1 else float("nan")
        change = after - before
        interval = ScoreInterval(change - q * se, change + q * se, level, method) if np.isfinite(se) else None
        p = float(2 * stats.t.sf(abs(change) / se, df)) if se > 0 else (1.0 if change == 0 else 0.0)
        bias_iv = None if interval is None else ScoreInterval(-interval.high, -interval.low, level, method)
        out[name] = PairedChange(
            before=before, after=after, change=change, interval=interval, p_value=p,
            test=f"t test of the change with the bootstrap standard error, {df} degrees of freedom, two-sided",
            reference=1.0, bias_change=before - after, bias_interval=bias_iv, n=n,
            counts={"sentence_pairs": n, "templates": n_t, "word_pairs": n_w}, replicates=change_reps)
    return out


@dataclass(frozen=True)
class RipaChange:
    """Per word: RIPA under each model, the change, its interval (``low``, ``high``), and the change in the mean
    ``|RIPA|`` over the words (a :class:`~.paired.PairedChange`, reference 0)."""

    before: np.ndarray
    after: np.ndarray
    change: np.ndarray
    low: np.ndarray
    high: np.ndarray
    level: float
    method: str
    mean_abs: PairedChange


def _ripa_replicates(D: np.ndarray, W: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """RIPA of every row of ``W`` along the relation vector of each replicate's pair ``counts``: ``(r, words)``.

    With ``D_r^T D_r = D^T diag(c) D``, the top right singular vector is ``D^T sqrt(c) u / ||.||``, ``u`` the top
    eigenvector of ``sqrt(c) D D^T sqrt(c)`` (so a batched ``(p, p)`` eigh, never a ``dim``-sized SVD)."""
    G, P = D @ D.T, W @ D.T
    sq = np.sqrt(counts)
    values, vectors = np.linalg.eigh(sq[:, :, None] * G[None] * sq[:, None, :])
    a = sq * vectors[:, :, -1]
    norm = np.sqrt(np.einsum("ri,ij,rj->r", a, G, a))
    defined = (values[:, -1] > 0) & (norm > 0)
    norm = np.where(defined, norm, 1.0)
    sign = np.sign(np.einsum("ri,ij,rj->r", counts, G, a))
    sign[sign == 0] = 1.0
    scores = (a @ P.T) * (sign / norm)[:, None]
    scores[~defined] = np.nan
    return scores


def ripa_change(
    pairs: tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
    words: tuple[np.ndarray, np.ndarray],
    *,
    level: float = DEFAULT_LEVEL,
    n_resamples: int = 1_000,
    rng: np.random.Generator | int | None = None,
) -> RipaChange:
    """Per word, the change in RIPA between two models, paired over the relation pairs (module docstring).

    ``pairs = ((X_before, Y_before), (X_after, Y_after))``: each model's vectors of the same ordered pairs
    (rows); ``words = (W_before, W_after)``: each model's vectors of the same words. The dimensions of the two
    models may differ (each is measured along its own relation vector)."""
    level = check_level(level)
    check_options(n_resamples=n_resamples, seed=rng)
    D = [np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64) for x, y in pairs]
    W = [np.asarray(w, dtype=np.float64) for w in words]
    if D[0].shape[0] != D[1].shape[0] or D[0].shape[0] < 2 or W[0].shape[0] != W[1].shape[0]:
        raise ValueError("both models need the same relation pairs (at least 2) and the same words")
    if any(w.ndim != 2 or w.shape[1] != d.shape[1] for w, d in zip(W, D, strict=True)):
        raise ValueError("each model's word vectors must have the dimension of its pair vectors")
    p = D[0].shape[0]
    full = np.ones((1, p))
    point = [_ripa_replicates(d, w, full)[0] for d, w in zip(D, W, strict=True)]
    idx = bootstrap_indices(np.random.default_rng(rng), p, int(n_resamples))
    counts = resample_counts(idx, p)
    reps = [_ripa_replicates(d, w, counts) for d, w in zip(D, W, strict=True)]
    change = reps[1] - reps[0]
    tails = [(1.0 - level) / 2.0, (1.0 + level) / 2.0]
    low, high = np.nanquantile(change, tails, axis=0) if W[0].shape[0] else (np.zeros(0), np.zeros(0))
    method = (f"paired percentile bootstrap: {n_resamples} replicates resampling the {p} relation pairs with "
              "replacement (the same pairs for both models), each model's relation vector recomputed")
    mean_abs = [np.nanmean(np.abs(r), axis=1) for r in reps]
    mean_reps = mean_abs[1] - mean_abs[0]
    before, after = float(np.mean(np.abs(point[0]))), float(np.mean(np.abs(point[1])))
    summary = PairedChange(before=before, after=after, change=after - before,
                           interval=interval_of(mean_reps, level, method), p_value=bootstrap_p_value(mean_reps),
                           test="bootstrap p (percentile interval inverted), two-sided", reference=0.0,
                           bias_change=after - before, bias_interval=interval_of(mean_reps, level, method),
                           n=p, counts={"pairs": p, "words": int(W[0].shape[0])}, replicates=mean_reps)
    return RipaChange(point[0], point[1], point[1] - point[0], np.asarray(low), np.asarray(high), level, method,
                      summary)
