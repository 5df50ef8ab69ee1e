"""BBQ (Parrish et al. 2022): a result from per-item predictions (:class:`BbqResult`, ``from_predictions``).

Scoring a language model on BBQ builds on this result: it hands :meth:`BbqResult.from_predictions` the answer each
item's model chose (and, where it has them, the three answer probabilities).
"""

from .result import FRAME_COLUMNS, BbqResult

__all__ = ["FRAME_COLUMNS", "BbqResult"]
