"""StereoSet SS, LMS and ICAT: items clustered by target, with target-level random effects.

Target t has ``m_t`` items (21-32, as StereoSet's intrasentence dev set: 2,106 items over 79 targets), a
probability ``p_t ~ Beta(ss phi, (1 - ss) phi)`` that an item's stereotype beats its anti-stereotype and
``q_t ~ Beta(lms phi, (1 - lms) phi)`` that a meaningful sentence beats the unrelated one. The official
scorer averages per-target percentages over targets, so the population's SS is ``100 E[p_t] = 100 ss``, its
LMS ``100 lms``, and its ICAT ``LMS min(SS, 100 - SS) / 50``. Measured: the target bootstrap
(``stereoset_from_comparisons(...).intervals``) against the item bootstrap it replaces (before: items resampled
as if independent, each replicate averaged over its targets, percentile intervals).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.metrics.likelihood import stereoset_from_comparisons

from .core import Check, Outcome

RESAMPLES = 1_000
LMS = 0.85


def draw_items(rng: np.random.Generator, targets: int, ss: float, lms: float,
               phi: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per item: stereo beats anti, stereo beats unrelated, anti beats unrelated, and its target's index."""
    m = rng.integers(21, 33, targets)
    p = rng.beta(ss * phi, (1 - ss) * phi, targets)
    q = rng.beta(lms * phi, (1 - lms) * phi, targets)
    t = np.repeat(np.arange(targets), m)
    return rng.random(t.size) < p[t], rng.random(t.size) < q[t], rng.random(t.size) < q[t], t


def item_bootstrap(stereo_wins: np.ndarray, related_wins: np.ndarray, t: np.ndarray, rng: np.random.Generator,
                   n_resamples: int, level: float = 0.95) -> np.ndarray:
    """Before: the item bootstrap this release replaces (items drawn with replacement, SS and LMS averaged over
    the targets present in the replicate, ICAT from those; percentile). ``(3, 2)``: SS, LMS, ICAT low/high."""
    n, k = t.size, int(t.max()) + 1
    idx = rng.integers(0, n, (n_resamples, n))
    flat = (np.arange(n_resamples)[:, None] * k + t[idx]).ravel()
    count = np.bincount(flat, minlength=n_resamples * k).reshape(n_resamples, k)
    present = count > 0
    reps = []
    for wins in (stereo_wins, related_wins):
        sums = np.bincount(flat, weights=wins[idx].ravel(), minlength=n_resamples * k).reshape(n_resamples, k)
        reps.append(np.where(present, 100 * sums / np.maximum(count, 1), 0).sum(axis=1) / present.sum(axis=1))
    ss, lms = reps
    icat = lms * np.minimum(ss, 100 - ss) / 50
    tails = [(1 - level) / 2, (1 + level) / 2]
    return np.array([np.quantile(r, tails) for r in (ss, lms, icat)])


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    ss, phi, targets = params["ss"], params["phi"], params["targets"]
    sa, su, au, t = draw_items(rng, targets, ss, LMS, phi)
    truth = (100 * ss, 100 * LMS, 100 * LMS * min(ss, 1 - ss) / 0.5)
    score = stereoset_from_comparisons(sa, su, au, targets=[f"t{i}" for i in t])
    ivs = score.intervals(n_resamples=RESAMPLES, seed=int(rng.integers(2**31)))
    out = {}
    for name, iv, true in zip(("ss", "lms", "icat"), (ivs.ss, ivs.lms, ivs.icat), truth, strict=True):
        out[f"{name}_covered"] = iv.low <= true <= iv.high
    old = item_bootstrap(sa.astype(float), (su.astype(float) + au) / 2, t, rng, RESAMPLES)
    for name, (low, high), true in zip(("ss", "lms", "icat"), old, truth, strict=True):
        out[f"old_{name}_covered"] = low <= true <= high
    return out


FAST = [{"targets": 79, "ss": 0.5, "phi": 8.0}, {"targets": 30, "ss": 0.6, "phi": 8.0}]
#: The fast grid's bands (the Monte Carlo error of 200 replicates); the full grid holds the promise. A fast
#: setting is known by identity (the runner passes the grid's own dicts).
CI_BANDS = {"ss_covered": (0.90, 0.99), "lms_covered": (0.90, 0.99), "icat_covered": (0.88, 0.99)}


def _bands(params: dict[str, Any]) -> dict[str, tuple[float, float] | None]:
    if any(params is f for f in FAST):
        return CI_BANDS
    if params["targets"] < 10:  # a bootstrap over a handful of clusters: reported, the docs and output say so
        return {"ss_covered": None, "lms_covered": None, "icat_covered": None}
    return {}


CHECKS = [
    Check(
        name="stereoset",
        description="StereoSet items (21-32 a target) clustered by target, target-level Beta(phi) random effects "
                    "on P(stereotype wins) (mean ss) and P(meaningful wins) (mean 0.85)",
        outcomes=[
            Outcome("ss_covered", "SS, target bootstrap percentile", "the population's SS (mean over targets)",
                    "coverage", (0.92, 0.98)),
            Outcome("lms_covered", "LMS, target bootstrap percentile", "the population's LMS", "coverage",
                    (0.92, 0.98)),
            Outcome("icat_covered", "ICAT, target bootstrap (upper end LMS's when SS's interval holds 50)",
                    "LMS min(SS, 100 - SS)/50 of the population's SS and LMS", "coverage", (0.90, 0.98)),
            Outcome("old_ss_covered", "before: SS, item bootstrap", "the population's SS", "coverage"),
            Outcome("old_lms_covered", "before: LMS, item bootstrap", "the population's LMS", "coverage"),
            Outcome("old_icat_covered", "before: ICAT, item bootstrap percentile", "the population's ICAT",
                    "coverage"),
        ],
        replicate=replicate,
        fast=FAST,
        full=[{"targets": k, "ss": s, "phi": p} for p in (8.0, 30.0) for s in (0.5, 0.52, 0.6)
              for k in (3, 10, 30, 79)],
        bands=_bands,
    ),
]
