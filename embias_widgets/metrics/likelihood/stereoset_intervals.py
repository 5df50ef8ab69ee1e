"""Target (cluster) bootstrap intervals of StereoSet's SS, LMS and ICAT (Nadeem et al. 2021).

The items of one target share its context sentences and its annotators' stereotypes, so they are not
independent draws: the unit of resampling is the **target** (a cluster bootstrap; Davison & Hinkley 1997,
section 3.8; Field & Welsh 2007). Each replicate draws the ``T`` targets with replacement (seeded; the
indices drawn as scipy's ``bootstrap`` draws them, ``rng.integers(0, T, (n_resamples, T))``), keeps every
item of a drawn target, and recomputes each score exactly as the official aggregation does
(:func:`~.stereoset.stereoset_from_comparisons`): per target ``SS_t = 100 #(stereo > anti) / n_t`` and
``LMS_t = 100 (#(stereo > unrelated) + #(anti > unrelated)) / 2 n_t``, averaged over the drawn targets
(``average="target"``, each draw counted) or pooled over their items (``average="item"``). Without targets
every item is its own unit. SS and LMS take the percentile interval of their replicates (Efron 1979), expanded
for the number of units as Hesterberg (2015) proposes
(:func:`~embias_widgets.metrics.score_intervals.expanded_level` with ``n - 1`` degrees of freedom): the plain
percentile interval of a mean over ``n`` clusters is too narrow by about ``sqrt((n - 1)/n)`` and by its normal
tails.

**ICAT** ``= LMS min(SS, 100 - SS) / 50``. Its estimand is the population's ICAT, ``LMS min(SS, 100 - SS)
/ 50`` of the population's SS and LMS. ``min`` has a kink at SS = 50: there the estimate is biased low (its
SS part can only lose) and the percentile interval of the replicates, lower still, misses the truth in about
a quarter of runs. The interval is therefore the (expanded) percentile interval of the replicates' ICAT,
with its upper end raised to LMS's upper end whenever SS's interval holds 50: the true ICAT may then be as high as
LMS (``min(SS, 100 - SS) / 50 <= 1``), and LMS's upper end bounds it. Away from 50 the kink is out of reach
and the percentile interval stands.

Vectorised: per batch of replicates, the drawn targets' counts are one ``bincount`` over ``(replicate,
target)`` codes, and every score is a product of those counts with the per-target sums.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..score_intervals import (
    DEFAULT_LEVEL,
    ScoreInterval,
    bootstrap_indices,
    check_level,
    expanded_level,
    percentile_interval,
)
from ..validation import check_options

__all__ = ["DEFAULT_RESAMPLES", "StereoSetIntervals", "expanded_level", "stereoset_intervals"]

DEFAULT_RESAMPLES = 2_000
"""Bootstrap replicates of a StereoSet interval unless asked otherwise."""

FEW_TARGETS = 10
"""Below this many targets the method text warns that the interval is too narrow (the calibration suite's
StereoSet check: 0.72 coverage of SS with 3 targets, 0.91-0.97 from 10)."""


@dataclass(frozen=True)
class StereoSetIntervals:
    """Intervals of SS, LMS and ICAT and the replicates they come from (``(n_resamples, 3)``: SS, LMS, ICAT);
    ``units``: ``"targets"`` or ``"items"`` (what was resampled) and ``n_units`` how many."""

    ss: ScoreInterval | None
    lms: ScoreInterval | None
    icat: ScoreInterval | None
    replicates: np.ndarray
    n_resamples: int
    seed: int
    units: str = "targets"
    n_units: int = 0


def _unit_sums(stereo_wins: np.ndarray, related_wins: np.ndarray,
               codes: np.ndarray, n_units: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per unit: items, stereo wins and related wins."""
    count = np.bincount(codes, minlength=n_units).astype(np.float64)
    return (count, np.bincount(codes, weights=stereo_wins, minlength=n_units),
            np.bincount(codes, weights=related_wins, minlength=n_units))


def _replicates(count: np.ndarray, ss_sum: np.ndarray, lms_sum: np.ndarray, per_unit_mean: bool,
                idx: np.ndarray) -> np.ndarray:
    """``(len(idx), 2)``: SS and LMS of each replicate drawing units ``idx`` (one row of unit indices each)."""
    r, t = idx.shape
    draws = np.bincount((np.arange(r)[:, None] * t + idx).ravel(), minlength=r * t).reshape(r, t).astype(float)
    if per_unit_mean:  # official: the mean over the drawn targets of each target's percentage
        return np.column_stack([draws @ (100.0 * ss_sum / count), draws @ (100.0 * lms_sum / count)]) / t
    items = draws @ count
    return np.column_stack([100.0 * (draws @ ss_sum) / items, 100.0 * (draws @ lms_sum) / items])


def _percentile(reps: np.ndarray, level: float, wide: float, method: str) -> ScoreInterval | None:
    """The percentile interval at the expanded level ``wide``, labelled with the asked ``level``."""
    iv = percentile_interval(reps, level=level, percentiles=wide, method=method)
    return iv if isinstance(iv, ScoreInterval) else None


def _icat_interval(reps: np.ndarray, ss: ScoreInterval | None, lms: ScoreInterval | None, level: float,
                   wide: float, method: str) -> ScoreInterval | None:
    """The percentile interval of ICAT's replicates, its upper end raised to LMS's when SS's interval holds 50."""
    iv = _percentile(reps, level, wide, "")
    if iv is None or ss is None or lms is None:
        return iv
    kink = ss.low <= 50.0 <= ss.high
    high = max(iv.high, lms.high) if kink else iv.high
    how = ("SS's interval holds 50, so the upper end is LMS's upper end (ICAT can then equal LMS)" if kink else
           "SS's interval excludes 50, so the percentile interval stands")
    return ScoreInterval(iv.low, high, level, f"{method}; ICAT: that interval of the replicates' "
                         f"LMS min(SS, 100 - SS)/50, for the population's ICAT; {how}")


def stereoset_intervals(
    stereo_wins: Sequence[float] | np.ndarray,
    related_wins: Sequence[float] | np.ndarray,
    targets: Sequence[str] | None = None,
    *,
    average: str = "target",
    level: float = DEFAULT_LEVEL,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    batch: int = 256,
) -> StereoSetIntervals:
    """Target bootstrap intervals of SS, LMS and ICAT (see the module docstring).

    ``stereo_wins[i]`` is 1 when item i's stereotype beats its anti-stereotype; ``related_wins[i]`` the share
    (0, 1/2 or 1) of its two meaningful sentences that beat the unrelated one; ``targets`` one label per item
    (needed for ``average="target"``, the official scorer; without them the items are resampled).
    """
    level = check_level(level)
    check_options(n_resamples=n_resamples, seed=seed)
    if average not in ("target", "item"):
        raise ValueError(f"`average` must be 'target' or 'item', got {average!r}")
    sw = np.asarray(stereo_wins, dtype=np.float64)
    rw = np.asarray(related_wins, dtype=np.float64)
    if sw.ndim != 1 or sw.size == 0 or rw.shape != sw.shape:
        raise ValueError("`stereo_wins` and `related_wins` must be non-empty 1-D arrays of equal length (one per item)")
    if targets is not None and len(targets) != sw.size:
        raise ValueError(f"`targets` has {len(targets)} labels for {sw.size} items: give one per item")
    if average == "target" and targets is None:
        raise ValueError("`average='target'` needs one target per item; or pass average='item'")
    if targets is None:
        codes, units = np.arange(sw.size), "items"
    else:
        labels = {t: i for i, t in enumerate(dict.fromkeys(str(t) for t in targets))}
        codes, units = np.array([labels[str(t)] for t in targets], dtype=np.int64), "targets"
    n_units = int(codes.max()) + 1
    sums = _unit_sums(sw, rw, codes, n_units)
    idx = bootstrap_indices(np.random.default_rng(seed), n_units, int(n_resamples))  # one draw, as scipy's
    ss_lms = np.vstack([_replicates(*sums, average == "target" and units == "targets", idx[s:s + batch])
                        for s in range(0, idx.shape[0], batch)])
    ss, lms = ss_lms[:, 0], ss_lms[:, 1]
    reps = np.column_stack([ss, lms, lms * np.minimum(ss, 100.0 - ss) / 50.0])
    how = ("per target, then averaged over the drawn targets, as StereoSet's official scorer" if average == "target"
           else "pooled over the drawn units' items")
    what = (f"the {n_units} targets with replacement (a cluster bootstrap: a target's items are not independent), "
            "each with all its items" if units == "targets" else f"the {n_units} items with replacement (no targets "
            "given, so items are treated as independent)")
    method = f"{n_resamples} bootstrap replicates (seed {seed}) resampling {what}, each score recomputed {how}"
    wide = expanded_level(level, n_units - 1)
    method += (f"; expanded percentile interval (Hesterberg 2015: the {wide:.4g} percentiles, for {n_units} "
               "units)")
    if units == "targets" and n_units < FEW_TARGETS:
        method += (f"; only {n_units} targets: too few to learn the spread between targets, so the interval is too "
                   "narrow (about 0.7 coverage with 3 targets in simulation)")
    ss_iv = _percentile(ss, level, wide, method)
    lms_iv = _percentile(lms, level, wide, method)
    icat_iv = _icat_interval(reps[:, 2], ss_iv, lms_iv, level, wide, method)
    return StereoSetIntervals(ss_iv, lms_iv, icat_iv, replicates=reps, n_resamples=int(n_resamples), seed=int(seed),
                              units=units, n_units=n_units)
