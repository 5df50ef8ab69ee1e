"""The calibration suite's machinery: a check is a data-generating process whose truth is known, a grid of
settings, and what one replicate says of each interval and test (covered? rejected?). The runner repeats
replicates with seeded, independent generators and reports each rate with its Monte Carlo standard error,
``sqrt(rate (1 - rate) / reps)``, beside the promise it is held to.

Kinds of rate:

- ``coverage``: the share of replicates whose interval holds the true value of its estimand (promise: the
  nominal level, e.g. 0.95, within a band such as [0.92, 0.98]);
- ``size``: the share of replicates where a test rejects a true null at its nominal alpha (promise: at most
  e.g. 0.07 at alpha 0.05);
- ``power``: the share rejecting under a planted effect (reported, no promise);
- ``rate``: any other share with a stated bound (e.g. "a significant result called fragile").
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

KINDS = ("coverage", "size", "power", "rate")


@dataclass(frozen=True)
class Outcome:
    """One rate a check measures: its ``key`` in each replicate's dict, what it is (``quantity``: the interval
    or test, ``estimand``: what the interval is for or which null the test holds), its ``kind`` and the band
    ``[low, high]`` the rate must fall in (None: reported only)."""

    key: str
    quantity: str
    estimand: str
    kind: str
    band: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}, got {self.kind!r}")


@dataclass(frozen=True)
class Check:
    """A data-generating process with a grid of settings.

    ``replicate(params, rng)`` draws one data set for ``params`` (one dict of the grid), runs the library's own
    functions on it and returns ``{outcome key: bool}`` for the outcomes that apply to that setting (a key may
    be left out, e.g. a size where the truth is not null). ``fast`` is the grid the CI tests run (seeded,
    small); ``full`` the benchmark's grid. ``bands(params)`` may override an outcome's band per setting
    (return ``{key: (low, high) or None}``). ``full_reps_scale(params)`` multiplies the replicates of a setting
    of the full grid (e.g. a size whose promise lies within two Monte Carlo errors of its rate at the usual
    count); the fast grid always runs the count it is given.
    """

    name: str
    description: str
    outcomes: Sequence[Outcome]
    replicate: Callable[[dict[str, Any], np.random.Generator], dict[str, bool]]
    fast: Sequence[dict[str, Any]]
    full: Sequence[dict[str, Any]]
    bands: Callable[[dict[str, Any]], dict[str, tuple[float, float] | None]] | None = None
    full_reps_scale: Callable[[dict[str, Any]], int] | None = None


@dataclass(frozen=True)
class Row:
    """One measured rate: check, setting, outcome, ``rate`` over ``reps`` replicates, its Monte Carlo standard
    error, its band, whether it lies in the band (None without one), and the seconds the setting took."""

    check: str
    setting: dict[str, Any]
    key: str
    quantity: str
    estimand: str
    kind: str
    rate: float
    reps: int
    mc_error: float
    band: tuple[float, float] | None
    ok: bool | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "setting": dict(self.setting), "key": self.key, "quantity": self.quantity,
                "estimand": self.estimand, "kind": self.kind, "rate": self.rate, "reps": self.reps,
                "mc_error": self.mc_error, "band": list(self.band) if self.band else None, "ok": self.ok,
                "seconds": self.seconds}


@dataclass
class Tally:
    hits: dict[str, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)

    def add(self, outcome: dict[str, bool]) -> None:
        for key, value in outcome.items():
            self.seen[key] = self.seen.get(key, 0) + 1
            self.hits[key] = self.hits.get(key, 0) + bool(value)


def setting_seed(seed: int, check: str, params: dict[str, Any]) -> np.random.SeedSequence:
    """A seed sequence for one (check, setting): the same rows whatever else runs, and independent streams."""
    words = f"{check}|{sorted(params.items())!r}".encode()
    return np.random.SeedSequence([seed, *np.frombuffer(words.ljust(-(-len(words) // 4) * 4, b"\0"), np.uint32)])


def run_setting(check: Check, params: dict[str, Any], *, reps: int, seed: int = 0) -> list[Row]:
    """``reps`` independent replicates of one setting; one row per outcome it reported."""
    t0 = time.perf_counter()
    tally = Tally()
    for child in setting_seed(seed, check.name, params).spawn(reps):
        tally.add(check.replicate(dict(params), np.random.default_rng(child)))
    seconds = time.perf_counter() - t0
    bands = check.bands(params) if check.bands else {}
    rows = []
    for outcome in check.outcomes:
        if outcome.key not in tally.seen:
            continue
        n = tally.seen[outcome.key]
        rate = tally.hits[outcome.key] / n
        band = bands.get(outcome.key, outcome.band) if outcome.key in bands else outcome.band
        ok = None if band is None else band[0] <= rate <= band[1]
        rows.append(Row(check.name, dict(params), outcome.key, outcome.quantity, outcome.estimand, outcome.kind,
                        rate, n, math.sqrt(rate * (1 - rate) / n), band, ok, seconds))
    return rows


def run_checks(checks: Iterable[Check], *, grid: str = "fast", reps: int = 200, seed: int = 0,
               progress: Callable[[str], None] | None = None) -> list[Row]:
    """Every setting of every check's ``grid`` ("fast" or "full")."""
    rows: list[Row] = []
    for check in checks:
        for params in getattr(check, grid):
            scale = check.full_reps_scale(params) if grid == "full" and check.full_reps_scale else 1
            rows += run_setting(check, params, reps=reps * scale, seed=seed)
            if progress:
                progress(f"{check.name} {params}: {rows[-1].seconds:.1f} s")
    return rows


def _setting_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in params.items())


def markdown_table(rows: Sequence[Row]) -> str:
    """The table the docs show: one line per rate, with its Monte Carlo error and band."""
    lines = ["| check | setting | what | estimand | kind | rate ± MC error | promise | ok |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        band = f"[{r.band[0]:.2f}, {r.band[1]:.2f}]" if r.band else "reported"
        ok = "" if r.ok is None else ("yes" if r.ok else "**no**")
        lines.append(f"| {r.check} | {_setting_text(r.setting)} | {r.quantity} | {r.estimand} | {r.kind} | "
                     f"{r.rate:.3f} ± {r.mc_error:.3f} ({r.reps}) | {band} | {ok} |")
    return "\n".join(lines) + "\n"
