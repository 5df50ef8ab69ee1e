"""``log P(target)`` from a language model's decoder, the vocabulary in column blocks that stay in cache.

A masked or causal LM's last step is ``z = W h + b`` (the output embedding, ``V`` rows) and
``log P(t | h) = z_t - logsumexp_v z_v`` (Devlin et al. 2019; Radford et al. 2019). On the CPU, one
``(rows, V)`` matrix of logits per call is written to memory and read back for ``logsumexp``: with
``V`` = 30-50k, the GEMM runs at about half the rate of the encoder's projections. :func:`target_log_probs`
computes the logits of one block of :data:`BLOCK` vocabulary entries at a time (a ``(rows, BLOCK)`` block
stays in a core's L2 cache), and per block ``c`` keeps only

    ``m_c = max_v z_v``,  ``s_c = sum_v exp(z_v - m_c)``  (in the model's precision, as torch's logsumexp),

then, in float64, ``logsumexp = m + log sum_c s_c exp(m_c - m)`` with ``m = max_c m_c``, and
``log P(t) = z_t - logsumexp``. On the CPU (float32, bfloat16, float64) the maximum is skipped:
``s_c = sum_v exp(z_v)`` and ``logsumexp = log sum_c s_c``, any shift gives the same sum, and a float's
relative rounding does not depend on its scale, so this is as close to the exact value (within 1e-7 of the
shifted form on the 16-wide bench model's CrowS-Pairs tokens, 4.5e-8 largest) with two passes over each block
fewer (0.8 against 1.0 ns a logit there). A row whose total is not finite (a logit past 88.7 overflows) or is
below 1 (every logit below 0: terms below ``exp(-87)`` would be lost) runs again with the maximum.

Each logit comes from the same GEMM on a block of ``W``'s rows (the target's picked from its block); the
combination in float64 and a float64 result take away the float32 rounding of ``logsumexp`` and of the final
difference (up to 1-2 units in the last place of a log-probability of -8 to -32), so the result is at least as
close to the exact value as the unblocked float32 one. Measured on the demo MLM's head (384 wide): 49-52 GFLOP/s
unblocked, 67-75 blocked, one thread.

:func:`decoder_input` finds ``h``: the prediction head's input to its decoder (BERT's transform + layer norm,
RoBERTa's dense + GELU + layer norm, ALBERT's 128-wide projection), the head's parts before its decoder called
explicitly (no hook on the model).
"""

from __future__ import annotations

import weakref
from typing import Any

from .batching import equal_parts

#: Vocabulary entries per block: 1,024 x 384-wide rows of W are 1.5 MiB, and 256 rows of 1,024 logits are
#: 1 MiB (a core's L2 on the machines we measured). On one core, 512 to 4,096 ran within 3% of each other at
#: 100 and 611 rows (30k x 384 and 50k x 768 decoders); a fixed size keeps a row's blocks the same whatever
#: its batch-mates.
BLOCK = 1024
#: Most rows per tile on the CPU (rows are split into equal tiles of at most this many): 384 rows of a block's
#: 1,024 logits are 1.5 MiB. As one tile of 550-600 rows, a block's logits (2.2 MiB) left L2 between the GEMM
#: that writes them and the exp and sum that read them; small tiles pay each block's calls for fewer rows. On
#: the 16-wide bench model, ns a logit by tile: 128 rows 0.75, 192 0.66, 256-384 0.62-0.64, 448 0.67. Each
#: row's blocks and values are the same whatever the tiling.
ROW_TILE = 384
#: Widest decoder input whose bias joins the GEMM on the CPU (``[x, 1] [W, b]^T``): at 16 wide adding the bias
#: was a third of the GEMM's time (0.81 -> 0.60 ns a logit with the bias folded in, the same bits here: MKL adds
#: the 17th product last, as it adds the bias after the 16). ``[W, b]^T`` is kept while neither tensor changes
#: (:func:`_folded`).
FOLDED_BIAS_WIDTH = 64
#: ``(id(W), block) -> (weak reference to W, b, their versions, [W, b]^T in blocks)`` (:func:`_folded`).
_FOLDED: dict[tuple[int, int], tuple[Any, Any, tuple[int, int], Any]] = {}
#: Dtypes whose blocks skip the maximum on the CPU (``exp`` overflows past 88.7 in these, 11.1 in float16).
UNSHIFTED_DTYPES = ("float32", "float64", "bfloat16")


def output_decoder(model: Any, head: Any) -> Any:
    """The ``nn.Linear`` that maps ``head``'s last hidden state to the vocabulary (the model's output
    embedding, inside ``head`` or ``head`` itself), or None."""
    import torch

    decoder = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    inside = isinstance(decoder, torch.nn.Linear) and any(m is decoder for m in head.modules())  # head included
    return decoder if inside else None


def decoder_input(head: Any, decoder: Any, states: Any) -> Any:
    """What ``head(states)`` passes to ``decoder`` (``states`` itself when the head is the decoder), computed by
    calling the head's parts before its decoder explicitly, as the head's own ``forward`` does:

    * BERT (``BertOnlyMLMHead`` / ``BertLMPredictionHead``): ``transform(states)`` (dense, activation, layer norm);
    * RoBERTa, XLM-R, CamemBERT (``*LMHead``): ``layer_norm(gelu(dense(states)))`` with the ``gelu`` of the
      head's own module;
    * ALBERT (``AlbertMLMHead``): ``LayerNorm(activation(dense(states)))``.

    No hook is registered on the model. A head laid out otherwise raises RuntimeError
    (``HeadSplit`` then uses the whole logits); the caller's one-time check compares the blocks built on
    this input with the head's own logits."""
    import sys

    if decoder is head:
        return states
    inner = getattr(head, "predictions", None)
    if inner is not None and getattr(inner, "decoder", None) is decoder:
        head = inner
    if getattr(head, "decoder", None) is not decoder:
        raise RuntimeError(f"{type(head).__name__}'s decoder is not where its known layouts keep it")
    transform = getattr(head, "transform", None)
    if transform is not None:
        return transform(states)
    dense, norm = getattr(head, "dense", None), getattr(head, "layer_norm", None)
    gelu = getattr(sys.modules.get(type(head).__module__), "gelu", None)
    if dense is not None and norm is not None and gelu is not None:
        return norm(gelu(dense(states)))
    activation, norm = getattr(head, "activation", None), getattr(head, "LayerNorm", None)
    if dense is not None and activation is not None and norm is not None:
        return norm(activation(dense(states)))
    raise RuntimeError(f"{type(head).__name__} is not a head layout whose decoder input is known")


def target_log_probs(x: Any, weight: Any, bias: Any, targets: Any, *, block: int = BLOCK) -> Any:
    """``log softmax(x W^T + b)[row, targets[row]]`` for each row of ``x``, float64 (see the module docstring).

    ``x``: ``(rows, d)``; ``weight``: ``(V, d)``; ``bias``: ``(V,)`` or None; ``targets``: ``(rows,)`` ids.
    On the CPU the rows go in equal tiles of at most :data:`ROW_TILE`. Every block's logits are written into one
    buffer made once per call (``addmm(..., out=)``: the same GEMM as ``linear``, the same bits): a new
    ``(rows, block)`` tensor per block was a fresh allocation the allocator could hand back from the system each
    time, and its page faults cost more than the GEMM on a 16-wide head (2.1 against 1.0 ns a logit, 256 rows).
    """
    import torch

    rows = x.shape[0]
    step = max(1, int(block))
    blocks = None
    if bias is not None and x.device.type == "cpu" and 0 < x.shape[1] <= FOLDED_BIAS_WIDTH:
        blocks = _folded(weight, bias, step)  # z = [x, 1] [W, b]^T: one pass
        x, bias = torch.cat([x, x.new_ones(rows, 1)], dim=1), None
    # row tiles on the CPU: a block's logits stay in L2; equal ones, since a small last tile runs at half the rate
    tile = equal_parts(rows, ROW_TILE) if x.device.type == "cpu" else max(rows, 1)
    buffer = torch.empty(min(rows, tile) * min(step, weight.shape[0]), dtype=x.dtype, device=x.device)
    parts = [_tile_log_probs(x[lo : lo + tile], weight, bias, targets[lo : lo + tile], step, buffer, blocks=blocks)
             for lo in range(0, rows, tile)]
    if not parts:
        return torch.empty(0, dtype=torch.float64, device=x.device)
    return parts[0] if len(parts) == 1 else torch.cat(parts)


def _folded(weight: Any, bias: Any, step: int) -> list[Any]:
    """``[W, b]^T`` in blocks of ``step`` vocabulary entries, each a contiguous ``(d + 1, step)`` matrix (the GEMM
    reads it 20% faster than a transposed view of ``[W, b]``'s rows, the same bits), kept per decoder weight while
    neither tensor changes (same objects, same version counters: an in-place update of either, a fine-tuning
    step, makes them anew) and dropped with the weight."""
    import torch

    def made() -> list[Any]:
        both = torch.cat([weight, bias[:, None].to(weight.dtype)], dim=1)
        return [both[lo : lo + step].t().contiguous() for lo in range(0, both.shape[0], step)]

    try:
        versions = (weight._version, bias._version)
    except RuntimeError:  # inference tensors keep no version counter: made for this call
        return made()
    key = (id(weight), step)
    kept = _FOLDED.get(key)
    if kept is None or kept[0]() is not weight or kept[1] is not bias or kept[2] != versions:
        gone = weakref.ref(weight, lambda _, key=key: _FOLDED.pop(key, None))
        kept = _FOLDED[key] = (gone, bias, versions, made())
    return kept[3]


def _tile_log_probs(x: Any, weight: Any, bias: Any, targets: Any, step: int, buffer: Any, *,
                    shift: bool | None = None, blocks: list[Any] | None = None) -> Any:
    """:func:`target_log_probs` of at most one tile of rows, each block's logits in ``buffer``; ``shift``: each
    block's ``exp`` after subtracting its maximum (default: on a GPU, and for float16, whose ``exp`` overflows
    at 11.1), else without it, and the rows whose total needs it again with it (see the module docstring)."""
    import torch

    if shift is None:
        shift = x.device.type != "cpu" or str(x.dtype).removeprefix("torch.") not in UNSHIFTED_DTYPES
    rows, vocab = x.shape[0], weight.shape[0]
    n_blocks = -(-vocab // step)
    maxes = torch.empty(n_blocks, rows, dtype=x.dtype, device=x.device) if shift else None
    sums = torch.empty(n_blocks, rows, dtype=x.dtype, device=x.device)
    # rows grouped by their target's block once (a common word's block holds most targets; most blocks none),
    # each target's place in its block's flat logits, so a block's targets are one index_select
    which = torch.div(targets, step, rounding_mode="floor")
    order = torch.argsort(which, stable=True)
    ends = torch.bincount(which, minlength=n_blocks).cumsum(0).tolist()
    width = torch.clamp(vocab - which * step, max=step)  # each target's block width (the last is ragged)
    flat = (torch.arange(rows, device=x.device) * width + targets - which * step)[order]
    picked_in_order = torch.empty(rows, dtype=x.dtype, device=x.device)
    for c, lo in enumerate(range(0, vocab, step)):
        hi = min(vocab, lo + step)
        z = buffer[: rows * (hi - lo)].view(rows, hi - lo)
        if blocks is not None:  # [x, 1] [W, b]^T, the block's (d + 1, width) matrix
            torch.mm(x, blocks[c], out=z)
        elif bias is None:
            torch.mm(x, weight[lo:hi].t(), out=z)
        else:
            torch.addmm(bias[lo:hi], x, weight[lo:hi].t(), out=z)
        start = ends[c - 1] if c else 0
        if ends[c] > start:
            torch.index_select(z.view(-1), 0, flat[start : ends[c]], out=picked_in_order[start : ends[c]])
        if maxes is not None:
            top = torch.amax(z, dim=1, keepdim=True)
            maxes[c] = top[:, 0]
            z.sub_(top)  # in place: the same values as exp(z - top)
        torch.sum(z.exp_(), dim=1, out=sums[c])
    picked = torch.empty_like(picked_in_order)
    picked[order] = picked_in_order
    s_c = sums.t().contiguous().double()
    if maxes is not None:
        m_c = maxes.t().contiguous().double()
        m = m_c.amax(dim=1, keepdim=True)
        return picked.double() - (m[:, 0] + torch.log((s_c * torch.exp(m_c - m)).sum(dim=1)))
    total = s_c.sum(dim=1)
    out = picked.double() - torch.log(total)
    redo = torch.nonzero(~(torch.isfinite(total) & (total >= 1.0)))[:, 0]  # overflow, or terms lost below
    if redo.numel():
        out[redo] = _tile_log_probs(x[redo], weight, bias, targets[redo], step, buffer, shift=True, blocks=blocks)
    return out


class HeadQueue:
    """Rows waiting for the LM head, gathered across encoder batches so the decoder sees ``rows`` at once.

    Masked copies run in equal-length batches, and one length's batch of a few sentences holds 10-50 masked
    rows; a GEMM of that many rows against a 30k-wide decoder runs at about 40 GFLOP/s on one core (the
    decoder's weights are packed again for every call), against 55-75 for a few hundred. ``add`` keeps each
    batch's hidden states and targets and runs ``log_probs`` once ``rows`` are waiting, keeping the values
    where they were computed; ``flush`` runs the rest and brings every value to the host in one copy (on a GPU,
    a copy per batch waited for that batch, so the next batch's ids were built while the GPU sat idle).
    ``flush`` returns ``(key, log-probability)`` pairs. A row's value depends on its batch-mates only as far as
    the GEMM's rounding does (MKL picks kernels by the number of rows: within 1e-6 on the tested models).
    """

    def __init__(self, log_probs: Any, rows: int) -> None:
        self.log_probs = log_probs
        self.rows = max(1, int(rows))
        self._keys: list[Any] = []
        self._states: list[Any] = []
        self._targets: list[Any] = []
        self._done_keys: list[Any] = []
        self._done: list[Any] = []

    def add(self, keys: list[Any], states: Any, targets: Any) -> None:
        """Queue one batch (``keys[i]`` names row ``i``); the head runs once ``rows`` wait."""
        self._keys += keys
        self._states.append(states)
        self._targets.append(targets)
        if len(self._keys) >= self.rows:
            self._run()

    def _run(self) -> None:
        import torch

        if self._keys:
            self._done.append(self.log_probs(torch.cat(self._states), torch.cat(self._targets)))
            self._done_keys += self._keys
            self._keys, self._states, self._targets = [], [], []

    def flush(self) -> list[tuple[Any, float]]:
        """The values of every row queued so far (none if none were), in one device-to-host copy."""
        import torch

        self._run()
        if not self._done:
            return []
        values = torch.cat(self._done).cpu().double().numpy()
        done = list(zip(self._done_keys, values.tolist(), strict=True))  # Python floats, as float(v) makes
        self._done_keys, self._done = [], []
        return done
