"""Relation pairs with a known relation vector, and words with known projections on it, for RIPA.

In ``dim`` dimensions with ``beta = e1`` (unit): pair i's second word is ``y_i = 0.5 z`` and its first word
``x_i = y_i + beta + noise z'`` (z, z' standard normal), so the differences are ``d_i = beta + noise z'``. The
population relation vector, the top eigenvector of ``E[d d^T] = beta beta^T + noise^2 I``, is ``beta``.

A word with projection ``a`` is ``a beta + perp u``, ``u`` a random unit vector orthogonal to ``beta`` (drawn
per replicate): its true projection on the population relation vector, RIPA's estimand, is ``a``.

**Two directions** (``second > 0``): every word, the pairs' words included, also has a common part
``common mu`` (``mu = e2``, as word vectors share a common direction), and each pair's difference gains
``second g_i mu`` (``g_i`` standard normal): the pairs differ along a second direction too. With
``second < 1`` the population relation vector, the top eigenvector of
``beta beta^T + noise^2 I + second^2 mu mu^T``, is still ``beta``, and the projections are still ``a``.
"""

from __future__ import annotations

import numpy as np

DIM = 50


def draw_pairs(rng: np.random.Generator, pairs: int, noise: float, *, second: float = 0.0, common: float = 0.0,
               dim: int = DIM) -> tuple[np.ndarray, np.ndarray]:
    """``(X, Y)``: the pairs' first and second words, ``(pairs, dim)`` each."""
    beta, mu = np.eye(dim)[0], np.eye(dim)[1]
    Y = 0.5 * rng.standard_normal((pairs, dim)) + common * mu
    X = Y + beta + noise * rng.standard_normal((pairs, dim))
    if second:
        X = X + second * rng.standard_normal((pairs, 1)) * mu
    return X, Y


def draw_words(rng: np.random.Generator, projections: tuple[float, ...], perp: float, *, common: float = 0.0,
               dim: int = DIM) -> np.ndarray:
    """One word per projection ``a``: ``a e1 + perp u (+ common e2)``, ``u`` a random unit vector orthogonal to
    e1 and e2."""
    u = rng.standard_normal((len(projections), dim))
    u[:, :2] = 0.0
    u *= perp / np.linalg.norm(u, axis=1, keepdims=True)
    u[:, 0] = projections
    u[:, 1] = common
    return u
