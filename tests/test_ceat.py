"""CEAT's metric core against a line-by-line re-implementation of the authors' estimator.

The reference below follows ``code/ceat.py`` of ``weiguowilliam/CEAT`` (Guo & Caliskan 2021, commit 497e295):
``associate`` / ``effect_size`` (``np.std(s, ddof=1)``, ``var = std**2``), the sampling loop of ``ceat_meta``
(``np.random.randint(0, len(contexts))`` per word, in the order X, Y, A, B) and its meta-analysis (Q, tau^2,
``pes``, ``v``, ``p = norm.sf(pes / sqrt(v))``). It is written again here, not imported or copied: sklearn's
``cosine_similarity`` is spelled out with numpy.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from embias_widgets.metrics.association import effect_size, per_word_association
from embias_widgets.metrics.ceat import ceat_samples, random_effects


# -- the authors' estimator, re-implemented ---------------------------------------------------------------------
def ref_cosine_similarity(u, M):
    return (u @ M.T) / (np.linalg.norm(u, axis=1, keepdims=True) * np.linalg.norm(M, axis=1)[None, :])


def ref_associate(w, A, B):
    return ref_cosine_similarity(w.reshape(1, -1), A).mean() - ref_cosine_similarity(w.reshape(1, -1), B).mean()


def ref_effect_size(X, Y, A, B):
    delta_mean = np.mean([ref_associate(X[i, :], A, B) for i in range(X.shape[0])]) - np.mean(
        [ref_associate(Y[i, :], A, B) for i in range(Y.shape[0])])
    XY = np.concatenate((X, Y), axis=0)
    s = [ref_associate(XY[i, :], A, B) for i in range(XY.shape[0])]
    std_dev = np.std(s, ddof=1)
    var = std_dev**2
    return delta_mean / std_dev, var


def ref_meta(e_lst, v_lst):
    N = len(e_lst)
    e_ary = np.array(e_lst)
    w_ary = 1 / np.array(v_lst)
    q1 = np.sum(w_ary * (e_ary**2))
    q2 = ((np.sum(e_ary * w_ary)) ** 2) / np.sum(w_ary)
    q = q1 - q2
    df = N - 1
    if q > df:
        c = np.sum(w_ary) - np.sum(w_ary**2) / np.sum(w_ary)
        tao_square = (q - df) / c
    else:
        tao_square = 0
    v_star_ary = np.array(v_lst) + tao_square
    w_star_ary = 1 / v_star_ary
    pes = np.sum(w_star_ary * e_ary) / np.sum(w_star_ary)
    v = 1 / np.sum(w_star_ary)
    z = pes / np.sqrt(v)
    p_value = scipy.stats.norm.sf(z, loc=0, scale=1)
    return pes, p_value, v, q, tao_square


def ref_ceat(groups, N, random_state):
    """``ceat_meta``'s loop over a dict word -> contexts; returns its lists and the draws it made."""
    e_lst, v_lst, draws = [], [], []
    for _ in range(N):
        picked, row = [], []
        for words in groups:
            chosen = []
            for contexts in words:
                k = random_state.randint(0, len(contexts))
                row.append(k)
                chosen.append(contexts[k])
            picked.append(np.array(chosen))
        e, v = ref_effect_size(*picked)
        e_lst.append(e)
        v_lst.append(v)
        draws.append(row)
    return e_lst, v_lst, np.array(draws)


def synthetic_groups(seed=0, sizes=(4, 3, 3, 4), dim=6, shift=0.4):
    rng = np.random.default_rng(seed)
    groups = []
    for g, n in enumerate(sizes):
        groups.append([rng.normal(size=(int(rng.integers(1, 6)), dim)) + (shift if g in (0, 2) else 0.0)
                       for _ in range(n)])
    return groups


# -- the meta-analysis -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spread", [0.05, 1.5])  # homogeneous (tau^2 = 0) and heterogeneous (tau^2 > 0)
def test_random_effects_matches_the_authors_meta(spread):
    rng = np.random.default_rng(3)
    v = rng.uniform(0.02, 0.3, size=400)
    e = 0.6 + rng.normal(scale=spread, size=400) * np.sqrt(v if spread < 1 else 1.0)
    pes, p, var, q, tau2 = ref_meta(list(e), list(v))
    got = random_effects(e, v)
    assert (tau2 == 0) == (spread < 1)
    assert got.combined_effect_size == pytest.approx(pes, rel=1e-12, abs=1e-15)
    assert got.standard_error**2 == pytest.approx(var, rel=1e-12)
    assert got.q == pytest.approx(q, rel=1e-10)
    assert got.tau_squared == pytest.approx(tau2, rel=1e-10, abs=1e-15)
    assert got.p_value == pytest.approx(p, rel=1e-9, abs=1e-300)
    assert got.df == 399 and got.n == 400
    assert got.i_squared == pytest.approx(max(0.0, (q - 399) / q))
    lo, hi = got.interval
    assert (lo, hi) == pytest.approx((pes - 1.959963984540054 * np.sqrt(var), pes + 1.959963984540054 * np.sqrt(var)))


def test_random_effects_by_hand():
    # three samples: w = 1/v = (4, 2, 1); sum w e = 4*1 + 2*2 + 1*4 = 12; sum w = 7; sum w e^2 = 4 + 8 + 16 = 28
    e, v = [1.0, 2.0, 4.0], [0.25, 0.5, 1.0]
    q = 28 - 12**2 / 7  # 7.428571... > df = 2, so tau^2 > 0
    tau2 = (q - 2) / (7 - (16 + 4 + 1) / 7)
    w_star = 1 / (np.array(v) + tau2)
    es = float(np.sum(w_star * np.array(e)) / w_star.sum())
    got = random_effects(e, v, level=0.9)
    assert got.q == pytest.approx(q)
    assert got.tau_squared == pytest.approx(tau2)
    assert got.combined_effect_size == pytest.approx(es)
    assert got.i_squared == pytest.approx((q - 2) / q)
    half = scipy.stats.norm.ppf(0.95) / np.sqrt(w_star.sum())
    assert got.interval == pytest.approx((es - half, es + half)) and got.level == 0.9


def test_one_sample_and_bad_variances():
    one = random_effects([0.5], [0.1])
    assert (one.q, one.tau_squared, one.i_squared, one.df) == (0.0, 0.0, 0.0, 0)
    assert one.combined_effect_size == 0.5
    # one sample whose Q rounds to 4.4e-16 > df = 0: tau^2 was (Q - df) / 0, so the combination was NaN
    e, v = 1.3040000451301372, 0.7297670644230144
    w = 1 / v
    assert w * e**2 - (w * e) ** 2 / w > 0  # the rounding that made it
    rounded = random_effects([e], [v])
    assert (rounded.tau_squared, rounded.i_squared, rounded.df) == (0.0, 0.0, 0)
    assert rounded.combined_effect_size == pytest.approx(e) and rounded.standard_error == pytest.approx(np.sqrt(v))
    assert np.isfinite([*rounded.interval, rounded.p_value]).all()
    with pytest.raises(ValueError, match=r"sample 1 .*positive"):
        random_effects([0.5, 0.2], [0.1, 0.0])
    with pytest.raises(ValueError, match="one variance per effect size"):
        random_effects([0.5, 0.2], [0.1])


# -- the sampling ------------------------------------------------------------------------------------------------
def test_samples_replay_the_authors_draws():
    groups = synthetic_groups()
    e_ref, v_ref, draws = ref_ceat(groups, 300, np.random.RandomState(7))
    got = ceat_samples(*groups, n_samples=300, indices=draws)
    np.testing.assert_allclose(got.effect_sizes, e_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.variances, v_ref, rtol=1e-10, atol=1e-15)
    pes, p, _, _, _ = ref_meta(e_ref, v_ref)
    meta = random_effects(got.effect_sizes, got.variances)
    assert meta.combined_effect_size == pytest.approx(pes, rel=1e-9)
    assert meta.p_value == pytest.approx(p, rel=1e-6, abs=1e-300)


def test_each_sample_is_weat_on_its_draw():
    groups = synthetic_groups(seed=1)
    got = ceat_samples(*groups, n_samples=50, rng=11)
    nx = len(groups[0])
    for i in (0, 17, 49):
        picked, j = [], 0
        for words in groups:
            picked.append(np.array([w[got.indices[i, j + k]] for k, w in enumerate(words)]))
            j += len(words)
        s = per_word_association(np.vstack(picked[:2]), picked[2], picked[3])
        assert got.effect_sizes[i] == pytest.approx(effect_size(s[:nx], s[nx:], ddof=1).value, rel=1e-10)
        assert got.variances[i] == pytest.approx(np.var(s, ddof=1), rel=1e-10)


def test_draws_are_seeded_uniform_and_independent_per_word():
    groups = synthetic_groups(seed=2)
    a = ceat_samples(*groups, n_samples=4000, rng=5)
    b = ceat_samples(*groups, n_samples=4000, rng=5)
    np.testing.assert_array_equal(a.indices, b.indices)
    counts = [len(w) for g in groups for w in g]
    for j, n in enumerate(counts):
        if n == 1:
            assert (a.indices[:, j] == 0).all()
            continue
        observed = np.bincount(a.indices[:, j], minlength=n)
        assert scipy.stats.chisquare(observed).pvalue > 1e-4  # uniform over the word's contexts
    assert not np.array_equal(ceat_samples(*groups, n_samples=4000, rng=6).indices, a.indices)


def test_sampling_errors_name_the_problem():
    groups = synthetic_groups()
    with pytest.raises(ValueError, match="set A has no words"):
        ceat_samples(groups[0], groups[1], [], groups[3], n_samples=3)
    with pytest.raises(ValueError, match="`n_samples` must be a whole number from 1 to 1,000,000"):
        ceat_samples(*groups, n_samples=0)
    same = [np.ones((2, 3))]
    with pytest.raises(ValueError, match="sample 0: every target word has the same association"):
        ceat_samples(same, same, [np.eye(3)[:1]], [np.eye(3)[1:2]], n_samples=2)


def test_both_vectorised_paths_agree(monkeypatch):
    import embias_widgets.metrics.ceat as core

    groups = synthetic_groups(seed=4, sizes=(5, 4, 3, 6), dim=9)
    shared = core.ceat_samples(*groups, n_samples=700, rng=2)  # every cosine computed once
    monkeypatch.setattr(core, "_FULL_COSINES", 0)
    monkeypatch.setattr(core, "_CHUNK_BYTES", 8 * 18 * 9 * 50)  # gathered vectors, 50 samples per chunk
    gathered = core.ceat_samples(*groups, n_samples=700, rng=2)
    np.testing.assert_array_equal(shared.indices, gathered.indices)
    np.testing.assert_allclose(shared.effect_sizes, gathered.effect_sizes, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(shared.variances, gathered.variances, rtol=1e-12, atol=1e-16)
