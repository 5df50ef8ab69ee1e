"""Sense vectors: a vector per WordNet 3.0 sense key (Zhou, Kaneko & Bollegala 2022).

- ``files``: published static sense embeddings (LMMS ``.npz``/``.txt``, ARES ``.txt``), read lazily;
- ``gloss``: gloss-based vectors from any sentence encoder (the gloss step of LMMS);
- ``prototypes``: contextual prototypes, the mean of a word's token vectors over sentences labelled with a sense.

No module here loads a model by name: :func:`embias_widgets.models.registry.load_sense_model` reads the
spellings the command line accepts (``"gloss:<encoder>"``, a sense-vector file path) and hands the loaded
encoder to :class:`GlossSenseVectors`.
"""

from __future__ import annotations

from ..errors import MissingSenseError, SenseFileError
from .base import SenseVectors, lemma_of
from .files import SenseVectorFile, is_sense_file, load_sense_file
from .gloss import DEFAULT_GLOSS_ENCODER, GlossSenseVectors, gloss_text
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
    "load_sense_file",
    "target_span",
]
