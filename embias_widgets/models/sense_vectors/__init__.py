"""Sense vectors: a vector per WordNet 3.0 sense key (Zhou, Kaneko & Bollegala 2022).

- ``files``: published static sense embeddings (LMMS ``.npz``/``.txt``, ARES ``.txt``), read lazily;
- ``gloss``: gloss-based vectors from any sentence encoder (the gloss step of LMMS);
- ``prototypes``: contextual prototypes, the mean of a word's token vectors over sentences labelled with a sense.

:func:`load_sense_model` reads the spellings the command line accepts:
``"gloss:<encoder>"`` (``gloss:all-MiniLM-L6-v2``, ``gloss:bert-base-uncased``, ``gloss:/path/to/model``)
or the path of a sense-vector file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import MissingSenseError, ModelNotFoundError, SenseFileError
from .base import SenseVectors, lemma_of
from .files import SenseVectorFile, is_sense_file, load_sense_file
from .gloss import DEFAULT_GLOSS_ENCODER, GlossSenseVectors, gloss_text, load_gloss_vectors
from .prototypes import ContextualSenseVectors, target_span

__all__ = [
    "DEFAULT_GLOSS_ENCODER",
    "ContextualSenseVectors",
    "GlossSenseVectors",
    "MissingSenseError",
    "SenseFileError",
    "SenseVectorFile",
    "SenseVectors",
    "gloss_text",
    "is_sense_file",
    "lemma_of",
    "load_gloss_vectors",
    "load_sense_file",
    "load_sense_model",
    "target_span",
]


def load_sense_model(spec: Any, **options: Any) -> SenseVectors:
    """A sense-vector model from ``"gloss:<encoder>"``, a sense-vector file path, or a model object.

    ``options`` go to the encoder (``layer``, ``pooling``, ...) or to :func:`load_sense_file` (``keys``).
    """
    if isinstance(spec, SenseVectors):
        return spec
    if not isinstance(spec, str | Path):
        return GlossSenseVectors(spec)  # an encoder object
    text = str(spec)
    if text.startswith("gloss:"):
        return load_gloss_vectors(text[len("gloss:") :] or DEFAULT_GLOSS_ENCODER, **options)
    if Path(text).expanduser().is_file() or Path(text).suffix in (".npz", ".txt"):
        return load_sense_file(text, **options)  # a file path that does not exist is named as such
    raise ModelNotFoundError(
        f"unknown sense model {text!r}: give 'gloss:<encoder>' (e.g. 'gloss:{DEFAULT_GLOSS_ENCODER}') "
        "or the path of an LMMS .npz/.txt or ARES .txt file"
    )
