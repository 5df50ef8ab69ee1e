"""CEAT's headline (``metrics.ceat_test``): the effect size is the mean of the samples' d, the permutation p is
the test over every relabelling of the target words recomputed from scratch, each bootstrap replicate is WEAT
on the words and contexts it drew (re-implemented here one sample at a time), and the BC interval by hand."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats
from test_ceat import synthetic_groups

from embias_widgets.metrics import ceat_samples, ceat_test
from embias_widgets.metrics.association import effect_size, per_word_association
from embias_widgets.metrics.ceat import MAX_CEAT_SAMPLES, random_effects
from embias_widgets.metrics.ceat_inference import bc_interval


def test_effect_size_is_the_mean_of_ceat_samples_same_draws():
    groups = synthetic_groups(seed=5)
    got = ceat_test(*groups, n_samples=400, rng=9, n_resamples=50)
    plain = ceat_samples(*groups, n_samples=400, rng=9)
    np.testing.assert_array_equal(got.samples.indices, plain.indices)  # a seed gives ceat_samples' draws
    assert got.effect_size == pytest.approx(plain.effect_sizes.mean(), rel=1e-12)
    meta = random_effects(got.samples.effect_sizes, got.samples.variances)
    assert meta.combined_effect_size == random_effects(plain.effect_sizes, plain.variances).combined_effect_size
    again = ceat_test(*groups, n_samples=400, rng=9, n_resamples=50)
    assert (again.interval, again.p_value) == (got.interval, got.p_value)  # seeded


def test_permutation_p_recomputes_every_relabelling():
    """Every split of X u Y into sets of |X| and |Y| words, the samples' d recomputed on the same draws."""
    groups = synthetic_groups(seed=6, sizes=(3, 3, 2, 3))
    got = ceat_test(*groups, n_samples=60, rng=4, n_resamples=20, alternative="two-sided")
    idx = got.samples.indices
    targets = groups[0] + groups[1]
    stats = []
    for chosen in itertools.combinations(range(6), 3):
        rest = [j for j in range(6) if j not in chosen]
        order = list(chosen) + rest + list(range(6, idx.shape[1]))
        relabelled = ceat_samples([targets[j] for j in chosen], [targets[j] for j in rest], groups[2], groups[3],
                                  n_samples=60, indices=idx[:, order])
        stats.append(relabelled.effect_sizes.mean())
    stats = np.array(stats)
    observed = got.effect_size
    assert stats[0] == pytest.approx(observed)  # the first split is the observed one
    tol = 1e-12
    p_greater = np.mean(stats >= observed - tol)
    p_less = np.mean(stats <= observed + tol)
    assert got.p_value == pytest.approx(min(1.0, 2 * min(p_greater, p_less)))
    assert got.exact and got.n_permutations == 20
    one_sided = ceat_test(*groups, n_samples=60, rng=4, n_resamples=20)
    assert one_sided.p_value == pytest.approx(p_greater) and one_sided.alternative == "greater"


def _replay_replicates(groups, n_samples, seed, n_resamples, per):
    """The replicates re-implemented one sample at a time: the same generator calls in the same order, then
    WEAT's d on the drawn context vectors with the metric core's scalar functions."""
    rng = np.random.default_rng(seed)
    counts = np.array([len(w) for g in groups for w in g])
    rng.integers(0, counts, size=(n_samples, counts.size))  # the N draws come first
    sizes = [len(g) for g in groups]  # the permutation test is exact for these sizes: it draws nothing
    words = [w for g in groups for w in g]
    firsts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    slots = np.concatenate([f + rng.integers(0, n, size=(n_resamples, n)) for f, n in zip(firsts, sizes,
                                                                                              strict=True)], axis=1)
    n_ctx = counts[slots]
    lengths = n_ctx.ravel()
    resampled = rng.integers(0, np.repeat(lengths, lengths))
    picks = rng.integers(0, n_ctx[:, None, :], size=(n_resamples, per, slots.shape[1]))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).reshape(n_resamples, slots.shape[1])
    out = []
    nx = sizes[0]
    for r in range(n_resamples):
        ds = []
        for i in range(per):
            vectors = [words[slots[r, q]][resampled[starts[r, q] + picks[r, i, q]]] for q in range(slots.shape[1])]
            cut = np.cumsum(sizes)
            X, Y, A, B = (np.array(vectors[a:b]) for a, b in zip([0, *cut[:-1]], cut, strict=True))
            s = per_word_association(np.vstack([X, Y]), A, B)
            ds.append(effect_size(s[:nx], s[nx:], ddof=1).value)
        out.append(np.mean(ds))
    return np.array(out)


def test_each_replicate_is_weat_on_the_words_and_contexts_it_drew():
    groups = synthetic_groups(seed=7, sizes=(3, 2, 2, 3), dim=5)
    got = ceat_test(*groups, n_samples=30, rng=12, n_resamples=6, replicate_samples=7)
    want = _replay_replicates(groups, 30, 12, 6, 7)
    np.testing.assert_allclose(got.replicates, want, rtol=1e-10, atol=1e-12)
    assert got.replicate_samples == 7 and got.n_undefined == 0
    few = ceat_test(*groups, n_samples=3, rng=12, n_resamples=4)
    assert few.replicate_samples == 3  # never more samples per replicate than the run draws


def test_bc_interval_by_hand():
    reps = np.arange(1000) / 1000.0
    # symmetric about the estimate: BC is the percentile interval
    assert bc_interval(reps, 0.4995, 0.95) == pytest.approx(tuple(np.quantile(reps, [0.025, 0.975])))
    # 700 replicates below 0.7: z0 = Phi^-1(0.7), tails Phi(2 z0 -+ 1.96)
    z0 = scipy.stats.norm.ppf(0.7)
    tails = scipy.stats.norm.cdf([2 * z0 - 1.959963984540054, 2 * z0 + 1.959963984540054])
    assert bc_interval(reps, 0.6995, 0.95) == pytest.approx(tuple(np.quantile(reps, tails)))
    # every replicate below: the share is kept at 1 - 1/2R, so the bounds stay finite
    low, high = bc_interval(reps, 5.0, 0.95)
    assert math.isfinite(low) and high == pytest.approx(reps.max(), abs=1e-3)
    assert all(math.isnan(v) for v in bc_interval(np.array([]), 0.0, 0.95))


def test_one_word_per_target_set_gives_sqrt2_whatever_the_words():
    """Ethayarajh, Duvenaud & Hirst (2019), proposition 2: with one word in X and one in Y, |d| = sqrt(2)."""
    rng = np.random.default_rng(1)
    X, Y = [rng.normal(size=(4, 6))], [rng.normal(size=(3, 6))]
    A, B = [rng.normal(size=(5, 6)) for _ in range(3)], [rng.normal(size=(2, 6)) for _ in range(3)]
    got = ceat_test(X, Y, A, B, n_samples=50, rng=0, n_resamples=30)
    np.testing.assert_allclose(np.abs(got.samples.effect_sizes), math.sqrt(2))
    assert got.n_permutations == 2  # two splits: p says nothing either


def test_options_are_checked_before_anything_is_drawn():
    groups = synthetic_groups()
    with pytest.raises(ValueError, match=rf"`n_samples` must be a whole number from 1 to {MAX_CEAT_SAMPLES:,}"):
        ceat_test(*groups, n_samples=10**9)
    with pytest.raises(ValueError, match=rf"`n_samples` must be a whole number from 1 to {MAX_CEAT_SAMPLES:,}"):
        ceat_samples(*groups, n_samples=10**9)
    with pytest.raises(ValueError, match="`replicate_samples` must be a whole number from 1"):
        ceat_test(*groups, n_samples=5, replicate_samples=0)
    with pytest.raises(ValueError, match="`permutations` must be a whole number from 2"):
        ceat_test(*groups, n_samples=5, permutations=1)
    with pytest.raises(ValueError, match="`n_resamples` must be a whole number of at least 1"):
        ceat_test(*groups, n_samples=5, n_resamples=0)
    with pytest.raises(ValueError, match="`confidence_level` must be a number strictly between 0 and 1"):
        ceat_test(*groups, n_samples=5, level=95)


def test_few_words_in_a_set_are_noted():
    """Below 8 words a set the bootstrap over words under-covers (0.91-0.92 at 4 in the calibration suite)."""
    got = ceat_test(*synthetic_groups(seed=3, sizes=(4, 3, 3, 4)), n_samples=20, rng=0, n_resamples=10)
    assert got.note.startswith("fewer than 8 words in X (4), Y (3), A (3), B (4): the interval over words")
    big = [[np.random.default_rng(k).normal(size=(2, 4)) for k in range(8)] for _ in range(4)]
    assert ceat_test(*big, n_samples=5, rng=0, n_resamples=5).note is None
