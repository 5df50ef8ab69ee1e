"""Classroom self-checks accept what numpy returns, give a hint (not a traceback) for a wrong type,
and never flood the notebook with a huge answer. Library values are replaced by fixed ones where the
run would be slow (the comparison is what is tested); weat-6 runs the library (GloVe, sqrt 2)."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from embias_widgets.classroom import CHECKS, check

SQRT2 = math.sqrt(2)  # |d| of single-word sets with ddof=1: (x - y) / std([x, y], ddof=1) = +-sqrt(2)


@pytest.fixture(autouse=True)
def _not_graded(monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)


@pytest.fixture
def fixed(monkeypatch):
    """Replace a check's library run by a fixed value."""

    def set_value(check_id, value):
        monkeypatch.setitem(CHECKS, check_id, dataclasses.replace(CHECKS[check_id], compute=lambda: value))

    return set_value


@pytest.mark.parametrize("answer", [np.True_, np.bool_(True), np.array(True), np.array([True]), True])
def test_numpy_bools_are_graded_like_python_bools(fixed, answer):
    fixed("ripa-6", np.True_)  # the library's own comparison returns a numpy bool
    assert check("ripa-6", answer)


@pytest.mark.parametrize("answer", [np.False_, np.array(False), False])
def test_a_wrong_numpy_bool_is_wrong_not_an_error(fixed, answer):
    fixed("ripa-6", True)
    result = check("ripa-6", answer)
    assert not result and "False is not it" in result.message


@pytest.mark.parametrize("answer", [1, 0, "True", [True], np.array([True, False]), 1.0])
def test_other_types_for_a_bool_get_a_hint(fixed, answer):
    fixed("ripa-6", True)
    result = check("ripa-6", answer)
    assert not result and "expected True or False" in result.message


@pytest.mark.parametrize("answer", [np.float64(SQRT2), np.float32(SQRT2), np.array(SQRT2), np.array([SQRT2]),
                                    np.array([[SQRT2]]), pd.Series([SQRT2]), SQRT2])
def test_numpy_numbers_are_accepted_against_the_library_value(glove, answer):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy "conversion of an array with ndim > 0" deprecation
        result = check("weat-6", answer)
    assert result, result.message


@pytest.mark.parametrize("answer", [np.array([1.0, 2.0]), np.array([]), [1.0], {1.0}, 1j, 10**400, np.True_,
                                    "one", b"1", object()])
def test_wrong_types_for_a_number_get_a_hint(fixed, answer):
    fixed("weat-1", 0.5)
    result = check("weat-1", answer)
    assert not result and ("expected a number" in result.message or "is not it" in result.message)
    assert len(result.message) < 600


@pytest.mark.parametrize("answer", [np.str_("Family"), np.array("family"), np.array(["FAMILY"]), " family "])
def test_numpy_strings_are_words(fixed, answer):
    fixed("weat-3", "family")
    assert check("weat-3", answer)


@pytest.mark.parametrize("answer", [np.array([1, 3]), np.array([3, 1], dtype=np.int32), [np.int64(1), np.int64(3)],
                                    (1.0, 3.0), pd.Series([3, 1]), {1, 3}, frozenset({1, 3})])
def test_numpy_collections_are_sets(fixed, answer):
    fixed("llh-3", {1, 3})
    assert check("llh-3", answer)


@pytest.mark.parametrize("answer", [[[1, 3]], np.array([[1, 3], [2, 4]]), [{1}, {3}], [1, [3]], {"a": [1]}.values()])
def test_unhashable_items_get_a_hint_not_a_type_error(fixed, answer):
    fixed("llh-3", {1, 3})
    result = check("llh-3", answer)
    assert not result and ("single values" in result.message or "is not it" in result.message)


@pytest.mark.parametrize("check_id", ["llh-3", "weat-3", "weat-1", "ripa-6"])
@pytest.mark.parametrize("answer", ["x" * 8_000_000, list(range(1_000_000)), np.arange(1_000_000),
                                    set(range(1_000_000)), {"k" * 10**6: 1}])
def test_a_huge_answer_gives_a_short_message(fixed, capsys, check_id, answer):
    fixed(check_id, {1, 3} if check_id == "llh-3" else "family" if check_id == "weat-3" else
          0.5 if check_id == "weat-1" else True)
    result = check(check_id, answer)
    printed = capsys.readouterr().out
    assert not result
    hint = CHECKS[check_id].hint
    assert len(result.message) < 400 + len(hint) + len(CHECKS[check_id].question)
    assert printed.strip() == result.message


@pytest.mark.parametrize("check_id", [["weat-1"], None, 3, "x" * 1_000_000])
def test_a_bad_check_id_is_a_short_key_error(check_id):
    with pytest.raises(KeyError, match="unknown check") as info:
        check(check_id, 1.0)
    assert len(str(info.value)) < 600


def test_a_wrong_answer_under_nbgrader_raises_a_short_assertion(fixed, monkeypatch):
    fixed("weat-3", "family")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    with pytest.raises(AssertionError) as info:
        check("weat-3", "y" * 5_000_000)
    assert len(str(info.value)) < 1000
