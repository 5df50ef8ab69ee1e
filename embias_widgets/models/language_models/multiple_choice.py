"""Multiple choice by likelihood: which answer a language model finds most likely after a context.

For an item with context ``x`` (BBQ: the context and the question in lm-evaluation-harness's prompt,
:func:`bbq_prompt`) and choices ``a_1..a_k``:

- causal LMs: ``LL(a_j | x) = sum_m log P(c_m | x, c_<m)`` over the tokens of ``" " + a_j`` (lm-evaluation-harness's
  ``multiple_choice`` requests, :mod:`.choice_causal`);
- masked LMs: ``PLL(a_j | x) = sum_{i in a_j} log P(w_i | x a_j with w_i masked)`` (Salazar et al. 2020, the
  choice's tokens only, :mod:`.choice_masked`).

:class:`ChoiceScores` holds the sums, and the numbers of tokens and characters that normalise them
(:data:`NORMALIZATIONS`): ``"none"`` (lm-eval's ``acc``: the sum), ``"char"`` (lm-eval's ``acc_norm``: the sum over
``len(a_j)``, the choice's characters without the delimiter) or ``"token"`` (the sum over the choice's tokens). The
probabilities of the choices are the softmax of the normalised scores over the item's choices; the prediction is
their first largest (``numpy.argmax``, as lm-eval).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .choice_causal import TARGET_DELIMITER, causal_choice_log_likelihoods, check_no_trailing_tokens, encode_requests
from .choice_masked import masked_choice_plls

BBQ_PROMPT = "{context}\n\nQ: {question}\nA:"
"""lm-evaluation-harness's BBQ prompt (``lm_eval/tasks/bbq/bbq.yaml``, ``doc_to_text``); each answer follows it after
:data:`~.choice_causal.TARGET_DELIMITER` (a space)."""
NORMALIZATIONS = ("none", "token", "char")
"""How a choice's score is normalised for its length: the sum, per token, or per character (lm-eval's acc_norm)."""

__all__ = ["BBQ_PROMPT", "NORMALIZATIONS", "TARGET_DELIMITER", "ChoiceScores", "bbq_prompt", "score_choices"]


def bbq_prompt(context: str, question: str) -> str:
    """``"{context}\\n\\nQ: {question}\\nA:"``: a BBQ item as lm-evaluation-harness's ``bbq`` task prompts it."""
    return BBQ_PROMPT.format(context=context, question=question)


def check_normalization(normalization: str) -> str:
    """``normalization`` if it is one of :data:`NORMALIZATIONS`, else ValueError naming them."""
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"`normalization` must be one of {', '.join(NORMALIZATIONS)}, got {normalization!r}")
    return normalization


@dataclass(frozen=True)
class ChoiceScores:
    """Every choice's score of every item, and what normalises it.

    Attributes
    ----------
    log_likelihood
        ``(items, choices)``: causal LMs ``sum_m log P(c_m | context, c_<m)``; masked LMs the choice's PLL.
    n_tokens
        ``(items, choices)``: the tokens each sum runs over.
    n_chars
        ``(items, choices)``: ``len(choice)`` (lm-eval's ``completion_len``, the delimiter not counted).
    kind
        ``"causal"`` (log-likelihood) or ``"masked"`` (pseudo-log-likelihood).
    """

    log_likelihood: np.ndarray
    n_tokens: np.ndarray
    n_chars: np.ndarray
    kind: str

    def scores(self, normalization: str = "none") -> np.ndarray:
        """The sums (``"none"``), per token (``"token"``) or per character (``"char"``)."""
        check_normalization(normalization)
        if normalization == "none":
            return self.log_likelihood
        return self.log_likelihood / (self.n_tokens if normalization == "token" else self.n_chars)

    def probabilities(self, normalization: str = "none") -> np.ndarray:
        """``softmax`` of :meth:`scores` over each item's choices (rows sum to 1)."""
        return softmax_rows(self.scores(normalization))

    def predicted(self, normalization: str = "none") -> np.ndarray:
        """The index of each item's highest-scoring choice (the first on a tie, as ``numpy.argmax``)."""
        return np.argmax(self.scores(normalization), axis=1)


def softmax_rows(s: np.ndarray) -> np.ndarray:
    """``exp(s - max) / sum(exp(s - max))`` along each row: the probabilities of an item's choices."""
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def check_choices(contexts: Any, choices: Any) -> tuple[list[str], list[list[str]]]:
    """Contexts and their choices as lists, or ValueError naming the first item that is not usable: a context that
    is not a non-empty string, a choice that is not one, or items with different numbers of choices."""
    contexts, choices = list(contexts), [list(c) for c in choices]
    if len(contexts) != len(choices):
        raise ValueError(f"{len(contexts)} contexts but {len(choices)} lists of choices: give one list per context")
    k = len(choices[0]) if choices else 0
    for item, (x, cs) in enumerate(zip(contexts, choices, strict=True)):
        if not isinstance(x, str) or not x.strip():
            raise ValueError(f"item {item}: the context must be text, got {x!r}")
        if len(cs) != k or k < 2:
            raise ValueError(f"item {item} has {len(cs)} choices where the first has {k}: every item needs the same "
                             "number of choices, at least 2")
        for a in cs:
            if not isinstance(a, str) or not a.strip():
                raise ValueError(f"item {item}: each choice must be text, got {a!r}")
    return contexts, choices


def score_choices(scorer: Any, contexts: Sequence[str], choices: Sequence[Sequence[str]]) -> ChoiceScores:
    """Score every choice of every item with a masked or causal scorer
    (:func:`~embias_widgets.models.language_models.load_likelihood_model`)."""
    contexts, choices = check_choices(contexts, choices)
    kind = getattr(scorer, "kind", "")
    if kind == "causal":
        check_no_trailing_tokens(scorer.tokenizer, scorer.name)
        requests = encode_requests(scorer.tokenizer, contexts, choices, max_length=scorer.max_length)
        ll, n_tokens = causal_choice_log_likelihoods(scorer, requests)
    elif kind == "masked":
        ll, n_tokens = masked_choice_plls(scorer, contexts, choices)
    else:
        raise ValueError(f"{getattr(scorer, 'name', type(scorer).__name__)} is not a masked or causal language "
                         "model scorer: load one with load_likelihood_model")
    n_chars = np.array([[len(a) for a in cs] for cs in choices], dtype=np.int64).reshape(ll.shape)
    return ChoiceScores(ll, n_tokens, n_chars, kind)
