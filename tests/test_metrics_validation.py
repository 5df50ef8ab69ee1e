"""The metric core checks every option and array where it enters (issue 13, class 2 and 4)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from embias_widgets.metrics import effect_size_interval, holm_bonferroni, weat
from embias_widgets.metrics.permutation import MAX_EXACT_SPLITS, permutation_test
from embias_widgets.metrics.validation import check_options, check_vectors

RNG = np.random.default_rng(0)
X, Y, A, B = (RNG.normal(size=(4, 5)) for _ in range(4))


@pytest.mark.parametrize(
    ("option", "value", "match"),
    [
        ("ddof", 2, "`ddof` must be 0"),
        ("ddof", 1.0, "`ddof` must be 0"),
        ("ddof", True, "`ddof` must be 0"),
        ("ddof", "1", "`ddof` must be 0"),
        ("n_samples", 1, "`n_samples` must be a whole number from 2"),
        ("n_samples", 1e5, "`n_samples` must be a whole number"),
        ("n_samples", 10**12, "more would run for hours"),
        ("alternative", "bigger", "`alternative` must be one of"),
        ("alternative", None, "`alternative` must be one of"),
        ("method", "fast", "`method` must be one of"),
        ("variant", "median", "`variant` must be one of"),
        ("rng", -1, "`seed` must be None, a whole number"),
        ("rng", 1.5, "`seed` must be None"),
        ("rng", "0", "`seed` must be None"),
    ],
)
def test_weat_rejects_bad_options_by_name(option: str, value: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        weat(X, Y, A, B, **{option: value})


def test_good_options_of_numpy_types_pass() -> None:
    res = weat(X, Y, A, B, ddof=np.int64(0), n_samples=np.int32(1000), rng=np.int64(3))
    assert res.ddof == 0


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, "0.05", None, float("nan"), True])
def test_alpha_is_checked(alpha: object) -> None:
    with pytest.raises(ValueError, match="`alpha` must be a number strictly between 0 and 1"):
        holm_bonferroni([0.01, 0.2], alpha=alpha)
    with pytest.raises(ValueError, match="`alpha`"):
        check_options(alpha=alpha)


def test_bootstrap_options_are_checked() -> None:
    with pytest.raises(ValueError, match="`confidence_level`"):
        effect_size_interval(X, Y, A, B, confidence_level=95)
    with pytest.raises(ValueError, match="`n_resamples`"):
        effect_size_interval(X, Y, A, B, n_resamples=0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_vector_is_an_error_naming_its_row(bad: float) -> None:
    Xb = X.copy()
    Xb[2, 1] = bad
    with pytest.raises(ValueError, match=r"`X` row 2 holds (NaN|an infinite value)"):
        weat(Xb, Y, A, B)
    with pytest.raises(ValueError, match=r"`B` row 0 \('rose'\) holds"):
        check_vectors(np.array([[bad, 1.0]]), "B", ["rose"])
    with pytest.raises(ValueError, match="`X` row 2"):
        effect_size_interval(Xb, Y, A, B, n_resamples=10)


# -- class 4: no hangs -------------------------------------------------------------------------
def test_exact_enumeration_is_capped_and_sampling_takes_over(monkeypatch: pytest.MonkeyPatch) -> None:
    from embias_widgets.metrics import permutation

    values = np.random.default_rng(1).normal(size=10)
    assert math.comb(10, 5) == 252
    assert permutation_test(values, 5, n_samples=1000).exact  # under the cap: every split
    monkeypatch.setattr(permutation, "MAX_EXACT_SPLITS", 100)
    res = permutation_test(values, 5, n_samples=1000, rng=0)  # n_samples > C(10, 5), but C(10, 5) > the cap
    assert (res.exact, res.method, res.n_permutations) == (False, "sampled", 1000)
    with pytest.raises(ValueError, match=r"exact enumeration of C\(10, 5\) = 252 splits would not finish"):
        permutation_test(values, 5, method="exact")


def test_a_huge_permutation_count_on_49_items_does_not_hang() -> None:
    values = np.random.default_rng(1).normal(size=49)
    assert math.comb(49, 24) > 6e13 > MAX_EXACT_SPLITS
    started = time.perf_counter()
    res = permutation_test(values, 24, n_samples=20_000)
    assert not res.exact
    assert time.perf_counter() - started < 120  # generous: well under a second on an idle machine
    with pytest.raises(ValueError, match=r"exact enumeration of C\(49, 24\) = 6.32e\+13 splits would not finish"):
        permutation_test(values, 24, method="exact")
