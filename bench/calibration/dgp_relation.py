"""Relation pairs with a known relation vector, and words with known projections on it, for RIPA.

In ``dim`` dimensions with ``beta = e1`` (unit): pair i's second word is ``y_i = 0.5 z`` and its first word
``x_i = y_i + beta + noise z'`` (z, z' standard normal), so the differences are ``d_i = beta + noise z'``. The
population relation vector, the top eigenvector of ``E[d d^T] = beta beta^T + noise^2 I``, is ``beta``.

A word with projection ``a`` is ``a beta + perp u``, ``u`` a random unit vector orthogonal to ``beta`` (drawn
per replicate): its true projection on the population relation vector, RIPA's estimand, is ``a``.
"""

from __future__ import annotations

import numpy as np

DIM = 50


def draw_pairs(rng: np.random.Generator, pairs: int, noise: float, *, dim: int = DIM) -> tuple[np.ndarray, np.ndarray]:
    """``(X, Y)``: the pairs' first and second words, ``(pairs, dim)`` each."""
    beta = np.eye(dim)[0]
    Y = 0.5 * rng.standard_normal((pairs, dim))
    return Y + beta + noise * rng.standard_normal((pairs, dim)), Y


def draw_words(rng: np.random.Generator, projections: tuple[float, ...], perp: float, *,
               dim: int = DIM) -> np.ndarray:
    """One word per projection ``a``: ``a e1 + perp u`` with ``u`` a random unit vector orthogonal to e1."""
    u = rng.standard_normal((len(projections), dim))
    u[:, 0] = 0.0
    u *= perp / np.linalg.norm(u, axis=1, keepdims=True)
    u[:, 0] = projections
    return u
