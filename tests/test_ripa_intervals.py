"""RIPA's bias-corrected interval (``metrics.relation_intervals``): why it is needed (a word along b), pairs that
differ along two directions (percentile, with a warning), and one pair, which has none. Its formula against a
loop over ``relation_vector`` is in test_trust_likelihood_metrics.py, a two-pair case by hand in
test_trust_relation.py, its coverage in bench/calibration/check_ripa.py."""

from __future__ import annotations

import numpy as np
import pytest

from embias_widgets.metrics.projection import relation_vector
from embias_widgets.metrics.relation_intervals import ripa_intervals, two_directions_note
from embias_widgets.metrics.score_intervals import percentile_interval


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


def test_pairs_along_two_directions_get_the_percentile_interval_and_a_note() -> None:
    """Differences (1, g_i, small noise): a second direction with a spread near the first's. The replicates then
    swing back towards the pairs' mixture, which a bias correction would double, so the interval is the
    percentile one and the note says why."""
    rng = np.random.default_rng(2)
    Y = rng.normal(size=(10, 20))
    D = np.zeros((10, 20))
    D[:, 0], D[:, 1] = 1.0, 0.8 * rng.standard_normal(10)
    X = Y + D + 0.05 * rng.normal(size=(10, 20))
    s = relation_vector(X, Y).singular_values ** 2
    assert s[1] >= 0.25 * s[0] and s[1] >= 2 * s[2]
    W = rng.normal(size=(4, 20))
    got = ripa_intervals(X, Y, W, n_resamples=300, seed=0)
    low, high = percentile_interval(got.replicates, axis=0)
    np.testing.assert_array_equal(got.low, low)
    np.testing.assert_array_equal(got.high, high)
    assert got.note == two_directions_note(relation_vector(X, Y).singular_values)
    assert "second direction" in got.note and got.method.startswith("percentile bootstrap")
    # one direction with noise spread over many: no note, the bias-corrected interval
    one = np.zeros((10, 20))
    one[:, 0] = 1.0
    iso = ripa_intervals(Y + one + 0.1 * rng.normal(size=(10, 20)), Y, W, n_resamples=100)
    assert iso.note is None and iso.method.startswith("bias-corrected bootstrap")
    assert two_directions_note(np.array([3.0, 1.0, 0.9])) is None  # s2^2 / s1^2 = 0.11
    assert two_directions_note(np.array([2.0, 1.5, 0.2])) is not None  # 0.56, and 56 times s3^2
    assert two_directions_note(np.array([2.0, 1.5, 1.2])) is None  # 1.6 times s3^2: noise, not a direction
