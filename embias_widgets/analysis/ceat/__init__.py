"""CEAT, the Contextualized Embedding Association Test (Guo & Caliskan 2021): WEAT over many contexts per word.

- :mod:`.study`: :class:`ContextualAssociationTest` (a test, a contextual model, contexts; ``run()``);
- :mod:`.result`: :class:`ContextualAssociationResult` (summary, to_dict with every sample, frame, chart).

The headline (effect size, interval, p) is :mod:`embias_widgets.metrics.ceat_inference`'s, the paper's
random effects :mod:`embias_widgets.metrics.ceat`'s; the tests 11-14 and the context sources in
:mod:`embias_widgets.stimuli.ceat_contexts`.
"""

from .result import INTERVAL_METHOD, ContextualAssociationResult
from .study import DEFAULT_SAMPLES, CeatInputError, ContextualAssociationTest, load_contextual_model

__all__ = [
    "DEFAULT_SAMPLES",
    "INTERVAL_METHOD",
    "CeatInputError",
    "ContextualAssociationResult",
    "ContextualAssociationTest",
    "load_contextual_model",
]
