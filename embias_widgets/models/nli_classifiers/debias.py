"""Debias an NLI model's input word embeddings (Dev et al. 2020, section 4, for transformers).

The authors' BERT code (``bert_encoder.py``) takes ``b`` as the normalised
difference of the normalised "he" and "she" rows of the input word-embedding
matrix, ``b = (he/|he| - she/|she|) / |he/|he| - she/|she||``, and replaces
every token's word embedding ``w`` by ``w - <w, b> b`` before position and
token-type embeddings are added. :func:`debias_input_embeddings` does that
with :func:`~embias_widgets.metrics.projection.project_out` (any subspace
basis works, not just one direction); :func:`random_control` projects out
random directions of the same dimension (the paper's control,
:func:`~embias_widgets.metrics.projection.random_subspace`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...metrics.projection import Subspace, project_out, random_subspace


def _check(classifier: Any) -> Any:
    for attr in ("input_embeddings", "with_input_embeddings", "token_id"):
        if not callable(getattr(classifier, attr, None)):
            raise TypeError(
                f"{type(classifier).__name__} has no input word embeddings to debias: debiasing needs a "
                "transformers NLI model (CrossEncoderNli) or a classifier with input_embeddings(), "
                "token_id() and with_input_embeddings()"
            )
    return classifier


def pair_direction(classifier: Any, words: Sequence[str] = ("he", "she")) -> np.ndarray:
    """``b``: the normalised difference of the normalised rows of ``words[0]`` and ``words[1]``."""
    _check(classifier)
    if len(words) != 2:
        raise ValueError(f"give two words for a direction (e.g. ('he', 'she')), got {list(words)}")
    W = classifier.input_embeddings()
    a, c = (W[classifier.token_id(w)] for w in words)
    d = a / np.linalg.norm(a) - c / np.linalg.norm(c)
    norm = np.linalg.norm(d)
    if norm == 0:
        raise ValueError(f"{words[0]!r} and {words[1]!r} have the same direction: no bias direction between them")
    return d / norm


def debias_input_embeddings(
    classifier: Any, basis: np.ndarray | Subspace | None = None, *, words: Sequence[str] = ("he", "she")
) -> Any:
    """A copy of ``classifier`` whose input word embeddings have ``basis`` projected out
    (default: the he-she direction ``b``, :func:`pair_direction`)."""
    _check(classifier)
    B = pair_direction(classifier, words) if basis is None else basis
    W = project_out(classifier.input_embeddings(), B)
    what = f"{words[0]}-{words[1]} direction" if basis is None else "given subspace"
    return classifier.with_input_embeddings(W, suffix=f"input embeddings debiased: {what} projected out")


def random_control(classifier: Any, k: int = 1, *, seed: int = 0) -> Any:
    """A copy with ``k`` random orthonormal directions projected out of the input word embeddings."""
    _check(classifier)
    W = classifier.input_embeddings()
    S = random_subspace(W.shape[1], k, rng=seed)
    return classifier.with_input_embeddings(project_out(W, S), suffix=f"{k} random direction(s) projected out "
                                            f"(seed {seed}, control)")
