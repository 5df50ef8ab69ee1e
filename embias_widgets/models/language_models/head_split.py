"""A masked or causal LM run as encoder + prediction head, so only the wanted rows pay for the vocabulary.

torch is imported inside the methods that run the model.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .batching import equal_parts
from .encoder_loop import EncoderLoop, albert_group, attention_scaling
from .vocab_blocks import decoder_input, output_decoder, target_log_probs

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

    ``log_probs`` on the CPU runs the head up to its decoder and the decoder
    in vocabulary blocks that stay in cache (:mod:`.vocab_blocks`: the
    logits are the GEMM's own, ``logsumexp`` combined in float64), checked
    once per instance against the head's own logits; elsewhere it takes
    ``logsumexp`` over the whole logits in blocks of rows that fit in cache
    (:data:`LSE_BLOCK_BYTES`; bit-for-bit the unblocked value).

    ``last_rows`` runs the last encoder layer at one row per sequence only
    (keys and values still from every row) for BERT-shaped encoders
    (:data:`LAST_ROWS_BASES`) and ALBERT; ``supports_last_rows`` says whether it can.
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
        self._slow_gelu = _slow_gelu_sites(model)
        self._probe = list(probe_ids)
        self._loops: dict[int, Any] = {}
        self.decoder = output_decoder(model, self.head) if self.split else None
        self._blocks_agree: bool | None = None

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
        with self.fused_gelu():
            out = module(input_ids=ids, output_attentions=attentions) if attentions else module(input_ids=ids)
        states = out[0] if self.split else out.logits
        return states, (out.attentions if attentions else None)

    def log_probs(self, states: Any, targets: Any) -> Any:
        """``log P(target)`` for rows of hidden states (split) or of logits (whole model): float64 on the CPU,
        float32 elsewhere (Apple's MPS has no float64)."""
        import torch

        cpu = targets.device.type == "cpu"
        out = torch.empty(targets.shape[0], dtype=torch.float64 if cpu else torch.float32, device=targets.device)
        rows, blocked = targets.shape[0], self.vocab_blocks(states)  # blocks: one tile's logits at a time
        rows_of, size = (self._blocked, max(rows, 1)) if blocked else (self._whole, equal_parts(rows, self.chunk))
        for start in range(0, rows, size):
            out[start : start + size] = rows_of(states[start : start + size], targets[start : start + size])
        return out

    def _blocked(self, states: Any, targets: Any) -> Any:
        """The head up to its decoder, the decoder in vocabulary blocks (:func:`~.vocab_blocks.target_log_probs`)."""
        x = decoder_input(self.head, self.decoder, states)
        return target_log_probs(x, self.decoder.weight, self.decoder.bias, targets)

    def _whole(self, states: Any, targets: Any) -> Any:
        """The whole logits, ``logsumexp`` on the CPU in row blocks that stay in cache (bit for bit the same)."""
        import torch

        logits = (self.head(states) if self.split else states).float()
        picked = logits.gather(1, targets[:, None])[:, 0]
        if logits.device.type != "cpu":
            return picked - torch.logsumexp(logits, dim=-1)
        out = torch.empty_like(picked)
        for lo in range(0, picked.shape[0], self.lse_rows):
            out[lo : lo + self.lse_rows] = picked[lo : lo + self.lse_rows] - torch.logsumexp(
                logits[lo : lo + self.lse_rows], dim=-1)
        return out

    def vocab_blocks(self, states: Any) -> bool:
        """Whether :meth:`log_probs` runs the decoder in vocabulary blocks for ``states``: on the CPU in float32
        or float64, for a head whose decoder :func:`~.vocab_blocks.output_decoder` finds and whose blocked
        values agree with its own logits (checked once, on the first rows it is given)."""
        import torch

        if (self.decoder is None or states.device.type != "cpu" or not states.shape[0]
                or states.dtype not in (torch.float32, torch.float64)):
            return False
        if self._blocks_agree is None:
            self._blocks_agree = self._blocks_check(states[:16])
        return self._blocks_agree

    def _blocks_check(self, states: Any) -> bool:
        """Blocks against the whole logits of the head, on the first rows :meth:`log_probs` is given."""
        import torch

        targets = torch.arange(states.shape[0]) * 7919 % self.decoder.weight.shape[0]  # spread over the vocabulary
        try:
            with torch.inference_mode():
                want, got = self._whole(states, targets).double(), self._blocked(states, targets)
        except Exception:  # a head laid out otherwise: the whole logits
            return False
        return got.shape == want.shape and bool(torch.allclose(got, want, rtol=1e-4, atol=1e-4))

    # -- the last layer at the masked rows only ---------------------------------------------------
    @property
    def supports_last_rows(self) -> bool:
        """Whether :meth:`last_rows` can run on this model (split, and an encoder in :data:`LAST_ROWS_BASES`
        or ALBERT's shared layers)."""
        return self.split and last_layer(self.base) is not None

    def last_rows(self, ids: Any, rows: Any, positions: Any, **inputs: Any) -> Any:
        """Hidden states at ``(rows, positions)`` (one per sequence) with the last layer run there only.

        The layers before the last run as the model runs them, called one by
        one (:func:`last_layer_input`; ALBERT calls its shared layer once per
        depth, so the last call is the last layer); no hook is registered;
        the last layer then computes queries, attention and the feed-forward
        block for one row per sequence, with keys and values from all rows,
        as BERT's layer does (Vaswani et al. 2017; Devlin et al. 2019):
        ``a = LN(x + W_o softmax(q K^T / sqrt(d_h) + mask) V)``,
        ``out = LN(a + W_2 act(W_1 a))``, per head. Equal to the full pass up
        to float rounding (a different order of operations). ``inputs`` go to
        the encoder as they are (``token_type_ids``, ``attention_mask``).
        """
        layer = last_layer(self.base)
        if layer is None:
            raise ValueError(f"{type(self.base).__name__} has no last layer that can run at chosen rows")
        with self.fused_gelu():
            return run_last_layer_at(self.base, layer, ids, rows, positions, **inputs)

    def encoder_loop(self, mask_id: int) -> Any:
        """The :class:`~.encoder_loop.EncoderLoop` that computes :meth:`last_rows` for masked copies (first-layer
        sharing, fused projections), built and checked against :meth:`last_rows` once; None where it cannot run
        (then :meth:`last_rows` does)."""
        if mask_id not in self._loops:
            self._loops[mask_id] = EncoderLoop.build(self.base, self._probe, mask_id, self.last_rows) if (
                self.supports_last_rows) else None
        return self._loops[mask_id]

    @contextlib.contextmanager
    def fused_gelu(self) -> Any:
        """While open, the model's ``NewGELUActivation`` modules (ALBERT's ``gelu_new``: ``0.5 x (1 + tanh(
        sqrt(2/pi) (x + 0.044715 x^3)))`` in six tensor operations) are torch's one-kernel ``gelu(x,
        approximate="tanh")``, the same formula (Hendrycks & Gimpel 2016, eq. 2): equal within 3e-7, about
        5x faster, a fifth of an ALBERT pass on CPU. Restored afterwards."""
        if not self._slow_gelu:
            yield
            return
        import torch

        fast = torch.nn.GELU(approximate="tanh")
        for parent, name, _ in self._slow_gelu:
            setattr(parent, name, fast)
        try:
            yield
        finally:
            for parent, name, original in self._slow_gelu:
                setattr(parent, name, original)


@dataclass(frozen=True)
class LastLayer:
    """The parts of an encoder's last layer that :meth:`HeadSplit.last_rows` runs by hand.

    ``module``'s ``calls``-th call in a forward pass is the last layer (ALBERT
    shares one layer across depths). ``inner(a)`` is the first
    feed-forward projection with its activation.
    """

    module: Any
    calls: int
    query: Any
    key: Any
    value: Any
    heads: int
    size: int
    scaling: float
    attention_dense: Any
    attention_norm: Any
    inner: Any
    output_dense: Any
    output_norm: Any


_BERT_PARTS = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
               "attention.output.LayerNorm", "intermediate", "output.dense", "output.LayerNorm")
_ALBERT_PARTS = ("attention.query", "attention.key", "attention.value", "attention.dense", "attention.LayerNorm",
                 "ffn", "activation", "ffn_output", "full_layer_layer_norm")


def last_layer(base: Any) -> LastLayer | None:
    """The last layer of a BERT-shaped encoder (:data:`LAST_ROWS_BASES`) or of ALBERT, else None."""
    name = type(base).__name__
    if name in LAST_ROWS_BASES:
        layers = getattr(getattr(base, "encoder", None), "layer", None)
        if not layers or not all(_has_path(layers[-1], p) for p in _BERT_PARTS) or getattr(
                layers[-1], "is_decoder", False):
            return None
        last = layers[-1]
        attn = last.attention.self
        return LastLayer(last, 1, attn.query, attn.key, attn.value, attn.num_attention_heads,
                         attn.attention_head_size, attention_scaling(attn),
                         last.attention.output.dense, last.attention.output.LayerNorm, last.intermediate,
                         last.output.dense, last.output.LayerNorm)
    if name == "AlbertModel":
        groups = getattr(getattr(base, "encoder", None), "albert_layer_groups", None)
        if not groups or not getattr(groups[-1], "albert_layers", None):
            return None
        last = groups[-1].albert_layers[-1]
        if not all(_has_path(last, p) for p in _ALBERT_PARTS) or getattr(last, "chunk_size_feed_forward", 0):
            return None
        depth, n_groups = int(base.config.num_hidden_layers), len(groups)
        calls = sum(1 for i in range(depth) if albert_group(i, depth, n_groups) == n_groups - 1)
        attn = last.attention
        return LastLayer(last, calls, attn.query, attn.key, attn.value, attn.num_attention_heads,
                         attn.attention_head_size, attention_scaling(attn),
                         attn.dense, attn.LayerNorm, lambda a: last.activation(last.ffn(a)), last.ffn_output,
                         last.full_layer_layer_norm)
    return None


def run_last_layer_at(base: Any, layer: LastLayer, ids: Any, rows: Any, positions: Any, **inputs: Any) -> Any:
    """Hidden states of encoder ``base`` at ``(rows, positions)``, its last ``layer`` run at those rows only
    (:meth:`HeadSplit.last_rows`; the cross-encoder NLI classifier uses it at the ``[CLS]`` row)."""
    import torch

    hidden, mask = last_layer_input(base, layer, ids, **inputs)
    n_rows, length, _ = hidden.shape
    heads, size = layer.heads, layer.size
    x = hidden[rows, positions]  # (rows, width)
    q = layer.query(x)
    k = layer.key(hidden).view(n_rows, length, heads, size)
    v = layer.value(hidden).view(n_rows, length, heads, size)
    exact = hidden.dtype in (torch.float32, torch.float64)  # products summed in the dtype: full precision only
    if exact:  # one query row per sequence: products and sums, not n_rows x heads GEMMs of one row each
        scores = (k * q.view(n_rows, 1, heads, size)).sum(-1).transpose(1, 2).unsqueeze(2) * layer.scaling
    else:
        scores = torch.matmul(q.view(n_rows, heads, 1, size), k.transpose(1, 2).transpose(2, 3)) * layer.scaling
    if mask is not None:  # additive (float) or boolean, one row per query position or shared
        row_mask = _mask_rows(mask, positions)
        if row_mask.dtype == torch.bool:
            scores = scores.masked_fill(~row_mask, torch.finfo(scores.dtype).min)
        else:
            scores = scores + row_mask
    p = torch.softmax(scores, dim=-1)  # (rows, heads, 1, keys)
    if exact:
        context = (p[:, :, 0, :].transpose(1, 2).unsqueeze(-1) * v).sum(1).reshape(n_rows, heads * size)
    else:
        context = torch.matmul(p, v.transpose(1, 2)).reshape(n_rows, heads * size)
    a = layer.attention_norm(layer.attention_dense(context) + x)
    return layer.output_norm(layer.output_dense(layer.inner(a)) + a)


def _layer_states(out: Any) -> Any:
    """A layer's hidden states, whether it returns them (transformers 5) or a tuple starting with them (4.x)."""
    return out[0] if isinstance(out, tuple) else out


def encoder_mask(base: Any, states: Any, attention_mask: Any) -> Any:
    """The attention mask ``base`` passes to its layers for ``attention_mask`` (``(rows, length)`` of 0/1 or
    None) over embeddings ``states``: transformers' ``create_bidirectional_mask`` for the model's attention
    implementation (None where nothing is masked and the kernel needs no mask), or the additive
    ``get_extended_attention_mask`` of transformers 4.x."""
    try:
        from transformers.masking_utils import create_bidirectional_mask
    except ImportError:  # transformers 4.x: the extended additive mask
        if attention_mask is None:
            return None
        return base.get_extended_attention_mask(attention_mask, tuple(attention_mask.shape))
    return create_bidirectional_mask(config=base.config, inputs_embeds=states, attention_mask=attention_mask)


def last_layer_input(base: Any, layer: LastLayer, ids: Any, **inputs: Any) -> tuple[Any, Any]:
    """``(hidden states entering the last layer, the attention mask its layers get)``, computed by calling the
    encoder's embeddings and every layer before the last explicitly, as ``base.forward`` does (BERT,
    RoBERTa, XLM-R, CamemBERT: ``encoder.layer[:-1]``; ALBERT: the embedding projection, then each depth's
    group of shared layers up to the last call of the last one). No hook is registered on the model, so a
    model pickled or used by another thread meanwhile is the user's model as it was."""
    embeddings = base.embeddings(input_ids=ids, token_type_ids=inputs.get("token_type_ids"))
    mask = encoder_mask(base, embeddings, inputs.get("attention_mask"))
    if type(base).__name__ == "AlbertModel":
        config, groups = base.config, base.encoder.albert_layer_groups
        depth, n_groups = int(config.num_hidden_layers), len(groups)
        calls = [inner for i in range(depth) for inner in groups[albert_group(i, depth, n_groups)].albert_layers]
        hidden = base.encoder.embedding_hidden_mapping_in(embeddings)
    else:
        calls, hidden = list(base.encoder.layer), embeddings
    seen = 0
    for module in calls:
        if module is layer.module:
            seen += 1
            if seen == layer.calls:
                return hidden, mask
        hidden = _layer_states(module(hidden, mask))
    raise RuntimeError(f"{type(base).__name__}'s last layer was not called {layer.calls} time(s)")


def _mask_rows(mask: Any, positions: Any) -> Any:
    """The attention mask's row for each sequence's query position, shaped ``(rows, 1 or heads, 1, keys)``."""
    if mask.shape[2] == 1:
        return mask
    index = positions.view(-1, 1, 1, 1).expand(-1, mask.shape[1], 1, mask.shape[3])
    return mask.gather(2, index)


def _slow_gelu_sites(model: Any) -> list[tuple[Any, str, Any]]:
    """``(parent, attribute, module)`` of every ``NewGELUActivation`` in the model."""
    children = getattr(model, "named_modules", None)
    if children is None:
        return []
    return [(parent, name, child) for _, parent in model.named_modules()
            for name, child in parent.named_children() if type(child).__name__ == "NewGELUActivation"]


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
