"""WEAT's interval of d where the attribute words' own spread dominates the association scores: the word clusters
of :mod:`bench.calibration.dgp_words` seen through a model (:func:`bench.calibration.dgp_paired.view`: noise
``tau`` of each word's own, the association axis shrunk by ``keep``, as a partial projection debiasing leaves
it). Shrinking the axis hardly moves d over the word populations (d is a ratio), while d on 8 or 25 words falls
far: the direction between the attribute sets' mean vectors is then mostly which words were drawn.

One replicate draws n words a set and runs the library's own functions on their cosines:

- ``covered``: the default interval (BCa over the four sets, 2,000 resamples) holds the population d; reported
  (no band: the worlds are built to break it);
- ``noted``: the result carries the attribute-noise note (:func:`embias_widgets.analysis.association.story.
  attribute_noise_notes`: the share of :func:`embias_widgets.metrics.attribute_noise.attribute_noise_share` at
  least 0.5);
- ``covered_or_noted``: the interval holds the population d, or the output says it may not: held to the
  promise's lower end.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from embias_widgets.analysis.association.story import attribute_noise_notes
from embias_widgets.metrics import effect_size_interval_from_cosines
from embias_widgets.metrics.attribute_noise import attribute_noise_share

from . import dgp_paired as dgp
from .core import Check, Outcome
from .dgp_words import concepts, strength_for

SIGMA, TAU = 0.4, 0.15


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    n, keep = params["n"], params["keep"]
    t = strength_for(params["d"], sigma=SIGMA)
    truth = dgp.words_d(t, SIGMA, TAU, keep)
    X, Y, A, B = (dgp.view(w, rng, TAU, keep) for w in concepts(t, sigma=SIGMA).draw(rng, (n, n, n, n)))
    W = np.vstack([X, Y])
    W = W / np.linalg.norm(W, axis=1, keepdims=True)
    A, B = (m / np.linalg.norm(m, axis=1, keepdims=True) for m in (A, B))
    cos_a, cos_b = W @ A.T, W @ B.T
    interval = effect_size_interval_from_cosines(cos_a, cos_b, n, rng=int(rng.integers(2**32)))
    covered = bool(interval.low <= truth <= interval.high)
    noted = bool(attribute_noise_notes(attribute_noise_share(cos_a, cos_b)))
    return {"covered": covered, "noted": noted, "covered_or_noted": covered or noted}


CHECKS = [
    Check(
        name="weat-weak-axis",
        description="WEAT d where the attribute words' spread dominates: word clusters (sigma 0.4) seen with noise "
                    "0.15 and the association axis kept at `keep` (1, 0.6, 0.3), n words a set, population d "
                    "planted",
        outcomes=[
            Outcome("covered", "d, BCa bootstrap over the four sets (default)",
                    "d over the word populations the four lists stand for", "coverage", None),
            Outcome("noted", "the result notes that the attribute words' spread makes up at least half of the "
                    "association scores' spread", "the share of runs noted", "rate", None),
            Outcome("covered_or_noted", "d: the interval holds it, or the output notes that it may not",
                    "d over the word populations the four lists stand for", "rate", (0.92, 1.0)),
        ],
        replicate=replicate,
        fast=[{"n": 8, "d": 1.0, "keep": 1.0}, {"n": 25, "d": 1.0, "keep": 0.3}],
        full=[{"n": n, "d": d, "keep": k} for n in (8, 25) for d in (0.5, 1.0, 1.5) for k in (1.0, 0.6, 0.3)],
    ),
]
