"""Language-model scorers: PLL/CPS/AUL/AULA for masked LMs, log-likelihood for causal LMs,
the loader that picks the kind, and the offline demo MLM.

torch and transformers are imported inside the scorers' loaders, not here.
"""

from .causal_lm import CausalLMScorer
from .loading import load_likelihood_model
from .masked_lm import MaskedLMScorer

__all__ = ["CausalLMScorer", "MaskedLMScorer", "load_likelihood_model"]
