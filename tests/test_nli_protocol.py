"""The NLI classifier protocol and its input/output checks."""

import numpy as np
import pytest

from embias_widgets.models.nli_classifiers import (
    LABELS,
    NliClassifier,
    check_pair_lists,
    check_probabilities,
    is_nli_classifier,
)


class Uniform:
    name = "uniform"
    description = "1/3 each"

    def predict(self, premises, hypotheses):
        return np.full((len(premises), 3), 1 / 3)


def test_label_order_is_entailment_neutral_contradiction():
    assert LABELS == ("entailment", "neutral", "contradiction")


def test_a_plain_object_satisfies_the_protocol():
    assert isinstance(Uniform(), NliClassifier)
    assert is_nli_classifier(Uniform())
    assert not is_nli_classifier(object())


def test_pair_lists_are_checked():
    assert check_pair_lists(("a",), ["b"]) == (["a"], ["b"])
    with pytest.raises(ValueError, match="2 premises but 1 hypotheses"):
        check_pair_lists(["a", "b"], ["c"])
    with pytest.raises(ValueError, match="hypothesis 1 is ''"):
        check_pair_lists(["a", "b"], ["c", ""])
    with pytest.raises(TypeError, match="not one string"):
        check_pair_lists("a", ["b"])


def test_probabilities_are_checked():
    good = check_probabilities([[0.2, 0.5, 0.3]], 1)
    assert good.dtype == np.float64 and good.shape == (1, 3)
    with pytest.raises(ValueError, match=r"expected \(2, 3\)"):
        check_probabilities(np.ones((2, 2)) / 2, 2)
    with pytest.raises(ValueError, match="not probabilities"):
        check_probabilities([[0.5, 0.5, 0.5]], 1)
