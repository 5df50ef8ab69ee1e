"""What every NLI classifier offers: premises and hypotheses in, (entailment,
neutral, contradiction) probabilities out.

Dev et al. (2020, "On Measuring and Mitigating Biased Inferences of Word
Embeddings", ``../shared/papers/001_…``) score every template pair with the
three label probabilities (E, N, C); the probes and the neutrality metrics
(:mod:`embias_widgets.metrics.neutrality`) need nothing else from a model. A
cross-encoder (:class:`~.cross_encoder.CrossEncoderNli`), the offline demo
bi-encoder (``embias-demo-nli``) or a user's own object satisfy this protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

#: Column order of every probability array in the project.
LABELS: tuple[str, str, str] = ("entailment", "neutral", "contradiction")


@runtime_checkable
class NliClassifier(Protocol):
    """A natural-language-inference classifier.

    ``predict(premises, hypotheses)`` returns an ``(n, 3)`` float64 array of
    probabilities, columns in the order of :data:`LABELS`
    (entailment, neutral, contradiction); each row sums to 1. Row ``i`` depends
    only on ``(premises[i], hypotheses[i])``, not on the other rows passed with
    it (batch-size independent within float tolerance).
    """

    name: str
    description: str

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray: ...


def is_nli_classifier(obj: object) -> bool:
    """Whether ``obj`` looks like an :class:`NliClassifier` (has ``predict``, ``name``)."""
    return callable(getattr(obj, "predict", None)) and isinstance(getattr(obj, "name", None), str)


def check_pair_lists(premises: Sequence[str], hypotheses: Sequence[str]) -> tuple[list[str], list[str]]:
    """Validate the input of ``predict``: two equally long sequences of non-empty strings."""
    if isinstance(premises, str) or isinstance(hypotheses, str):
        raise TypeError("premises and hypotheses must be sequences of strings, not one string: wrap it in a list")
    premises, hypotheses = list(premises), list(hypotheses)
    if len(premises) != len(hypotheses):
        raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses: give one hypothesis per premise")
    for which, texts in (("premise", premises), ("hypothesis", hypotheses)):
        for i, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{which} {i} is {text!r}: every {which} must be a non-empty string")
    return premises, hypotheses


def check_probabilities(probs: np.ndarray, n: int, *, name: str = "classifier", atol: float = 1e-4) -> np.ndarray:
    """``probs`` as an ``(n, 3)`` float64 array whose rows are probability vectors, else ValueError."""
    arr = np.asarray(probs, dtype=np.float64)
    if arr.shape != (n, 3):
        raise ValueError(f"{name}.predict returned shape {arr.shape}, expected ({n}, 3) in the order {LABELS}")
    if n and (not np.all(np.isfinite(arr)) or arr.min() < -atol or np.abs(arr.sum(axis=1) - 1).max() > atol):
        raise ValueError(f"{name}.predict returned rows that are not probabilities (finite, >= 0, summing to 1)")
    return arr
