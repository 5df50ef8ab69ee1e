"""A BERT-shaped encoder run layer by layer for masked copies (exact PLL on the CPU, fewer passes over memory).

:class:`EncoderLoop` computes what ``HeadSplit.last_rows`` computes (the hidden state of the last layer at the
masked row of each copy) with the same formulas, in a different order of operations (equal up to float
rounding, checked once per model against the model's own layers, else not used):

* **First-layer sharing.** A masked copy of sentence S equals S except at its masked rows, and the embeddings
  (word + position + type, layer norm) and layer 1's query/key/value projections are per row, so they are
  computed once per distinct sentence in the batch and once for ``[MASK]`` at each position, then gathered
  per copy (``index_select``, the masked rows overwritten with ``index_copy_``): ``3 h^2`` multiply-adds per
  token of layer 1 (and ALBERT's embedding projection) run once per sentence instead of once per copy. The
  embeddings are computed by hand for BERT-, ALBERT- and RoBERTa-shaped modules (:func:`embedding_positions`:
  the module's operations in its order, the same bits).
* **Fused projections.** Q, K and V are one ``[3h, h]`` projection; on the CPU, the first feed-forward
  projection's bias and activation run in the GEMM's epilogue (oneDNN's ``mkldnn._linear_pointwise``: no
  second pass over the ``[tokens, 4h]`` intermediate for GELU).
* **Flat rows.** Per-row operations (projections, layer norms, activation) run over ``(copies x length, h)``;
  only attention (``scaled_dot_product_attention``, no mask: equal-length batches have no padding) is
  per sequence.
* **Last layer at the masked rows** as :func:`~.head_split.run_last_layer_at`, its keys and values folded into
  the query (:meth:`EncoderLoop._last_layer`): no K and V projections at the unmasked rows.

Per layer (Vaswani et al. 2017; Devlin et al. 2019; Lan et al. 2020 for ALBERT's shared layers):
``a = LN(x + W_o softmax(q K^T / sqrt(d_h)) V)``, ``out = LN(a + W_2 act(W_1 a))``, per head.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Largest ``|loop - model|`` (relative to the hidden states' scale) the one-time check accepts.
CHECK_TOLERANCE = 1e-4
#: Activation class names -> oneDNN post-op ``(name, algorithm)``; others run as the model's own module.
FUSED_ACTIVATIONS = {"GELUActivation": ("gelu", "none"), "NewGELUActivation": ("gelu", "tanh"),
                     "GELUTanh": ("gelu", "tanh"), "PytorchGELUTanh": ("gelu", "tanh"), "ReLU": ("relu", "")}


@dataclass(frozen=True)
class LoopLayer:
    """One encoder layer's weights and modules, as the loop runs it."""

    qkv_weight: Any  # [3h, h]: query, key, value stacked
    qkv_bias: Any
    heads: int
    size: int
    scaling: float
    attention_dense: Any  # nn.Linear
    attention_norm: Any  # nn.LayerNorm
    inner_dense: Any  # nn.Linear h -> i
    activation: Any  # the model's activation module
    fused: tuple[str, str] | None  # oneDNN post-op for the activation, if known
    output_dense: Any
    output_norm: Any


def attention_scaling(attn: Any) -> float:
    """The attention module's ``1 / sqrt(d_h)`` (its own ``scaling`` where transformers sets one)."""
    return getattr(attn, "scaling", attn.attention_head_size**-0.5)


def albert_group(depth_index: int, depth: int, n_groups: int) -> int:
    """The layer group ALBERT runs at ``depth_index`` (as ``AlbertTransformer.forward``)."""
    return int(depth_index / (depth / n_groups))


def _layer(query: Any, key: Any, value: Any, heads: int, size: int, scaling: float, parts: tuple) -> LoopLayer:
    import torch

    weight = torch.cat([query.weight, key.weight, value.weight]).detach().contiguous()
    bias = torch.cat([query.bias, key.bias, value.bias]).detach().contiguous()
    dense, norm, inner, act, out_dense, out_norm = parts
    fused = FUSED_ACTIVATIONS.get(type(act).__name__)
    if type(act).__name__ == "GELU" and getattr(act, "approximate", "none") in ("none", "tanh"):
        fused = ("gelu", act.approximate)
    return LoopLayer(weight, bias, heads, size, scaling, dense, norm, inner, act, fused, out_dense, out_norm)


def embedding_positions(emb: Any) -> tuple[int, int | None] | None:
    """``(first position, padding id)`` of BERT-, ALBERT- or RoBERTa-shaped embeddings that add word, type-0 and
    absolute position rows and normalise (Devlin et al. 2019; RoBERTa's positions start after the padding id and
    skip padding, so its id comes along; None for BERT's), or None for any other layout."""
    import torch

    parts = ("word_embeddings", "token_type_embeddings", "position_embeddings", "LayerNorm")
    if not all(isinstance(getattr(emb, n, None), torch.nn.Embedding | torch.nn.LayerNorm) for n in parts):
        return None
    if getattr(emb.word_embeddings, "max_norm", None) is not None or emb.training:
        return None
    types = getattr(emb, "token_type_ids", None)
    if types is not None and bool(types.any()):
        return None
    if hasattr(emb, "create_position_ids_from_input_ids"):  # RoBERTa, XLM-R, CamemBERT
        pad = getattr(emb, "padding_idx", None)
        return None if pad is None else (int(pad) + 1, int(pad))
    ids = getattr(emb, "position_ids", None)
    if ids is None or not torch.equal(ids.reshape(-1).cpu(), torch.arange(ids.numel())):
        return None
    return 0, None


def _bert_layers(base: Any) -> list[LoopLayer] | None:
    config = base.config
    if getattr(config, "position_embedding_type", "absolute") not in (None, "absolute"):
        return None
    out = []
    for layer in base.encoder.layer:
        if getattr(layer, "is_decoder", False) or getattr(layer, "chunk_size_feed_forward", 0):
            return None
        attn, inter = layer.attention.self, layer.intermediate
        parts = (layer.attention.output.dense, layer.attention.output.LayerNorm, inter.dense,
                 inter.intermediate_act_fn, layer.output.dense, layer.output.LayerNorm)
        out.append(_layer(attn.query, attn.key, attn.value, attn.num_attention_heads, attn.attention_head_size,
                          attention_scaling(attn), parts))
    return out


def _albert_layers(base: Any) -> list[LoopLayer] | None:
    config, groups = base.config, base.encoder.albert_layer_groups
    depth, n_groups = int(config.num_hidden_layers), len(groups)
    built: dict[int, LoopLayer] = {}
    out = []
    for i in range(depth):  # as AlbertTransformer.forward: each depth's group, its inner layers in order
        for layer in groups[albert_group(i, depth, n_groups)].albert_layers:
            if getattr(layer, "chunk_size_feed_forward", 0):
                return None
            if id(layer) not in built:
                attn = layer.attention
                parts = (attn.dense, attn.LayerNorm, layer.ffn, layer.activation, layer.ffn_output,
                         layer.full_layer_layer_norm)
                built[id(layer)] = _layer(attn.query, attn.key, attn.value, attn.num_attention_heads,
                                          attn.attention_head_size, attention_scaling(attn), parts)
            out.append(built[id(layer)])
    return out


class EncoderLoop:
    """BERT-, RoBERTa-, XLM-R- or ALBERT-shaped encoder ``base`` run by hand (see the module docstring).

    Built by :meth:`build` for encoders where ``head_split.last_layer`` finds the last layer; None for encoders laid
    out otherwise, off the CPU, outside float32, in training
    mode, or when the one-time check on ``probe_ids`` disagrees with the model's own layers.
    """

    def __init__(self, base: Any, layers: list[LoopLayer], project: Callable[[Any], Any] | None) -> None:
        import torch

        self.base = base
        self.layers = layers
        self.project = project  # ALBERT's embedding -> hidden projection
        self.onednn = bool(torch.backends.mkldnn.is_available()) and hasattr(torch.ops.mkldnn, "_linear_pointwise")
        self.positions = embedding_positions(base.embeddings)

    @classmethod
    def build(cls, base: Any, probe_ids: Any, mask_id: int, reference: Callable[..., Any]) -> EncoderLoop | None:
        """The loop for ``base``, or None (see the class docstring). ``reference(ids, rows, positions)`` is the
        model's own computation, compared once on masked copies of ``probe_ids``."""
        import torch

        params = next(base.parameters(), None)
        if params is None or params.device.type != "cpu" or params.dtype != torch.float32 or base.training:
            return None
        try:  # the caller (HeadSplit.encoder_loop) has already found a BERT- or ALBERT-shaped last layer
            if type(base).__name__ == "AlbertModel":
                loop, project = _albert_layers(base), base.encoder.embedding_hidden_mapping_in
            else:
                loop, project = _bert_layers(base), None
            if not loop:
                return None
            made = cls(base, loop, project)
            return made if made.agrees(probe_ids, mask_id, reference) else None
        except Exception:  # an encoder laid out otherwise than expected: the model's own path
            return None

    def agrees(self, probe_ids: Any, mask_id: int, reference: Callable[..., Any]) -> bool:
        """Whether the loop equals ``reference`` on every masked copy of ``probe_ids`` (within float rounding)."""
        import torch

        ids = torch.tensor([list(probe_ids)] * (len(probe_ids) - 2))
        rows = torch.arange(ids.shape[0])
        positions = rows + 1
        masked = ids.clone()
        masked[rows, positions] = mask_id
        with torch.inference_mode():
            want = reference(masked, rows, positions)
            scale = float(want.abs().max()) + 1.0
            for shared in (ids, None):  # with and without first-layer sharing
                got = self.last_rows(masked, rows, positions, original=shared)
                if got.shape != want.shape or float((got - want).abs().max()) > CHECK_TOLERANCE * scale:
                    return False
        return True

    # -- the pass ------------------------------------------------------------------------------------------
    def last_rows(self, ids: Any, rows: Any, positions: Any, *, original: Any = None,
                  distinct: tuple[Any, Any] | None = None, masked_at: tuple[Any, int] | None = None) -> Any:
        """Hidden states of the last layer at ``(rows, positions)`` for a ``(copies, length)`` batch ``ids``.

        ``original``: the same batch before masking (per row, the sentence the copy was made from); with it,
        embeddings and layer 1's Q/K/V are computed once per distinct sentence (first-layer sharing).
        ``distinct``: ``(sentences, index)`` with ``original == sentences[index]`` where the caller knows them
        (:class:`~.copy_plan.Copies`), else ``torch.unique`` finds them. ``masked_at``: ``(flat, mask id)``
        where the caller knows them: every masked token's place in the flat ``(copies x length)`` ids, all
        masked with that one id (else they are found by comparing ``ids`` with ``original``).
        """
        n_rows, length = ids.shape
        x, qkv = self._first_layer_input(ids, original, distinct, masked_at)
        for layer in self.layers[:-1]:
            x = self._layer(layer, x, n_rows, length, qkv)
            qkv = None
        return self._last_layer(self.layers[-1], x, n_rows, length, rows, positions, qkv)

    def _embed(self, ids: Any) -> Any:
        """The model's embeddings of ``ids``: ``LN((word + type 0) + position)`` by hand where
        :func:`embedding_positions` knows the layout (the same operations in the same order: the same bits, without
        the module's dozen calls per batch), else the module itself."""
        import torch

        emb = self.base.embeddings
        start, pad = self.positions if self.positions is not None else (None, None)
        if start is None or (pad is not None and bool((ids == pad).any())):  # padding moves RoBERTa's positions
            states = emb(input_ids=ids)
        else:
            x = torch.nn.functional.embedding(ids, emb.word_embeddings.weight) + emb.token_type_embeddings.weight[0]
            x = x + emb.position_embeddings.weight[start : start + ids.shape[1]]
            norm = emb.LayerNorm
            states = torch.nn.functional.layer_norm(x, norm.normalized_shape, norm.weight, norm.bias, norm.eps)
        return self.project(states) if self.project is not None else states

    def _first_layer_input(self, ids: Any, original: Any, distinct: tuple[Any, Any] | None = None,
                           masked_at: tuple[Any, int] | None = None) -> tuple[Any, Any]:
        """``(x, qkv)`` for layer 1, flat ``(copies x length, ...)``; shared across copies of one sentence."""
        import torch

        n_rows, length = ids.shape
        first = self.layers[0]
        if original is None:
            x = self._embed(ids).reshape(n_rows * length, -1)
            return x, self._linear(x, first.qkv_weight, first.qkv_bias)
        if distinct is None:
            sentences, which = torch.unique(original, dim=0, return_inverse=True)
        else:
            sentences, which = distinct
        if sentences.shape[0] * 2 > n_rows:  # few copies per sentence: sharing would not pay
            return self._first_layer_input(ids, None)
        pad = getattr(self.base.config, "pad_token_id", None)
        if pad is not None and bool((sentences == pad).any()):
            return self._first_layer_input(ids, None)  # padding (RoBERTa's positions skip it)
        if masked_at is not None:
            flat, mask_id = masked_at
            fill = torch.full((1, length), int(mask_id), dtype=ids.dtype, device=ids.device)
        else:
            changed = (ids != original).reshape(-1)
            mask_row = ids.masked_fill(~changed.view(n_rows, length), -1).amax(0, keepdim=True)  # each position's
            if not bool(changed.any()) or bool((changed & (ids != mask_row).reshape(-1)).any()):  # masking token
                return self._first_layer_input(ids, None)  # several masking tokens
            flat = changed.nonzero()[:, 0]
            fill = torch.where(mask_row >= 0, mask_row, mask_row.max())  # the masking token where no copy masks
        x_u, x_m = self._embed(sentences), self._embed(fill)  # (sentences, L, h), (1, L, h)
        qkv_u = self._linear(x_u, first.qkv_weight, first.qkv_bias)
        qkv_m = self._linear(x_m, first.qkv_weight, first.qkv_bias)
        # each copy's sentence (index_select: a sixth of the time of ``x_u[which]``, the same copy), then its
        # masked rows overwritten (index_copy_ into the flat rows: a third of the time of ``x[rows, cols] = ...``)
        x = x_u.index_select(0, which).view(n_rows * length, -1)
        qkv = qkv_u.index_select(0, which).view(n_rows * length, -1)
        column = torch.remainder(flat, length)
        x.index_copy_(0, flat, x_m[0].index_select(0, column))
        qkv.index_copy_(0, flat, qkv_m[0].index_select(0, column))
        return x, qkv

    def _linear(self, x: Any, weight: Any, bias: Any, fused: tuple[str, str] | None = None,
                residual: Any = None) -> Any:
        """``act(x W^T + b) (+ residual)``; the first feed-forward projection with its activation is one oneDNN
        call (bias and GELU in the GEMM's epilogue). The other projections stay torch's ``linear`` (MKL), as the
        model's own layers and peers run them: with oneDNN everywhere BERT's PLL was 5% faster again but its
        tokens differed from minicons' by up to 1.1e-5 (rounding: both within 8.6e-6 of float64), over the
        issue's 1e-5."""
        import torch

        if self.onednn and fused is not None and residual is None:
            return torch.ops.mkldnn._linear_pointwise(x, weight, bias, fused[0], [], fused[1])
        out = torch.nn.functional.linear(x, weight, bias)
        if fused is not None:
            out = torch.nn.functional.relu(out) if fused[0] == "relu" else torch.nn.functional.gelu(
                out, approximate=fused[1])
        return out if residual is None else out + residual

    def _dense(self, module: Any, x: Any, residual: Any = None) -> Any:
        return self._linear(x, module.weight, module.bias, residual=residual)

    def _feed_forward(self, layer: LoopLayer, a: Any) -> Any:
        """``LN(a + W_2 act(W_1 a))`` over flat rows."""
        inner = layer.inner_dense
        if layer.fused is not None:
            mid = self._linear(a, inner.weight, inner.bias, layer.fused)
        else:
            mid = layer.activation(self._dense(inner, a))
        return layer.output_norm(self._dense(layer.output_dense, mid, residual=a))

    def _layer(self, layer: LoopLayer, x: Any, n_rows: int, length: int, qkv: Any = None) -> Any:
        import torch

        if qkv is None:
            qkv = self._linear(x, layer.qkv_weight, layer.qkv_bias)
        q, k, v = qkv.view(n_rows, length, 3, layer.heads, layer.size).permute(2, 0, 3, 1, 4)
        context = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=layer.scaling)
        context = context.transpose(1, 2).reshape(n_rows * length, layer.heads * layer.size)
        a = layer.attention_norm(self._dense(layer.attention_dense, context, residual=x))
        return self._feed_forward(layer, a)

    def _last_layer(self, layer: LoopLayer, x: Any, n_rows: int, length: int, rows: Any, positions: Any,
                    qkv: Any) -> Any:
        """The last layer at one row per copy, keys and values folded into the query (no K, V at every row).

        Per head ``a`` (``d`` wide): ``q_a . (W_k,a x_j + b_k,a) = (W_k,a^T q_a) . x_j + const``, and softmax
        ignores the constant, so the scores are ``(W_k,a^T q_a) . x_j``; the probabilities sum to 1, so
        ``sum_j p_aj (W_v,a x_j + b_v,a) = W_v,a (sum_j p_aj x_j) + b_v,a``. Per copy that is ``4 h^2 + 4 heads
        h n`` FLOPs instead of ``4 h^2 n`` for K and V at every one of its ``n`` rows; equal up to rounding.
        """
        import torch

        heads, size = layer.heads, layer.size
        width = heads * size
        picked = rows * length + positions
        here = x.index_select(0, picked)  # (copies, h)
        if qkv is not None:  # a one-layer encoder: layer 1's shared Q/K/V
            q = qkv.index_select(0, picked)[:, :width]
        else:
            q = self._linear(here, layer.qkv_weight[:width], layer.qkv_bias[:width])
        states = x.view(n_rows, length, -1)
        w_k = layer.qkv_weight[width : 2 * width].view(heads, size, -1)  # (heads, d, h)
        w_v = layer.qkv_weight[2 * width :].view(heads, size, -1)
        folded = torch.bmm(q.view(n_rows, heads, size).transpose(0, 1), w_k).transpose(0, 1)  # (copies, heads, h)
        scores = torch.bmm(folded, states.transpose(1, 2)).mul_(layer.scaling)  # (copies, heads, n)
        mixed = torch.bmm(torch.softmax(scores, dim=-1), states)  # (copies, heads, h): sum_j p_aj x_j
        context = torch.bmm(mixed.transpose(0, 1), w_v.transpose(1, 2)).transpose(0, 1).reshape(n_rows, width)
        context = context + layer.qkv_bias[2 * width :]
        a = layer.attention_norm(self._dense(layer.attention_dense, context, residual=here))
        return self._feed_forward(layer, a)
