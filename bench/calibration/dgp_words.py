"""Word vectors with a planted association, whose population effect size is known.

Four concepts X, Y (targets) and A, B (attributes), each a Gaussian cluster in ``dim`` dimensions: a word of
concept c is ``mu_c + sigma z`` (z standard normal). With orthonormal axes e1..e3,

    mu_A = e1,  mu_B = e2,  mu_X = e3 + t (e1 - e2) / sqrt(2),  mu_Y = e3 - t (e1 - e2) / sqrt(2),

so X leans to A and Y to B by ``t``; t = 0 is a true null (X and Y interchangeable).

**The population d** (the estimand of an interval "over the word populations the four lists stand for"):
``s(w) = E_a cos(w, a) - E_b cos(w, b) = w/|w| . (abar - bbar)`` with ``abar = E[a/|a|]`` (and bbar), then
``d = (E_X s - E_Y s) / sd_{X u Y} s`` over an equal mixture of the two target populations: WEAT's d with
every set replaced by its whole population. Computed from ``population`` draws a concept (100,000 by
default) with a fixed seed; :func:`strength_for` finds the t that gives a wanted d by bisection.

**The population association difference** ``E_X s - E_Y s`` (d's numerator, in cosine units): the same
populations (:func:`population_difference`), the estimand of the association difference's interval.

**The conditional d** (attribute words fixed, as the permutation test conditions on them): the same with
the drawn A and B in place of their populations, the targets still over their populations
(:func:`conditional_d`). The target populations are drawn once per world (fixed seed) and kept.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

DIM, SIGMA = 50, 0.25


@dataclass(frozen=True)
class Concepts:
    """Cluster means (rows: X, Y, A, B) and the spread of one word world."""

    means: np.ndarray
    sigma: float

    def draw(self, rng: np.random.Generator, sizes: tuple[int, int, int, int]) -> tuple[np.ndarray, ...]:
        """Word vectors of X, Y, A, B with the given numbers of words."""
        return tuple(m + self.sigma * rng.standard_normal((n, len(m))) for m, n in zip(self.means, sizes,
                                                                                           strict=True))


def concepts(t: float, *, dim: int = DIM, sigma: float = SIGMA) -> Concepts:
    e = np.eye(dim)
    lean = t * (e[0] - e[1]) / np.sqrt(2)
    return Concepts(np.stack([e[2] + lean, e[2] - lean, e[0], e[1]]), sigma)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


@functools.lru_cache(maxsize=16)
def _target_units(means: bytes, dim: int, sigma: float, population: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of ``population`` draws of X and of Y (fixed seed): the same draws on every call, kept."""
    mx, my = np.frombuffer(means, dtype=np.float64).reshape(2, dim)
    rng = np.random.default_rng(seed)
    return (_unit(mx + sigma * rng.standard_normal((population, dim))),
            _unit(my + sigma * rng.standard_normal((population, dim))))


def values_given_attributes(world: Concepts, direction: np.ndarray, *, population: int,
                            seed: int) -> tuple[float, float]:
    """``(d, difference)`` over the target populations with ``s(w) = w/|w| . direction`` (population draws,
    fixed seed): ``difference = E_X s - E_Y s`` and ``d = difference / sd_{X u Y} s``."""
    ux, uy = _target_units(np.ascontiguousarray(world.means[:2]).tobytes(), len(direction), world.sigma, population,
                           seed)
    sx, sy = ux @ direction, uy @ direction
    difference = float(sx.mean() - sy.mean())
    return difference / float(np.concatenate([sx, sy]).std()), difference


def d_given_attributes(world: Concepts, direction: np.ndarray, *, population: int, seed: int) -> float:
    """d over the target populations with ``s(w) = w/|w| . direction`` (population draws, fixed seed)."""
    return values_given_attributes(world, direction, population=population, seed=seed)[0]


@functools.lru_cache(maxsize=256)
def population_values(t: float, *, dim: int = DIM, sigma: float = SIGMA,
                      population: int = 100_000) -> tuple[float, float]:
    """``(d, difference)`` of the world with strength ``t`` over the four populations (see the module
    docstring): every set replaced by its whole population."""
    if t == 0:
        return 0.0, 0.0  # X and Y are one population: both are 0 exactly, by symmetry
    world = concepts(t, dim=dim, sigma=sigma)
    rng = np.random.default_rng(12345)
    abar = _unit(world.means[2] + sigma * rng.standard_normal((population, dim))).mean(axis=0)
    bbar = _unit(world.means[3] + sigma * rng.standard_normal((population, dim))).mean(axis=0)
    return values_given_attributes(world, abar - bbar, population=population, seed=54321)


def population_d(t: float, *, dim: int = DIM, sigma: float = SIGMA, population: int = 100_000) -> float:
    """The population d of the world with strength ``t`` (see the module docstring)."""
    return population_values(t, dim=dim, sigma=sigma, population=population)[0]


def population_difference(t: float, *, dim: int = DIM, sigma: float = SIGMA, population: int = 100_000) -> float:
    """The population association difference ``E_X s - E_Y s`` (d's numerator, in cosine units) of the world
    with strength ``t``: the estimand of the association difference's interval over the four sets."""
    return population_values(t, dim=dim, sigma=sigma, population=population)[1]


def conditional_values(world: Concepts, A: np.ndarray, B: np.ndarray, *, population: int = 20_000,
                       seed: int = 777) -> tuple[float, float]:
    """``(d, difference)`` with these attribute words and the targets over their populations (the conditional
    estimands)."""
    return values_given_attributes(world, _unit(A).mean(axis=0) - _unit(B).mean(axis=0), population=population,
                                   seed=seed)


def conditional_d(world: Concepts, A: np.ndarray, B: np.ndarray, *, population: int = 20_000,
                  seed: int = 777) -> float:
    """d with these attribute words and the targets over their populations (the conditional estimand)."""
    return conditional_values(world, A, B, population=population, seed=seed)[0]


@functools.lru_cache(maxsize=64)
def strength_for(d: float, *, dim: int = DIM, sigma: float = SIGMA) -> float:
    """The strength t whose population d is ``d`` (bisection to 1e-4 in d); 0 for d = 0."""
    if d == 0:
        return 0.0
    lo, hi = 0.0, 2.0
    for _ in range(40):
        mid = (lo + hi) / 2
        if population_d(mid, dim=dim, sigma=sigma, population=40_000) < d:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-5:
            break
    return (lo + hi) / 2
