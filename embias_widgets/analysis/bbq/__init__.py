"""BBQ (Parrish et al. 2022): a language model's answers to the Bias Benchmark for QA and the authors' bias scores.

:class:`BbqStudy` scores every item's answers with a masked or causal LM (lm-evaluation-harness's prompt; locally or
on Dask; resumable), :class:`BbqItemScores` holds each item's answers' scores, probabilities and prediction.
"""

from .answer_sets import ANSWER_SETS, LM_EVAL_UNKNOWNS
from .chunks import BbqRunError
from .item_scores import BbqItemScores
from .study import BbqStudy

__all__ = ["ANSWER_SETS", "LM_EVAL_UNKNOWNS", "BbqItemScores", "BbqRunError", "BbqStudy"]
