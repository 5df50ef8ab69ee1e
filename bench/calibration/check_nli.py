"""NLI probes: templates x word pairs with crossed random effects on the neutral probability.

Pair (t, w) has logits (0, eta, 0) for (entailment, neutral, contradiction) with ``eta = mu + a_t + b_w + e_tw``,
``a_t ~ N(0, sa^2)`` per template, ``b_w ~ N(0, sb^2)`` per word pair and ``e_tw ~ N(0, se^2)`` per pair, so
``n = e^eta / (e^eta + 2)`` and the argmax is neutral exactly when ``eta > 0``. The estimands are the measures
over the populations of templates and word pairs (computed by Gauss-Hermite quadrature): NN = ``E[n]`` (both
levels); over sentence pairs FN = ``P(eta > 0)`` and T:0.5 = ``P(eta > log 2)``; over word pairs the share of
word pairs whose mean over the template population is neutral (``g(b) > 1/3``) or above 0.5. Measured: the
two-way bootstrap (``NeutralityStats.intervals``) and, before, the t / Wilson intervals that took every
sentence pair (or every word pair) as an independent draw.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from scipy import optimize, stats

from embias_widgets.metrics.neutrality import NeutralityStats
from embias_widgets.metrics.score_intervals import t_interval, t_interval_from_sums, wilson_interval

from .core import Check, Outcome

RESAMPLES = 1_000
MU = 0.3
_X, _W = np.polynomial.hermite_e.hermegauss(96)
_W = _W / _W.sum()


def _neutral(eta: np.ndarray) -> np.ndarray:
    return np.exp(eta) / (np.exp(eta) + 2.0)


@cache
def truth(sa: float, sb: float, se: float) -> dict[str, float]:
    """The population's measures at both levels (``pairs_*``, ``words_*``)."""
    total = float(np.sqrt(sa * sa + sb * sb + se * se))
    within = float(np.sqrt(sa * sa + se * se))

    def g(b: float) -> float:  # a word pair's mean neutral probability over the template population
        return float(np.sum(_W * _neutral(MU + b + within * _X)))

    def share(threshold: float) -> float:
        if sb == 0:
            return float(g(0.0) > threshold)
        b_star = optimize.brentq(lambda b: g(b) - threshold, -40.0, 40.0)
        return float(stats.norm.sf(b_star / sb))

    nn = float(np.sum(_W * _neutral(MU + total * _X)))
    return {"pairs_nn": nn, "pairs_fn": float(stats.norm.cdf(MU / total)),
            "pairs_t05": float(stats.norm.sf((np.log(2.0) - MU) / total)), "words_nn": nn,
            "words_fn": share(1 / 3), "words_t05": share(0.5)}


def draw_probe(rng: np.random.Generator, templates: int, word_pairs: int, sa: float, sb: float,
               se: float) -> NeutralityStats:
    """Statistics of one probe: every template with every word pair, as a chunked run keeps them."""
    eta = (MU + rng.normal(0, sa, templates)[:, None] + rng.normal(0, sb, word_pairs)[None, :]
           + rng.normal(0, se, (templates, word_pairs)))
    n = _neutral(eta).ravel()
    P = np.column_stack([(1 - n) / 2, n, (1 - n) / 2])
    words = np.tile([f"w{i}" for i in range(word_pairs)], templates).tolist()
    tmpl = np.repeat([f"t{i}" for i in range(templates)], word_pairs).tolist()
    return NeutralityStats.from_probs(P, words, ["h"] * len(words), taus=(0.5,), templates=tmpl)


def _old(s: NeutralityStats) -> dict[str, tuple[float, float]]:
    """Before: t / Wilson intervals taking every sentence pair, or every word pair, as an independent draw."""
    n, M = s.n_pairs, s.word_pair_means()
    nn = t_interval_from_sums(float(s.sums[:, 1].sum()), float(s.squares.sum()), n)
    fn = wilson_interval(int(s.argmax[:, 1].sum()), n)
    w_nn = t_interval(M[:, 1])
    w_fn = wilson_interval(int(np.sum(M.argmax(axis=1) == 1)), len(M))
    return {k: (iv.low, iv.high) for k, iv in (("pairs_nn", nn), ("pairs_fn", fn), ("words_nn", w_nn),
                                               ("words_fn", w_fn))}


KEYS = {"pairs_nn": ("pairs", "net_neutral"), "pairs_fn": ("pairs", "fraction_neutral"),
        "pairs_t05": ("pairs", "threshold_0.5"), "words_nn": ("word_pairs", "net_neutral"),
        "words_fn": ("word_pairs", "fraction_neutral"), "words_t05": ("word_pairs", "threshold_0.5")}


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    sa, sb, se = params["sa"], params["sb"], params["se"]
    s = draw_probe(rng, params["templates"], params["word_pairs"], sa, sb, se)
    true = truth(sa, sb, se)
    ivs = s.intervals(n_resamples=RESAMPLES, seed=int(rng.integers(2**31)))
    out = {}
    for key, (level, measure) in KEYS.items():
        iv = ivs[level][measure]
        out[key] = iv.low <= true[key] <= iv.high
    for key, (low, high) in _old(s).items():
        out[f"old_{key}"] = low <= true[key] <= high
    return out


FAST = [{"templates": 30, "word_pairs": 40, "sa": 0.5, "sb": 0.5, "se": 0.5},
        {"templates": 60, "word_pairs": 30, "sa": 1.0, "sb": 0.4, "se": 0.5}]
CI_BANDS = {key: (0.90, 0.99) for key in KEYS}
WHAT = {"pairs_nn": "NN over sentence pairs", "pairs_fn": "FN over sentence pairs",
        "pairs_t05": "T:0.5 over sentence pairs", "words_nn": "NN over word pairs",
        "words_fn": "FN over word pairs", "words_t05": "T:0.5 over word pairs"}


def _bands(params: dict[str, Any]) -> dict[str, tuple[float, float] | None]:
    return CI_BANDS if any(params is f for f in FAST) else {}


CHECKS = [
    Check(
        name="nli",
        description="NLI probe: templates x word pairs, neutral logit 0.3 + template (sa) + word pair (sb) + pair "
                    "(se) normal effects",
        outcomes=[
            *[Outcome(key, f"{what}, two-way bootstrap (templates and word pairs)",
                      f"{what} over the populations of templates and word pairs", "coverage", (0.92, 0.98))
              for key, what in WHAT.items()],
            *[Outcome(f"old_{key}", f"before: {WHAT[key]}, {'t' if 'nn' in key else 'Wilson'} over "
                      f"{'sentence' if key.startswith('pairs') else 'word'} pairs as independent",
                      f"{WHAT[key]} over the populations", "coverage") for key in ("pairs_nn", "pairs_fn",
                                                                                   "words_nn", "words_fn")],
        ],
        replicate=replicate,
        fast=FAST,
        full=[{"templates": t, "word_pairs": w, "sa": a, "sb": b, "se": e} for t, w in ((10, 30), (40, 100),
                                                                                       (200, 150))
              for a, b, e in ((0.5, 0.5, 0.5), (1.0, 0.4, 0.5), (0.2, 1.0, 0.5), (0.1, 0.5, 1.2))],
        bands=_bands,
    ),
]
