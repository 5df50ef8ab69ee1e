"""What a likelihood score is: the metrics, a tokenised sentence, one sentence's per-token
numbers and a scored pair (the types analyses and widgets read).

Scores themselves (sums, means, attention weighting) come from
:mod:`embias_widgets.metrics.likelihood`; the scorers that fill these types are
:mod:`.masked_lm` and :mod:`.causal_lm` (on :mod:`.base`, :mod:`.tokens`,
:mod:`.batching` and :mod:`.head_split`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...metrics.likelihood import aul_score, aula_score, pll_score

PLL_WORD_L2R = "pll-word-l2r"
"""PLL-word-l2r's metric name (Kauf & Ivanova 2023; :mod:`.word_l2r`)."""
MASKED_METRICS = ("cps", "pll", PLL_WORD_L2R, "aul", "aula")
"""Every sentence score a masked LM gives, in the order pickers offer them (the one list: API, CLI, widget, report)."""
CAUSAL_METRICS = ("cps", "pll", "aul")
"""Every sentence score a causal LM gives (``"pll"`` is its true log-likelihood)."""
METRIC_LABELS = {
    "cps": "CPS: sum of log P(shared token | sentence with it masked) (Nangia et al. 2020)",
    "pll": "PLL: sum of log P(token | sentence with it masked) (Salazar et al. 2020)",
    PLL_WORD_L2R: "PLL-word-l2r: sum of log P(token | sentence with it and the rest of its word masked) "
    "(Kauf & Ivanova 2023)",
    "aul": "AUL: mean log P(token | unmasked sentence) (Kaneko & Bollegala 2022)",
    "aula": "AULA: attention-weighted mean log P(token | unmasked sentence) (Kaneko & Bollegala 2022)",
}


@dataclass(frozen=True)
class Tokenized:
    """A sentence as the model sees it.

    ``pieces`` are the display strings of the tokens (from the original text
    when the tokenizer gives offsets), ``space_before[i]`` whether a space
    precedes token i in the text, ``special[i]`` whether it is a special token
    ([CLS], [SEP], <s>, ...). ``word_ids[i]`` is the word token i belongs to
    (``None`` for special tokens; :mod:`.word_l2r`), or ``word_ids`` is ``None``
    when not known.
    """

    text: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    pieces: tuple[str, ...]
    space_before: tuple[bool, ...]
    special: tuple[bool, ...]
    word_ids: tuple[int | None, ...] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def content_positions(self) -> list[int]:
        """The positions that are not special tokens (the ones PLL and AUL score)."""
        return content_positions(self.special)


@dataclass(frozen=True)
class TokenScores:
    """One sentence's score and the per-token numbers behind it.

    Attributes
    ----------
    tokenized
        The tokens, with display pieces and the special-token flags.
    metric
        ``"pll"``, ``"pll-word-l2r"``, ``"cps"``, ``"aul"``, ``"aula"`` (causal
        models: ``"pll"`` is the true log-likelihood ``sum_i log P(w_i | w_<i)``).
    score
        The sentence score (see :data:`METRIC_LABELS`).
    log_probs
        One value per token; ``nan`` where the token is not scored.
    counted
        Which tokens the score counts (CPS: shared tokens only).
    modified
        Tokens not shared with the other sentence of a pair (all ``False``
        for a sentence scored alone).
    attention
        AULA's attention weight per token (mean attention received), else ``None``.
    """

    tokenized: Tokenized
    metric: str
    score: float
    log_probs: np.ndarray
    counted: np.ndarray
    modified: np.ndarray
    attention: np.ndarray | None = field(default=None)

    @property
    def text(self) -> str:
        return self.tokenized.text

    def token_rows(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per token (what the widget draws)."""
        rows = []
        for i, piece in enumerate(self.tokenized.pieces):
            lp = self.log_probs[i]
            rows.append(
                {
                    "piece": piece,
                    "token": self.tokenized.tokens[i],
                    "space": bool(self.tokenized.space_before[i]),
                    "special": bool(self.tokenized.special[i]),
                    "modified": bool(self.modified[i]),
                    "counted": bool(self.counted[i]),
                    "log_prob": None if np.isnan(lp) else float(lp),
                    "attention": None if self.attention is None else float(self.attention[i]),
                }
            )
        return rows


@dataclass(frozen=True)
class PairScores:
    """A scored (stereotypical, anti-stereotypical) pair; ``difference = stereo - anti``."""

    stereo: TokenScores
    anti: TokenScores

    @property
    def difference(self) -> float:
        return self.stereo.score - self.anti.score

    @property
    def preferred(self) -> str:
        """``"stereo"``, ``"anti"`` or ``"tie"``: the sentence the model scores higher."""
        d = self.difference
        return "stereo" if d > 0 else "anti" if d < 0 else "tie"


def content_positions(special: Sequence[Any]) -> list[int]:
    """The positions of a sentence's tokens that are not special tokens (the ones PLL and AUL score), from its
    special-token flags (:attr:`Tokenized.special`, or a tokenizer's ``special_tokens_mask``)."""
    return [i for i, s in enumerate(special) if not s]


def sentence_scores(
    tok: Tokenized,
    metric: str,
    positions: Sequence[int],
    values: np.ndarray,
    *,
    attention: np.ndarray | None = None,
    modified: np.ndarray | None = None,
) -> TokenScores:
    """A sentence's :class:`TokenScores` under ``metric``: ``values`` at ``positions`` (the tokens scored), the
    score over them (:func:`~embias_widgets.metrics.likelihood.pll_score`, ``aul_score`` or ``aula_score``)."""
    log_probs = np.full(len(tok), np.nan)
    log_probs[list(positions)] = values
    counted = np.zeros(len(tok), dtype=bool)
    counted[list(positions)] = True
    if metric == "aul":
        score = aul_score(values)
    elif metric == "aula":
        assert attention is not None
        score = aula_score(values, attention[list(positions)])
    else:
        score = pll_score(values)
    return TokenScores(
        tokenized=tok,
        metric=metric,
        score=score,
        log_probs=log_probs,
        counted=counted,
        modified=np.zeros(len(tok), dtype=bool) if modified is None else modified,
        attention=attention,
    )


def with_modified(scores: TokenScores, modified: np.ndarray) -> TokenScores:
    """``scores`` with the pair's modified tokens flagged (CrowS-Pairs' unshared tokens)."""
    return replace(scores, modified=modified)
