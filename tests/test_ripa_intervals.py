"""RIPA's bias-corrected interval (``metrics.relation_intervals``): why it is needed (a word along b), and one
pair, which has none. Its formula against a loop over ``relation_vector`` is in test_trust_likelihood_metrics.py,
a two-pair case by hand in test_trust_relation.py, its coverage in bench/calibration/check_ripa.py."""

from __future__ import annotations

import numpy as np
import pytest

from embias_widgets.metrics.projection import relation_vector
from embias_widgets.metrics.relation_intervals import ripa_intervals


def test_ripa_interval_reaches_above_a_word_along_b() -> None:
    """A word along the pairs' own b projects on any resampled b* at most |w| = RIPA (Cauchy-Schwarz): every
    replicate lies at or below RIPA, so the percentile interval cannot reach the larger projection on the
    population direction; the bias-corrected interval is centred above RIPA and reaches above it."""
    rng = np.random.default_rng(5)
    beta = np.eye(30)[0]
    Y = rng.normal(size=(10, 30))
    X = Y + beta + 0.2 * rng.normal(size=(10, 30))
    W = (4.0 * relation_vector(X, Y).vector)[None, :]
    got = ripa_intervals(X, Y, W, n_resamples=500, seed=1)
    assert (got.replicates <= got.estimate + 1e-12).all() and got.estimate[0] == pytest.approx(4.0)
    assert got.bias[0] < 0 and got.low[0] < 4.0 < got.high[0]
    assert np.quantile(got.replicates[:, 0], 0.975) <= 4.0 + 1e-12


def test_ripa_one_pair_has_no_interval() -> None:
    X, Y, W = np.array([[1.0, 2.0]]), np.array([[0.0, 1.0]]), np.array([[3.0, 1.0]])
    got = ripa_intervals(X, Y, W, n_resamples=50)
    assert np.isnan(got.low).all() and np.isnan(got.high).all() and "one relation pair" in got.method
