"""BBQ (Parrish et al. 2022): a language model's answers to the Bias Benchmark for QA and the authors' scores.

:class:`BbqStudy` scores every item's answers with a masked or causal LM (lm-evaluation-harness's prompt; locally or
on Dask; resumable) and hands the predictions to :class:`BbqResult` (``from_predictions``: the authors' accuracy and
bias scores per category and context condition, with intervals that redraw templates); :class:`BbqItemScores` keeps
each item's answers' scores, probabilities and prediction. Predictions from elsewhere (the authors' UnifiedQA
outputs) go to :meth:`BbqResult.from_predictions` directly.
"""

from .answer_sets import ANSWER_SETS, LM_EVAL_UNKNOWNS
from .chunks import BbqRunError
from .item_scores import BbqItemScores
from .result import FRAME_COLUMNS, BbqResult
from .study import BbqStudy

__all__ = ["ANSWER_SETS", "FRAME_COLUMNS", "LM_EVAL_UNKNOWNS", "BbqItemScores", "BbqResult", "BbqRunError",
           "BbqStudy"]
