"""The stability verdict of WEAT (``result.stability()``) on interchangeable words: word clusters with a planted
association (:mod:`bench.calibration.dgp_words`), every word of a set drawn from the same population, so no
result depends on *particular* words.

One replicate draws n words a set at weat6's size (8 targets and 8 attributes a set), runs
:class:`~embias_widgets.analysis.AssociationTest` on them through a :class:`~embias_widgets.models.StaticVectors`
table (the default interval: BCa over the four sets, 2,000 resamples) and reads ``stability(alpha=...)``:

- ``fragile_when_significant``: among the runs whose test is significant at ``alpha``, the share called
  "fragile" (the promise: at most 15% at d = 1.5, since the words are interchangeable);
- ``stable_under_null``: at d = 0, the share of all runs called "stable" (the promise: at most 1%);
- ``story_when_they_disagree``: among the runs whose p and interval disagree, the share whose record carries
  the one-sentence story (it must be all of them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.analysis import AssociationTest
from embias_widgets.models import StaticVectors

from .core import Check, Outcome
from .dgp_words import concepts, strength_for

SUBSETS = 20  # the subsets describe how far d moves and do not enter the verdict: few are enough here


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    n, d, sigma, alpha = params["n"], params["d"], params["sigma"], params["alpha"]
    world = concepts(strength_for(d, sigma=sigma), sigma=sigma)
    sets = world.draw(rng, (n, n, n, n))
    names = [[f"{key}{i}" for i in range(n)] for key in ("x", "y", "a", "b")]
    model = StaticVectors([w for group in names for w in group], np.vstack(sets), name="clusters", lowercase=False)
    study = AssociationTest(targ1=names[0], targ2=names[1], attr1=names[2], attr2=names[3], model=model,
                            seed=int(rng.integers(2**32)))
    record = study.run().stability(k=SUBSETS, alpha=alpha)
    out: dict[str, bool] = {}
    if record["significant"] and d > 0:
        out["fragile_when_significant"] = record["verdict"] == "fragile"
    if d == 0:
        out["stable_under_null"] = record["verdict"] == "stable"
    interval = record["interval"]
    outside = interval is not None and (interval["low"] > 0 or interval["high"] < 0)
    if interval is not None and outside != record["significant"]:
        out["story_when_they_disagree"] = bool(record["story"])
    return out


def bands(params: dict[str, Any]) -> dict[str, tuple[float, float] | None]:
    """At alpha = 0.05 a 95% interval misses 0 on the positive side in about 2.5% of null runs, so the null's
    "stable" share is held to [0, 0.03] there (reported against the 1% promise); at alpha = 0.01 to [0, 0.01]
    (the fast grid, 200 replicates: [0, 0.02])."""
    fast = params.get("fast", False)
    null = (0.0, 0.01 if not fast else 0.02) if params["alpha"] <= 0.01 else (0.0, 0.03 if not fast else 0.04)
    return {"stable_under_null": null, "fragile_when_significant": (0.0, 0.15 if not fast else 0.18)}


CHECKS = [
    Check(
        name="stability",
        description="the stability verdict on interchangeable words (Gaussian clusters, weat6's size)",
        outcomes=[
            Outcome("fragile_when_significant", "verdict 'fragile' among significant runs",
                    "words interchangeable: no result hinges on particular words", "rate", (0.0, 0.15)),
            Outcome("stable_under_null", "verdict 'stable'", "d = 0: no finding to keep", "rate", (0.0, 0.01)),
            Outcome("story_when_they_disagree", "the one-sentence story where p and interval disagree",
                    "every such run says so", "rate", (1.0, 1.0)),
        ],
        replicate=replicate,
        bands=bands,
        fast=[{"n": 8, "d": d, "sigma": 0.4, "alpha": 0.05, "fast": True} for d in (0.0, 1.5)],
        full=[{"n": 8, "d": d, "sigma": s, "alpha": a} for a in (0.05, 0.01) for s in (0.25, 0.4) for d in (0.0, 1.5)],
    ),
]
