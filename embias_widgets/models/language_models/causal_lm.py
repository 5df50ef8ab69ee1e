"""Sentence log-likelihoods from causal language models (``AutoModelForCausalLM``).

The same interface as :class:`~embias_widgets.models.language_models.masked_lm.MaskedLMScorer`,
for auditing GPT-style models with the same pairs. For tokens w_1..w_n:

- ``"pll"``: the true log-likelihood ``sum_i log P(w_i | w_<i)`` (the sentence
  starts from the begin-of-sequence token, else the end-of-sequence token, as
  lm-evaluation-harness's ``loglikelihood`` with an empty context: prepended
  when the tokenizer does not add it, so w_1 is scored too; a tokenizer with
  neither leaves w_1 out, having no context);
- ``"aul"``: its mean over tokens;
- ``"cps"``: the sum over the tokens a pair shares (difflib alignment as
  CrowS-Pairs), each still conditioned on everything before it.

AULA needs bidirectional attention and is not defined here. One pass per
sentence, sentences packed into equal-length batches under a token budget.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ...metrics.likelihood import aul_score, pll_score
from ..runtime import gc_paused, inference, input_length
from .base import ScorerBase
from .batching import pack_by_length
from .head_split import HeadSplit
from .scoring import CAUSAL_METRICS, PLL_WORD_L2R, PairScores, Tokenized, TokenScores
from .tokens import modified_flags, shared_positions, tokenize

__all__ = ["CAUSAL_METRICS", "CausalLMScorer"]


class CausalLMScorer(ScorerBase):
    """Per-token log P(w_i | w_<i) and sentence scores from a causal LM.

    Parameters are those of :class:`~embias_widgets.models.language_models.masked_lm.MaskedLMScorer`
    (``lowercase`` defaults to False: causal tokenizers are cased).
    """

    kind = "causal"
    metrics = CAUSAL_METRICS
    _auto_model = "AutoModelForCausalLM"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str | None = None,
        description: str = "",
        device: str | None = None,
        dtype: str | None = None,
        token_budget: int | None = None,
        lowercase: bool | None = None,
        progress: bool = True,
    ) -> None:
        self._setup(model, tokenizer, name=name, description=description, device=device,
                    token_budget=token_budget, progress=progress, dtype=dtype)
        self.lowercase = bool(lowercase)
        self.max_length = input_length(model, tokenizer)
        self._passes: dict[tuple[int, ...], np.ndarray] = {}

    @property
    def options(self) -> str:
        return f"lowercase={self.lowercase}"

    def tokenize(self, text: str) -> Tokenized:
        """Tokens with a begin-of-sequence token in front when the tokenizer has one (cached)."""
        if text not in self._tokenized:
            tok = tokenize(self.tokenizer, text, lowercase=self.lowercase, max_length=self.max_length)
            bos = self.prefix_token_id
            if bos is not None and (not tok.ids or tok.ids[0] != bos):
                bos_token = self.tokenizer.convert_ids_to_tokens([bos])[0]
                tok = replace(
                    tok,
                    ids=(int(bos), *tok.ids),
                    tokens=(bos_token, *tok.tokens),
                    pieces=(bos_token, *tok.pieces),
                    space_before=(False, *tok.space_before),
                    special=(True, *tok.special),
                    word_ids=None if tok.word_ids is None else (None, *tok.word_ids),
                )
            self._tokenized[text] = tok
        return self._tokenized[text]

    @property
    def prefix_token_id(self) -> int | None:
        """The token every sentence starts from: the begin-of-sequence token, else the end-of-sequence
        token (lm-evaluation-harness's ``prefix_token_id`` for an empty context), else ``None``."""
        for token_id in (self.tokenizer.bos_token_id, self.tokenizer.eos_token_id):
            if token_id is not None:
                return int(token_id)
        return None

    def _head(self) -> HeadSplit:
        if self._split is None:
            self._split = HeadSplit(self.model, probe_ids=self.tokenize("The cat sat on the mat.").ids)
        return self._split

    def next_token_log_probs(self, sequences: Iterable[Sequence[int]]) -> list[np.ndarray]:
        """``log P(w_i | w_<i)`` for positions 1..n-1 (``nan`` at position 0), one pass each."""
        import torch

        seqs = [tuple(int(i) for i in s) for s in sequences]
        todo = sorted({s for s in seqs if s not in self._passes})
        if todo:
            split = self._head()
            budget = self.token_budget if split.split else max(1, self.token_budget // 8)
            with inference(self.device, self.dtype):  # runtime: no cuDNN attention in half precision
                for batch in pack_by_length([len(s) for s in todo], budget):
                    ids = torch.tensor([todo[k] for k in batch], device=self.device)
                    n_rows, length = ids.shape
                    states, _ = split.hidden(ids)
                    lp = torch.full((n_rows, length), float("nan"), dtype=torch.float64)
                    if length > 1:
                        flat = states[:, :-1].reshape(n_rows * (length - 1), -1)
                        values = split.log_probs(flat, ids[:, 1:].reshape(-1)).reshape(n_rows, length - 1)
                        lp[:, 1:] = values.cpu().double()
                    self.forward_passes += 1
                    for r, k in enumerate(batch):
                        self._passes[todo[k]] = lp[r].numpy()
        return [self._passes[s] for s in seqs]

    def _scorable(self, tok: Tokenized) -> list[int]:
        return [i for i, sp in enumerate(tok.special) if not sp and i > 0]

    @gc_paused()
    def score_sentences(self, sentences: Sequence[str], metric: str = "pll") -> list[TokenScores]:
        """Log-likelihood (``"pll"``) or its per-token mean (``"aul"``) of each sentence."""
        _refuse_word_l2r(metric)
        if metric not in ("pll", "aul"):
            raise ValueError(f"causal LMs score sentences with 'pll' or 'aul' (pairs also 'cps'), not {metric!r}")
        toks = [self.tokenize(s) for s in sentences]
        passes = self.next_token_log_probs(t.ids for t in toks)
        return [_causal_sentence(t, metric, self._scorable(t), lp) for t, lp in zip(toks, passes, strict=True)]

    @gc_paused()
    def score_pairs(self, pairs: Sequence[tuple[str, str]], metric: str = "cps") -> list[PairScores]:
        """Score (stereotypical, anti-stereotypical) pairs; CPS sums the shared tokens only."""
        _refuse_word_l2r(metric)
        if metric not in CAUSAL_METRICS:
            raise ValueError(f"`metric` for a causal LM must be one of {CAUSAL_METRICS}, got {metric!r}")
        toks = [(self.tokenize(s), self.tokenize(a)) for s, a in pairs]
        passes = self.next_token_log_probs(t.ids for pair in toks for t in pair)
        out = []
        for k, (s, a) in enumerate(toks):
            left, right = shared_positions(s.ids, a.ids)
            sides = []
            for tok, shared, lp in ((s, left, passes[2 * k]), (a, right, passes[2 * k + 1])):
                positions = self._scorable(tok)
                if metric == "cps":
                    keep = set(shared)
                    positions = [p for p in positions if p in keep]
                    if not positions:
                        raise ValueError(f"{tok.text!r} shares no scorable token with its pair: use 'pll'")
                scores = _causal_sentence(tok, metric, positions, lp)
                sides.append(replace(scores, modified=modified_flags(len(tok), shared)))
            out.append(PairScores(*sides))
        return out


def _refuse_word_l2r(metric: str) -> None:
    if metric == PLL_WORD_L2R:
        raise ValueError(
            "PLL-word-l2r is for masked LMs: a causal LM never sees the later tokens of a word, so its 'pll' "
            "(the true log-likelihood) is already what PLL-word-l2r approximates; use metric 'pll'"
        )


def _causal_sentence(tok: Tokenized, metric: str, positions: list[int], lp: np.ndarray) -> TokenScores:
    if not positions:
        raise ValueError(f"{tok.text!r} has no token the model can score (no begin-of-sequence token): add words")
    values = lp[positions]
    log_probs = np.full(len(tok), np.nan)
    log_probs[positions] = values
    counted = np.zeros(len(tok), dtype=bool)
    counted[positions] = True
    score = aul_score(values) if metric == "aul" else pll_score(values)
    return TokenScores(tok, metric, score, log_probs, counted, np.zeros(len(tok), dtype=bool))
