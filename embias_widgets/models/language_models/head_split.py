"""A masked or causal LM run as encoder + prediction head, so only the wanted rows pay for the vocabulary.

torch is imported inside the methods that run the model.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

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
