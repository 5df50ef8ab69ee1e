"""Words with many contexts each, for CEAT: a word has a latent vector, its context vectors scatter around it.

The four concepts are :mod:`bench.calibration.dgp_words`' clusters (X leans to A and Y to B by ``t``). A word
of concept c is ``u = mu_c + sigma_word z``; each of its ``k`` contexts (``k`` uniform in ``[low, high]``,
drawn per word) is ``u + sigma_context z'``. So one context of a random word of c is ``mu_c + sigma z''`` with
``sigma = sqrt(sigma_word^2 + sigma_context^2)``: one CEAT sample (one context per word) is a WEAT sample of
independent words with spread ``sigma``.

**The estimand** of CEAT's interval (:mod:`embias_widgets.metrics.ceat_inference`): the expected effect size
of one CEAT sample over the populations, i.e. ``E[d]`` of WEAT on ``n`` words a set with spread ``sigma``
(:func:`expected_sample_d`, from ``draws`` samples with a fixed seed; Monte Carlo error about 0.002). The
setting's ``d`` names the population d (:func:`~bench.calibration.dgp_words.population_d`, the whole
populations); with 8 words a set the estimand is lower (attenuated by the noise of a sample's few contexts).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .dgp_words import DIM, concepts, strength_for


@functools.lru_cache(maxsize=64)
def world(d: float, sigma_word: float, sigma_context: float) -> tuple[float, float]:
    """``(t, sigma)``: the strength whose population d (at the total spread ``sigma``) is ``d``."""
    sigma = math.hypot(sigma_word, sigma_context)
    return strength_for(d, sigma=sigma), sigma


def draw_sets(rng: np.random.Generator, t: float, *, n: int, sigma_word: float, sigma_context: float,
              contexts: tuple[int, int]) -> list[list[np.ndarray]]:
    """X, Y, A, B: ``n`` words each, each word an array ``(its contexts, DIM)``."""
    means = concepts(t, sigma=sigma_word).means
    low, high = contexts
    sets = []
    for mu in means:
        words = mu + sigma_word * rng.standard_normal((n, len(mu)))
        sets.append([u + sigma_context * rng.standard_normal((int(rng.integers(low, high + 1)), len(mu)))
                     for u in words])
    return sets


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


@functools.lru_cache(maxsize=64)
def expected_sample_d(t: float, sigma: float, n: int, *, draws: int = 20_000, seed: int = 2024) -> float:
    """``E[d]`` of WEAT (``ddof=1``) on ``n`` independent words a set of spread ``sigma``: the estimand."""
    means = concepts(t, dim=DIM, sigma=sigma).means
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, draws, 2_000):
        m = min(2_000, draws - start)
        x, y, a, b = (_unit(mu + sigma * rng.standard_normal((m, n, len(mu)))) for mu in means)
        direction = a.mean(axis=1) - b.mean(axis=1)
        sx, sy = np.einsum("mnd,md->mn", x, direction), np.einsum("mnd,md->mn", y, direction)
        s = np.concatenate([sx, sy], axis=1)
        out.append((sx.mean(axis=1) - sy.mean(axis=1)) / s.std(axis=1, ddof=1))
    return float(np.concatenate(out).mean())
