"""NLI classifiers for the Dev et al. (2020) inference probes.

:class:`NliClassifier` is the protocol every classifier implements;
:func:`load_nli_model` resolves a registered name, a hub name or a local path;
:class:`CrossEncoderNli` wraps any ``AutoModelForSequenceClassification``
(torch and transformers are imported only when a model is loaded).
"""

from .loading import load_nli_model
from .protocol import LABELS, NliClassifier, check_pair_lists, check_probabilities, is_nli_classifier

__all__ = [
    "LABELS",
    "CrossEncoderNli",
    "NliClassifier",
    "NliLabelError",
    "check_pair_lists",
    "check_probabilities",
    "is_nli_classifier",
    "load_nli_model",
]


def __getattr__(name: str):  # lazy: cross_encoder imports nothing heavy at module level, but keep the door shut
    if name in ("CrossEncoderNli", "NliLabelError", "label_columns"):
        from . import cross_encoder

        return getattr(cross_encoder, name)
    raise AttributeError(name)
