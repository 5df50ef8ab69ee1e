"""Sentence scores from per-token log-probabilities (special tokens excluded), for tokens w_1..w_n.

- PLL (Salazar et al. 2020): ``sum_i log P(w_i | S without w_i)``, one masked copy of S per token;
- CPS (Nangia et al. 2020, CrowS-Pairs): the same sum restricted to the tokens the two sentences of a
  pair share (the modified tokens are never masked); alignment lives in the models layer;
- AUL (Kaneko & Bollegala 2022; Zhou, Kaneko & Bollegala 2022, eq. 5): ``(1/n) sum_i log P(w_i | S)``
  from one pass over the unmasked sentence;
- AULA (Kaneko & Bollegala 2022): ``(1/n) sum_i a_i log P(w_i | S)`` with ``a_i`` the attention token i
  receives, averaged over layers, heads and query positions (not renormalised; their ``evaluate.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["attention_received", "aul_score", "aula_score", "pll_score"]


def _token_array(values: Sequence[float] | np.ndarray, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional (one value per token), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"`{name}` is empty: a sentence needs at least one scored token")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` holds a non-finite value at token {int(np.flatnonzero(~np.isfinite(arr))[0])}")
    return arr


def pll_score(token_log_probs: Sequence[float] | np.ndarray) -> float:
    """Pseudo-log-likelihood ``sum_i log P(w_i | S without w_i)`` (Salazar et al. 2020).

    Also the CPS sentence score when only the shared tokens are passed
    (Nangia et al. 2020).
    """
    return float(_token_array(token_log_probs, "token_log_probs").sum())


def aul_score(token_log_probs: Sequence[float] | np.ndarray) -> float:
    """All Unmasked Likelihood ``(1/n) sum_i log P(w_i | S)``.

    Kaneko & Bollegala (2022); Zhou, Kaneko & Bollegala (2022, eq. 5).
    """
    return float(_token_array(token_log_probs, "token_log_probs").mean())


def attention_received(attentions: np.ndarray) -> np.ndarray:
    """Mean attention each token receives: ``a_k = mean_{l, h, q} A[l, h, q, k]``.

    ``attentions`` has shape (layers, heads, queries, keys), rows softmax-
    normalised over keys, padding already removed. Since every query row sums
    to 1, the returned weights sum to 1 over all key positions (special tokens
    included) (Kaneko & Bollegala 2022, AULA).
    """
    att = np.asarray(attentions, dtype=np.float64)
    if att.ndim != 4:
        raise ValueError(f"`attentions` must have shape (layers, heads, queries, keys), got {att.shape}")
    return att.mean(axis=(0, 1, 2))


def aula_score(token_log_probs: Sequence[float] | np.ndarray, attention: Sequence[float] | np.ndarray) -> float:
    """AUL with attention weights: ``(1/n) sum_i a_i log P(w_i | S)`` (Kaneko & Bollegala 2022).

    ``attention`` holds ``a_i`` for the same tokens as ``token_log_probs``
    (see :func:`attention_received`); the weights are not renormalised, as in
    the authors' ``evaluate.py``.
    """
    lp = _token_array(token_log_probs, "token_log_probs")
    a = _token_array(attention, "attention")
    if a.shape != lp.shape:
        raise ValueError(f"`attention` has {a.size} values but `token_log_probs` has {lp.size}: give one per token")
    return float((a * lp).mean())
