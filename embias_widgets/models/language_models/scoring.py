"""What masked- and causal-LM scorers share: tokenised sentences, per-token
results, pair alignment, batch packing and the split of a model into its
encoder and its prediction head.

Scores themselves (sums, means, attention weighting) come from
:mod:`embias_widgets.metrics.likelihood`; torch is imported only inside
functions that run a model.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

MASKED_METRICS = ("cps", "pll", "aul", "aula")
METRIC_LABELS = {
    "cps": "CPS: sum of log P(shared token | sentence with it masked) (Nangia et al. 2020)",
    "pll": "PLL: sum of log P(token | sentence with it masked) (Salazar et al. 2020)",
    "aul": "AUL: mean log P(token | unmasked sentence) (Kaneko & Bollegala 2022)",
    "aula": "AULA: attention-weighted mean log P(token | unmasked sentence) (Kaneko & Bollegala 2022)",
}


@dataclass(frozen=True)
class Tokenized:
    """A sentence as the model sees it.

    ``pieces`` are the display strings of the tokens (from the original text
    when the tokenizer gives offsets), ``space_before[i]`` whether a space
    precedes token i in the text, ``special[i]`` whether it is a special token
    ([CLS], [SEP], <s>, ...).
    """

    text: str
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    pieces: tuple[str, ...]
    space_before: tuple[bool, ...]
    special: tuple[bool, ...]

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class TokenScores:
    """One sentence's score and the per-token numbers behind it.

    Attributes
    ----------
    tokenized
        The tokens, with display pieces and the special-token flags.
    metric
        ``"pll"``, ``"cps"``, ``"aul"``, ``"aula"`` (causal models: ``"pll"`` is
        the true log-likelihood ``sum_i log P(w_i | w_<i)``).
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


# -- alignment -------------------------------------------------------------------------------
def shared_positions(
    ids_a: Sequence[int], ids_b: Sequence[int], *, autojunk: bool = False
) -> tuple[list[int], list[int]]:
    """Positions of the tokens two sequences share, from difflib's ``equal`` blocks.

    As CrowS-Pairs' ``get_span`` (Nangia et al. 2020): align the token-id
    sequences with ``difflib.SequenceMatcher`` and keep the ``equal`` opcodes;
    everything else is a modified token. CrowS-Pairs leaves difflib's
    ``autojunk`` heuristic on, which changes alignments only for sequences of
    200 tokens or more; it is off here unless asked for.
    """
    matcher = difflib.SequenceMatcher(None, list(ids_a), list(ids_b), autojunk=autojunk)
    left: list[int] = []
    right: list[int] = []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            left.extend(range(a0, a1))
            right.extend(range(b0, b1))
    return left, right


# -- batching ------------------------------------------------------------------------------------
def pack_by_length(lengths: Sequence[int], token_budget: int) -> list[list[int]]:
    """Indices grouped into batches of equal length with ``rows * length <= token_budget``.

    Equal lengths mean no padding, so a row's result does not depend on which
    other rows share its batch; a sequence longer than the budget gets a batch
    of its own. Batches are in order of length, then of index.
    """
    if token_budget < 1:
        raise ValueError(f"`token_budget` must be a positive number of tokens, got {token_budget}")
    by_length: dict[int, list[int]] = {}
    for index, length in enumerate(lengths):
        by_length.setdefault(int(length), []).append(index)
    batches = []
    for length in sorted(by_length):
        rows = max(1, token_budget // max(length, 1))
        members = by_length[length]
        batches.extend(members[i : i + rows] for i in range(0, len(members), rows))
    return batches


def choose_device(device: str | None) -> str:
    """``device`` as given, else ``"cuda"`` when torch sees a GPU, else ``"cpu"``."""
    if device is not None:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_threads(requested: int | None = None) -> int:
    """Torch CPU threads for scoring: ``requested``, else the cores not already busy.

    The default is ``os.cpu_count()`` minus the 1-minute load average,
    rounded, at least 1 and at most torch's own default. Scoring is
    compute-bound matrix multiplies split across threads, and a batch waits
    for its slowest thread: on a shared 2-core machine under load 2 threads
    ran 3-6x slower than 1, while on an idle machine every core helps.
    """
    import os

    import torch

    if requested is not None:
        if int(requested) != requested or requested < 1:
            raise ValueError(f"--threads must be a whole number of at least 1, got {requested!r}")
        return int(requested)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        busy = round(os.getloadavg()[0])
    except OSError:  # no load average on this platform
        busy = 0
    return max(1, min(torch.get_num_threads(), cores - busy))


class ScorerBase:
    """What masked- and causal-LM scorers share: the model on its device, the
    tokenizer, a validated token budget, the per-text token cache, loading by
    hub name or path (``_auto_model`` names the ``transformers`` Auto class)."""

    _auto_model = ""

    def _setup(self, model: Any, tokenizer: Any, *, name: str | None, description: str,
               device: str | None, token_budget: int, progress: bool) -> None:
        self.device = choose_device(device)
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.name = name or getattr(model.config, "name_or_path", "") or type(model).__name__
        self.description = description
        self.token_budget = int(token_budget)
        pack_by_length([1], self.token_budget)  # validates the budget
        self.progress = progress
        self._split: HeadSplit | None = None
        self._tokenized: dict[str, Tokenized] = {}
        self.forward_passes = 0

    @classmethod
    def from_pretrained(cls, name_or_path: str, **options: Any) -> Any:
        """Load the model (``transformers.<_auto_model>``) and ``AutoTokenizer`` from a hub name or a local path."""
        import transformers

        from ..sentence_encoders.hub import check_device, check_model_dir, from_pretrained

        check_device(options.get("device"))
        path = check_model_dir(name_or_path, what="language model")
        tokenizer = transformers.AutoTokenizer.from_pretrained(name_or_path)
        model = from_pretrained(getattr(transformers, cls._auto_model), name_or_path, path)
        return cls(model, tokenizer, name=options.pop("name", str(name_or_path)), **options)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, device={self.device!r}, token_budget={self.token_budget})"


# -- tokenising ----------------------------------------------------------------------------------
def tokenize(tokenizer: Any, text: str, *, lowercase: bool, max_length: int | None) -> Tokenized:
    """Tokenise ``text`` with special tokens; lowercase first for uncased models (CrowS-Pairs)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"cannot score an empty sentence ({text!r}): type some words")
    model_text = text.lower() if lowercase else text
    try:
        enc = tokenizer(model_text, return_special_tokens_mask=True, return_offsets_mapping=True)
        offsets = enc["offset_mapping"]
    except (NotImplementedError, ValueError, TypeError):
        enc = tokenizer(model_text, return_special_tokens_mask=True)
        offsets = None
    ids = tuple(int(i) for i in enc["input_ids"])
    special = tuple(bool(s) for s in enc["special_tokens_mask"])
    tokens = tuple(tokenizer.convert_ids_to_tokens(list(ids)))
    if max_length is not None and len(ids) > max_length:
        raise ValueError(
            f"{text[:60]!r}... has {len(ids)} tokens but the model takes at most {max_length}: "
            "shorten or split the sentence"
        )
    display = text if len(text) == len(model_text) else model_text
    pieces, spaces = _display_pieces(tokens, special, offsets, display)
    return Tokenized(text, ids, tokens, pieces, spaces, special)


def _display_pieces(
    tokens: Sequence[str], special: Sequence[bool], offsets: Any, text: str
) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    pieces: list[str] = []
    spaces: list[bool] = []
    prev_end: int | None = None
    for i, token in enumerate(tokens):
        if special[i]:
            pieces.append(token)
            spaces.append(bool(pieces[:-1]))
            continue
        if offsets is not None:
            start, end = (int(x) for x in offsets[i])
            pieces.append(text[start:end] or token)
            spaces.append(prev_end is not None and start > prev_end)
            prev_end = end
            continue
        word_start = not token.startswith("##")
        clean = token.removeprefix("##").lstrip("Ġ▁")
        pieces.append(clean or token)
        spaces.append(prev_end is not None and (word_start or token[:1] in "Ġ▁"))
        prev_end = i
    return tuple(pieces), tuple(spaces)


def modified_flags(length: int, shared: Iterable[int]) -> np.ndarray:
    """Boolean array: True where a position is not among ``shared``."""
    flags = np.ones(length, dtype=bool)
    flags[list(shared)] = False
    return flags


# -- the model's encoder and head ------------------------------------------------------------------
#: Head checks already made: (model class, head class, config JSON) -> whether the split agreed.
_HEAD_CHECKS: dict[tuple[type, type, str], bool] = {}
#: Bytes of logits per logsumexp block: small enough to stay in a core's L2 cache.
LSE_BLOCK_BYTES = 1 << 20
#: Encoders whose last layer can be run at the masked rows only (their layers are BertLayer-shaped).
LAST_ROWS_BASES = ("BertModel", "RobertaModel", "XLMRobertaModel", "CamembertModel")


class HeadSplit:
    """Run a ``*ForMaskedLM``/``*ForCausalLM`` as encoder + prediction head.

    Only the positions whose log-probability is wanted go through the head,
    so a masked copy costs one row of logits instead of one per token. Used
    when ``head(base_model(x)) == model(x).logits`` on a probe input; the
    check runs once per model architecture (class and config) in a process,
    since it is a property of how the model composes its parts, not of its
    weights. Otherwise the whole model runs and the rows are picked afterwards.

    ``log_probs`` takes ``logsumexp`` over the vocabulary in blocks of rows
    that fit in cache (:data:`LSE_BLOCK_BYTES`, so the block follows the
    vocabulary size): each row's value is bit-for-bit the unblocked one, and
    on a small model, where the head dominates, it is faster.

    ``last_rows`` runs the last encoder layer at one row per sequence only
    (keys and values still from every row) for BERT-shaped encoders
    (:data:`LAST_ROWS_BASES`); ``supports_last_rows`` says whether it can.
    """

    HEAD_NAMES = ("cls", "lm_head", "predictions")

    def __init__(self, model: Any, *, probe_ids: Sequence[int], head_chunk_bytes: int = 64 << 20) -> None:
        self.model = model
        self.base = getattr(model, "base_model", None)
        self.head = self._find_head(model)
        vocab = int(getattr(model.config, "vocab_size", 0) or 0) or 50_000
        self.chunk = max(1, head_chunk_bytes // (4 * vocab))
        self.lse_rows = max(1, LSE_BLOCK_BYTES // (4 * vocab))
        self.split = self.base is not None and self.head is not None and self._checked(probe_ids)

    def _find_head(self, model: Any) -> Any:
        for name in self.HEAD_NAMES:
            head = getattr(model, name, None)
            if head is not None and callable(head):
                return head
        return None

    def _checked(self, probe_ids: Sequence[int]) -> bool:
        try:
            key = (type(self.model), type(self.head), self.model.config.to_json_string())
        except Exception:  # a config that cannot say what it is: check every time
            return self._agrees(probe_ids)
        if key not in _HEAD_CHECKS:
            _HEAD_CHECKS[key] = self._agrees(probe_ids)
        return _HEAD_CHECKS[key]

    def _agrees(self, probe_ids: Sequence[int]) -> bool:
        import torch

        device = next(self.model.parameters()).device
        ids = torch.tensor([list(probe_ids)], device=device)
        with torch.no_grad():
            try:
                full = self.model(input_ids=ids).logits
                mine = self.head(self.base(input_ids=ids)[0])
            except Exception:
                return False
        return mine.shape == full.shape and bool(torch.allclose(mine, full, atol=1e-4, rtol=1e-4))

    def hidden(self, ids: Any, *, attentions: bool = False) -> tuple[Any, Any]:
        """``(hidden states or logits, attentions or None)`` for a ``(rows, length)`` batch."""
        module = self.base if self.split else self.model
        out = module(input_ids=ids, output_attentions=attentions) if attentions else module(input_ids=ids)
        states = out[0] if self.split else out.logits
        return states, (out.attentions if attentions else None)

    def log_probs(self, states: Any, targets: Any) -> Any:
        """``log P(target)`` for rows of hidden states (split) or of logits (whole model)."""
        import torch

        out = torch.empty(targets.shape[0], dtype=torch.float32, device=targets.device)
        for start in range(0, targets.shape[0], self.chunk):
            stop = min(start + self.chunk, targets.shape[0])
            logits = (self.head(states[start:stop]) if self.split else states[start:stop]).float()
            picked = logits.gather(1, targets[start:stop, None])[:, 0]
            if logits.device.type == "cpu":  # row blocks that stay in cache; same values bit for bit
                for lo in range(0, stop - start, self.lse_rows):
                    hi = min(lo + self.lse_rows, stop - start)
                    out[start + lo : start + hi] = picked[lo:hi] - torch.logsumexp(logits[lo:hi], dim=-1)
            else:
                out[start:stop] = picked - torch.logsumexp(logits, dim=-1)
        return out

    # -- the last layer at the masked rows only ---------------------------------------------------
    @property
    def supports_last_rows(self) -> bool:
        if not self.split or type(self.base).__name__ not in LAST_ROWS_BASES:
            return False
        layers = getattr(getattr(self.base, "encoder", None), "layer", None)
        if not layers:
            return False
        last = layers[-1]
        needed = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                  "attention.output.LayerNorm", "intermediate", "output.dense", "output.LayerNorm")
        return all(_has_path(last, path) for path in needed) and not getattr(last, "is_decoder", False)

    def last_rows(self, ids: Any, rows: Any, positions: Any) -> Any:
        """Hidden states at ``(rows, positions)`` (one per sequence) with the last layer run there only.

        The layers before the last run as the model runs them (the input of
        the last layer is caught with a forward pre-hook); the last layer then
        computes queries, attention and the feed-forward block for one row per
        sequence, with keys and values from all rows, as BERT's layer does:
        ``a = LN(x + W_o softmax(q K^T / sqrt(d_h) + mask) V)``,
        ``out = LN(a + W_2 act(W_1 a))``, per head. Equal to the full pass up
        to float rounding (a different order of operations).
        """
        import torch

        last = self.base.encoder.layer[-1]
        caught: dict[str, Any] = {}

        def catch(module: Any, args: tuple, kwargs: dict) -> None:
            caught["hidden"] = args[0] if args else kwargs["hidden_states"]
            caught["mask"] = args[1] if len(args) > 1 else kwargs.get("attention_mask")
            raise _LastLayerReachedError

        handle = last.register_forward_pre_hook(catch, with_kwargs=True)
        try:
            self.base(input_ids=ids)
        except _LastLayerReachedError:
            pass
        finally:
            handle.remove()
        hidden, mask = caught["hidden"], caught["mask"]
        attn = last.attention.self
        n_rows, length, _ = hidden.shape
        heads, size = attn.num_attention_heads, attn.attention_head_size
        x = hidden[rows, positions]  # (rows, width)
        q = attn.query(x).view(n_rows, heads, 1, size)
        k = attn.key(hidden).view(n_rows, length, heads, size).transpose(1, 2)
        v = attn.value(hidden).view(n_rows, length, heads, size).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) * getattr(attn, "scaling", size**-0.5)
        if mask is not None:  # additive (float) or boolean, one row per query position or shared
            row_mask = _mask_rows(mask, positions)
            if row_mask.dtype == torch.bool:
                scores = scores.masked_fill(~row_mask, torch.finfo(scores.dtype).min)
            else:
                scores = scores + row_mask
        context = torch.matmul(torch.softmax(scores, dim=-1), v).reshape(n_rows, heads * size)
        out = last.attention.output
        a = out.LayerNorm(out.dense(context) + x)
        return last.output.LayerNorm(last.output.dense(last.intermediate(a)) + a)


class _LastLayerReachedError(Exception):
    """Raised by the pre-hook once the last layer's input is caught (nothing after it is needed)."""


def _mask_rows(mask: Any, positions: Any) -> Any:
    """The attention mask's row for each sequence's query position, shaped ``(rows, 1 or heads, 1, keys)``."""
    if mask.shape[2] == 1:
        return mask
    index = positions.view(-1, 1, 1, 1).expand(-1, mask.shape[1], 1, mask.shape[3])
    return mask.gather(2, index)


def _has_path(module: Any, path: str) -> bool:
    for part in path.split("."):
        module = getattr(module, part, None)
        if module is None:
            return False
    return True


def eager_attention(model: Any) -> Any:
    """Context manager: eager attention while it is open (sdpa returns no weights)."""
    import contextlib

    @contextlib.contextmanager
    def manager() -> Any:
        config = model.config
        before = getattr(config, "_attn_implementation", None)
        if before in (None, "eager"):
            yield
            return
        setter = getattr(model, "set_attn_implementation", None)
        if setter is not None:
            setter("eager")
        else:
            config._attn_implementation = "eager"
        try:
            yield
        finally:
            if setter is not None:
                setter(before)
            else:
                config._attn_implementation = before

    return manager()
