"""NLI classifiers for the Dev et al. (2020) inference probes.

:class:`NliClassifier` is the protocol every classifier implements;
:func:`load_nli_model` resolves a registered name, a hub name or a local path.
"""

from .protocol import LABELS, NliClassifier, check_pair_lists, check_probabilities, is_nli_classifier

__all__ = ["LABELS", "NliClassifier", "check_pair_lists", "check_probabilities", "is_nli_classifier"]
