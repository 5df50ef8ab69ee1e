"""Two models scored on the same items, drawn so that the true change is known (the paired comparison's checks).

Each process draws the items once and then each model's responses to them: "the same distribution" gives both
models the same item effects and independent noise of their own (so the population change is 0 and the two
models are exchangeable on every item); a planted shift moves the second model's responses by a known amount.

- **pairs** (CrowS-Pairs-style): pair i has a propensity ``p_i ~ Beta(a, b)``; a model counts it for the more
  stereotypical sentence with probability ``clip(p_i + shift, 0, 1)`` (the first model: shift 0), independently
  given ``p_i``. The population change of the score is ``100 (E clip(p + shift) - E p)``.
- **words** (WEAT): the word clusters of :mod:`.dgp_words`; a model sees each word as its vector plus noise
  ``tau z`` of its own, and the second model may shrink the association axis ``(e1 - e2) / sqrt 2`` by a factor
  ``keep`` (a partial debiasing). The population d of a model is computed as :func:`.dgp_words.population_d`
  does, on 100,000 words a concept passed through that model (:func:`words_d`; d on 200,000 words a set drawn
  through the same :func:`view` agrees with it within 0.005). Shrinking the axis in every word leaves the
  population d almost as it was (0.950 -> 0.941 at ``keep`` 0.3 in the d = 1 world: d is a ratio, and the axis
  carries both the X-Y difference and its spread), while d on 8 or 25 words falls far (on average 0.69 -> 0.08
  and 0.80 -> 0.09): with the attribute clusters' separation shrunk and their spread kept, the direction d is
  measured along is mostly noise, and only thousands of words a set bring d back to the population value.
- **StereoSet**: targets with an effect ``u_t ~ N(0, 1)``, items with ``e_i ~ N(0, 0.5)``; a model's stereotype
  wins item i with probability ``logistic(u_t + e_i + m_t - shift)``, ``m_t ~ N(0, 0.5)`` the model's own
  target effect. The population change of SS is computed from 200,000 targets.
- **NLI**: a crossed design of templates and word pairs; a model's neutral probability of pair (t, w) is
  ``logistic(1 + a_t + b_w + c_mt + d_mw + e_mi - shift)`` with shared ``a_t, b_w ~ N(0, 0.7)``, the model's
  own ``c_mt, d_mw ~ N(0, 0.4)`` and ``e_mi ~ N(0, 0.3)``. The population change of NN is computed from
  2,000 x 2,000 draws.
"""

from __future__ import annotations

import functools

import numpy as np

from .dgp_words import DIM, concepts

AXIS = (np.eye(DIM)[0] - np.eye(DIM)[1]) / np.sqrt(2)


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


# -- pairs --------------------------------------------------------------------------------------------
def draw_pairs(rng: np.random.Generator, n: int, shift: float, a: float = 3.0,
               b: float = 2.0) -> tuple[np.ndarray, ...]:
    p = rng.beta(a, b, n)
    return rng.random(n) < p, rng.random(n) < np.clip(p + shift, 0, 1)


@functools.lru_cache(maxsize=32)
def pairs_change(shift: float, a: float = 3.0, b: float = 2.0) -> float:
    p = np.random.default_rng(99).beta(a, b, 2_000_000)
    return float(100 * (np.clip(p + shift, 0, 1).mean() - p.mean()))


# -- words --------------------------------------------------------------------------------------------
def view(vectors: np.ndarray, rng: np.random.Generator, tau: float, keep: float = 1.0) -> np.ndarray:
    """A model's vectors of the words: noise of its own, the association axis scaled by ``keep``."""
    out = vectors + tau * rng.standard_normal(vectors.shape)
    return out - (1 - keep) * np.outer(out @ AXIS, AXIS)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


@functools.lru_cache(maxsize=32)
def words_d(t: float, sigma: float, tau: float, keep: float, population: int = 100_000) -> float:
    """The population d of a model (noise ``tau``, axis kept by ``keep``) of the world with strength ``t``."""
    world = concepts(t, sigma=sigma)
    rng = np.random.default_rng(2024)
    pops = [view(m + sigma * rng.standard_normal((population, DIM)), rng, tau, keep) for m in world.means]
    direction = _unit(pops[2]).mean(axis=0) - _unit(pops[3]).mean(axis=0)
    sx, sy = _unit(pops[0]) @ direction, _unit(pops[1]) @ direction
    return float((sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std())


# -- StereoSet ---------------------------------------------------------------------------------------------
def draw_stereoset(rng: np.random.Generator, n_targets: int, per_target: int, shift: float) -> tuple:
    u = rng.standard_normal(n_targets)
    e = 0.5 * rng.standard_normal((n_targets, per_target))
    wins = []
    for s in (0.0, shift):
        m = 0.5 * rng.standard_normal(n_targets)
        wins.append((rng.random((n_targets, per_target)) < _logistic(u[:, None] + e + m[:, None] - s)).ravel())
    related = [np.ones(n_targets * per_target), np.ones(n_targets * per_target)]
    targets = np.repeat(np.arange(n_targets), per_target).astype(str)
    return wins, related, targets


@functools.lru_cache(maxsize=32)
def stereoset_change(shift: float, per_target: int) -> float:
    """Population change of SS: ``100 E_t [mean_i P(win | after) - P(win | before)]`` over targets and items."""
    rng = np.random.default_rng(7)
    u = rng.standard_normal(200_000)
    e = 0.5 * rng.standard_normal((200_000, per_target))
    m0, m1 = 0.5 * rng.standard_normal(200_000), 0.5 * rng.standard_normal(200_000)
    return float(100 * (_logistic(u[:, None] + e + m1[:, None] - shift).mean()
                        - _logistic(u[:, None] + e + m0[:, None]).mean()))


# -- NLI ---------------------------------------------------------------------------------------------------
def draw_nli(rng: np.random.Generator, n_templates: int, n_words: int, shift: float) -> tuple:
    a, b = 0.7 * rng.standard_normal(n_templates), 0.7 * rng.standard_normal(n_words)
    probs = []
    for s in (0.0, shift):
        c, d = 0.4 * rng.standard_normal(n_templates), 0.4 * rng.standard_normal(n_words)
        e = 0.3 * rng.standard_normal((n_templates, n_words))
        neutral = _logistic(1 + a[:, None] + b[None, :] + c[:, None] + d[None, :] + e - s).ravel()
        rest = (1 - neutral) / 2
        probs.append(np.column_stack([rest, neutral, rest]))
    templates = np.repeat(np.arange(n_templates), n_words).astype(str)
    words = np.tile(np.arange(n_words), n_templates).astype(str)
    return probs, templates, words


@functools.lru_cache(maxsize=32)
def nli_change(shift: float) -> float:
    """Population change of NN over the populations of templates and word pairs."""
    rng = np.random.default_rng(11)
    n = 2_000
    a, b = 0.7 * rng.standard_normal(n), 0.7 * rng.standard_normal(n)
    out = []
    for s in (0.0, shift):
        c, d = 0.4 * rng.standard_normal(n), 0.4 * rng.standard_normal(n)
        e = 0.3 * rng.standard_normal((n, n))
        out.append(_logistic(1 + a[:, None] + b[None, :] + c[:, None] + d[None, :] + e - s).mean())
    return float(out[1] - out[0])
