"""Language-model scorers: PLL/CPS/AUL/AULA for masked LMs, log-likelihood for causal LMs,
the loader that picks the kind, multiple choice by likelihood (BBQ) and the offline demo MLM.

torch and transformers are imported inside the scorers' loaders, not here.
"""

from .causal_lm import CausalLMScorer
from .loading import load_likelihood_model
from .masked_lm import MaskedLMScorer
from .multiple_choice import ChoiceScores, bbq_prompt, score_choices

__all__ = ["CausalLMScorer", "ChoiceScores", "MaskedLMScorer", "bbq_prompt", "load_likelihood_model", "score_choices"]
