"""Floating-point work of a transformer encoder pass, and this CPU's matmul rate at the same shapes.

Shared by ``bench_pll_floor.py`` and ``bench_nli.py``: a bench reports its achieved rate (the FLOPs its
model did, divided by the seconds it took) against the rate of plain ``torch.matmul`` at the encoder's own
shapes, timed in the same process with the same threads, so "how far from the floor" is one number.

Counting (Kaplan et al. 2020, table 1; a multiply-add is 2 FLOPs): per token and layer ``2 * (4 h^2 + 2 h i)``
for the Q, K, V, output and feed-forward projections plus ``4 n h`` for ``Q K^T`` and ``A V`` over ``n``
tokens; ALBERT adds ``2 e h`` per token for its embedding projection. Layer norms, GELU, softmax and the
embedding lookups are left out (they are not matmuls; the gap they leave is part of what the ratio shows).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class EncoderShape:
    """The sizes that set an encoder's FLOPs."""

    layers: int
    hidden: int
    inner: int
    embedding: int  # ALBERT's factorised embedding width; == hidden elsewhere

    @classmethod
    def of(cls, config: Any) -> EncoderShape:
        hidden = int(getattr(config, "hidden_size", None) or config.dim)
        layers = int(getattr(config, "num_hidden_layers", None) or config.n_layers)
        inner = int(getattr(config, "intermediate_size", None) or config.hidden_dim)
        return cls(layers, hidden, inner, int(getattr(config, "embedding_size", hidden) or hidden))

    def layer_per_token(self, length: int) -> float:
        """FLOPs of one layer for one token of an ``length``-token sequence."""
        h = self.hidden
        return 2 * (4 * h * h + 2 * h * self.inner) + 4 * length * h

    def sequence(self, length: int) -> float:
        """FLOPs of the whole encoder over one ``length``-token sequence."""
        project = 2 * self.embedding * self.hidden if self.embedding != self.hidden else 0
        return length * (self.layers * self.layer_per_token(length) + project)

    def shareable_per_token(self) -> float:
        """FLOPs per token that first-layer sharing computes once per sentence instead of once per masked copy:
        layer 1's Q, K and V projections (``2 * 3 h^2``) and ALBERT's embedding projection (``2 e h``)."""
        project = 2 * self.embedding * self.hidden if self.embedding != self.hidden else 0
        return 2 * 3 * self.hidden * self.hidden + project

    def last_layer_folded(self, length: int, heads: int) -> float:
        """FLOPs of the last layer at one row with keys and values folded into the query (the encoder loop):
        ``W_k^T q`` and ``W_v`` on the mixed row (``4 h^2``), scores and mixing over ``length`` rows per head
        (``4 heads h length``), Q, output and feed-forward projections at the row."""
        h = self.hidden
        return 4 * h * h + 4 * heads * h * length + 2 * (2 * h * h + 2 * h * self.inner)

    def last_layer_one_row(self, length: int) -> float:
        """FLOPs of the last layer run at one row (keys and values at all ``length`` rows)."""
        h = self.hidden
        return 2 * 2 * h * h * length + 2 * (2 * h * h + 2 * h * self.inner) + 4 * length * h


def head_per_row(config: Any) -> float:
    """FLOPs of an MLM head for one row: transform (h -> e) and decoder (e -> vocabulary)."""
    hidden = int(getattr(config, "hidden_size", None) or config.dim)
    width = int(getattr(config, "embedding_size", hidden) or hidden)
    return 2 * (hidden * width + width * int(config.vocab_size))


def matmul_rate(rows: int, shape: EncoderShape, repeat: int = 5) -> dict[str, float]:
    """GFLOP/s of ``torch.matmul`` at the encoder's shapes for ``rows`` tokens (best of ``repeat``, CPU time
    of this process and wall time), and their FLOP-weighted harmonic mean: the rate of a pass that were
    nothing but its projections."""
    import torch

    h, i = shape.hidden, shape.inner
    shapes = {"[T,h]x[h,h]": (h, h), "[T,h]x[h,4h]": (h, i), "[T,4h]x[4h,h]": (i, h)}
    weights = {"[T,h]x[h,h]": 4, "[T,h]x[h,4h]": 1, "[T,4h]x[4h,h]": 1}  # FLOP shares: 4 h^2, h i, i h
    out: dict[str, float] = {}
    for name, (k, n) in shapes.items():
        a, b = torch.randn(rows, k), torch.randn(k, n)
        torch.matmul(a, b)
        best_cpu = best_wall = float("inf")
        for _ in range(repeat):
            c0, t0 = time.process_time(), time.perf_counter()
            torch.matmul(a, b)
            best_cpu, best_wall = min(best_cpu, time.process_time() - c0), min(best_wall, time.perf_counter() - t0)
        out[name] = 2 * rows * k * n / max(best_cpu, 1e-9) / 1e9
        out[name + " wall"] = 2 * rows * k * n / best_wall / 1e9
    flops = {name: weights[name] * shapes[name][0] * shapes[name][1] for name in shapes}
    out["projections"] = sum(flops.values()) / sum(flops[name] / out[name] for name in shapes)
    return out
