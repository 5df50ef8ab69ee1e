"""The paired comparison of two models (``embias compare``): the size of each paired test when both models come
from the same distribution, the coverage of each paired interval, and the power under a planted shift
(:mod:`bench.calibration.dgp_paired`). Every replicate calls the library's public paired functions.

WEAT's change in d (``compare-weat``) also reports, per replicate:

- ``warned``: the change carries a ``warning`` (either model's attribute-noise share at least
  :data:`~embias_widgets.metrics.paired_association.ATTRIBUTE_NOISE_LIMIT`, and the two shares differ by at least
  :data:`~embias_widgets.metrics.paired_association.ATTRIBUTE_NOISE_GAP`);
- ``covered_or_warned``: the interval holds the true change, or the output warns that it may not: the promise
  where the interval alone cannot keep it. When the second model keeps only part of the association axis
  (``keep`` < 1, a partial projection debiasing) its population d hardly moves (d is a ratio: shrinking the
  axis shrinks its numerator and its spread alike), while d on 8-25 words falls far, because the attribute
  words' own spread then dominates the direction ``s`` is measured along; no interval around these words' d
  holds the population change there, so its coverage is reported, not held to a band;
- ``after_covered``: the single-model BCa interval (:func:`~embias_widgets.metrics.
  effect_size_interval_from_cosines`) of the second model alone holds that model's population d: it misses
  where the paired interval misses, so the cause lies in d's estimate on few words, not in the pairing.

The full grid runs 4x the replicates at the settings where the swap test's size is measured (a true size
about 0.057 lies within two Monte Carlo errors of the 0.07 promise at 300).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.metrics import effect_size_interval_from_cosines
from embias_widgets.metrics.paired import pair_score_change
from embias_widgets.metrics.paired_association import effect_size_change
from embias_widgets.metrics.paired_resampling import neutrality_change, stereoset_change

from . import dgp_paired as dgp
from .core import Check, Outcome
from .dgp_words import concepts, strength_for

RESAMPLES = 1_000
ALPHA = 0.05


def _covered(change: Any, truth: float) -> bool:
    return change.interval is not None and change.interval.low <= truth <= change.interval.high


def _outcomes(p: float | None, change: Any, truth: float, null: bool) -> dict[str, bool]:
    out = {"covered": _covered(change, truth)}
    rejects = p is not None and p < ALPHA
    out["size" if null else "power"] = bool(rejects)
    if null:
        out["interval_excludes_0"] = not _covered(change, 0.0)
    return out


def pairs_replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    before, after = dgp.draw_pairs(rng, params["n"], params["shift"])
    change = pair_score_change(before, after, n_resamples=RESAMPLES, rng=rng)
    truth = 0.0 if params["shift"] == 0 else dgp.pairs_change(params["shift"])
    return _outcomes(change.p_value, change, truth, params["shift"] == 0)


def words_replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    n, sigma, tau, tau2, keep = params["n"], 0.4, params["tau"], params["tau2"], params["keep"]
    t = strength_for(params["d"], sigma=sigma)
    words = concepts(t, sigma=sigma).draw(rng, (n, n, n, n))
    cos = []
    for noise, k in ((tau, 1.0), (tau2, keep)):
        X, Y, A, B = (dgp.view(w, rng, noise, k) for w in words)
        W = np.vstack([X, Y])
        W = W / np.linalg.norm(W, axis=1, keepdims=True)
        A, B = (m / np.linalg.norm(m, axis=1, keepdims=True) for m in (A, B))
        cos.append((W @ A.T, W @ B.T))
    change = effect_size_change(cos[0], cos[1], n, n_resamples=RESAMPLES, n_permutations=2_000, rng=rng)
    null = _words_null(params)
    d_after = 0.0 if t == 0 else dgp.words_d(t, sigma, tau2, keep)
    truth = 0.0 if null or t == 0 else d_after - dgp.words_d(t, sigma, tau, 1.0)
    out = _outcomes(change.p_value, change, truth, null)
    out["warned"] = change.warning is not None
    out["covered_or_warned"] = out["covered"] or out["warned"]
    alone = effect_size_interval_from_cosines(*cos[1], n, n_resamples=RESAMPLES, rng=rng)
    out["after_covered"] = bool(alone.low <= d_after <= alone.high)
    return out


def _words_null(params: dict[str, Any]) -> bool:
    return params["keep"] == 1.0 and params["tau2"] == params["tau"]


def stereoset_replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    wins, related, targets = dgp.draw_stereoset(rng, params["targets"], params["per_target"], params["shift"])
    got = stereoset_change((wins[0], wins[1]), (related[0], related[1]), targets, n_resamples=RESAMPLES, rng=rng)
    ss = got["ss"]
    truth = 0.0 if params["shift"] == 0 else dgp.stereoset_change(params["shift"], params["per_target"])
    return _outcomes(ss.p_value, ss, truth, params["shift"] == 0)


def nli_replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    probs, templates, words = dgp.draw_nli(rng, params["templates"], params["words"], params["shift"])
    nn = neutrality_change((probs[0], probs[1]), templates, words, n_resamples=RESAMPLES, rng=rng)["net_neutral"]
    truth = 0.0 if params["shift"] == 0 else dgp.nli_change(params["shift"])
    return _outcomes(nn.p_value, nn, truth, params["shift"] == 0)


def _outcome_list(test: str, interval: str, estimand: str, *, coverage_band: tuple[float, float] = (0.90, 0.99),
                  ) -> list[Outcome]:
    return [Outcome("covered", interval, estimand, "coverage", coverage_band),
            Outcome("size", f"{test} p < 0.05", "the two models from one distribution", "size", (0.0, 0.08)),
            Outcome("interval_excludes_0", f"{interval} excludes 0", "the two models from one distribution", "size",
                    (0.0, 0.08)),
            Outcome("power", f"{test} p < 0.05", "a planted shift", "power")]


CHECKS = [
    Check(
        name="compare-pairs",
        description="pair scores of two models on the same n pairs: each pair's propensity p ~ Beta(3, 2), each "
                    "model counts it with probability p (+ shift for the second)",
        outcomes=_outcome_list("McNemar's exact test", "change in the score, paired percentile bootstrap",
                               "the change of the score over the population of pairs"),
        replicate=pairs_replicate,
        fast=[{"n": 200, "shift": 0.0}, {"n": 200, "shift": 0.1}],
        full=[{"n": n, "shift": s} for n in (20, 100, 400, 1508) for s in (0.0, 0.05, 0.1)],
    ),
    Check(
        name="compare-weat",
        description="WEAT d of two noisy views of the same word clusters (8 or 25 words a set, sigma 0.4): noise "
                    "tau, and tau2 for the second model, which may also shrink the association axis to `keep` (a "
                    "partial projection debiasing: the population d hardly moves, d on these words falls far; "
                    "the interval's coverage is reported there, and the interval or the output's warning is held "
                    "to the promise)",
        outcomes=[*_outcome_list("paired swap permutation test", "change in d, paired BCa over the four sets",
                                 "the change of d over the word populations"),
                  Outcome("covered_or_warned", "change in d: the interval holds it, or the output warns",
                          "the change of d over the word populations", "rate", (0.92, 1.0)),
                  Outcome("warned", "change in d carries the attribute-noise warning (either model's share "
                          ">= 0.5, the two differing by >= 0.15)", "the share of runs warned", "rate"),
                  Outcome("after_covered", "d of the second model alone, single-model BCa over the four sets",
                          "the second model's d over the word populations", "coverage")],
        replicate=words_replicate,
        fast=[{"n": 8, "d": 1.0, "tau": 0.15, "tau2": 0.15, "keep": 1.0},
              {"n": 8, "d": 1.0, "tau": 0.15, "tau2": 0.6, "keep": 1.0},
              {"n": 25, "d": 1.0, "tau": 0.15, "tau2": 0.15, "keep": 0.3},
              {"n": 25, "d": 1.0, "tau": 0.15, "tau2": 0.15, "keep": 0.6}],
        full=[{"n": 8, "d": 0.0, "tau": 0.15, "tau2": 0.15, "keep": 1.0},
              *({"n": n, "d": 1.0, "tau": 0.15, "tau2": tau2, "keep": k} for n in (8, 25)
                for tau2, k in ((0.15, 1.0), (0.6, 1.0), (0.15, 0.6), (0.15, 0.3)))],
        bands=lambda p: {"covered": None} if p["keep"] < 1 else {},
        full_reps_scale=lambda p: 4 if _words_null(p) else 1,
    ),
    Check(
        name="compare-stereoset",
        description="StereoSet SS of two models on the same items clustered by target (target and model-by-target "
                    "effects); the second's logit shifted",
        outcomes=_outcome_list("sign-flip test over targets", "change in SS, t interval over the targets' differences",
                               "the change of SS over the population of targets"),
        replicate=stereoset_replicate,
        fast=[{"targets": 30, "per_target": 8, "shift": 0.0}, {"targets": 30, "per_target": 8, "shift": 0.4}],
        full=[{"targets": t, "per_target": 8, "shift": s} for t in (10, 30, 79) for s in (0.0, 0.2, 0.4)],
    ),
    Check(
        name="compare-nli",
        description="NLI NN of two models on a crossed design of templates x word pairs (shared and "
                    "model-specific template and word-pair effects); the second's logit shifted",
        outcomes=_outcome_list("t test, two-way bootstrap SE", "change in NN, +- t x two-way (pigeonhole) bootstrap SE",
                               "the change of NN over the populations of templates and word pairs",
                               coverage_band=(0.90, 1.0)),
        replicate=nli_replicate,
        fast=[{"templates": 12, "words": 16, "shift": 0.0}, {"templates": 12, "words": 16, "shift": 0.3}],
        full=[{"templates": t, "words": w, "shift": s} for t, w in ((6, 10), (12, 16), (30, 40))
              for s in (0.0, 0.15, 0.3)],
    ),
]
