"""Gloss-based sense vectors from any sentence encoder (the gloss step of LMMS).

Loureiro & Jorge (2019) encode each WordNet synset's gloss as the string
``"lemma - lemma_1 , lemma_2 , ... - definition"`` and average its token
vectors. Here the string goes through a sentence encoder with its own ``layer``
and ``pooling`` options (``pooling="mean"`` averages the token vectors; LMMS
sums the last 4 layers: ``layer="sum-last4"``; the default is the last layer, as
sentence-transformers uses MiniLM). These are gloss-only vectors, one documented
component of LMMS, not full LMMS (which adds SemCor-supervised vectors propagated through WordNet).

:class:`GlossSenseVectors` takes the encoder object; loading an encoder by name (``"gloss:<encoder>"``,
default :data:`DEFAULT_GLOSS_ENCODER`) is the registry's
(:func:`embias_widgets.models.registry.load_sense_model`).

Vectors are cached per (encoder content, options, WordNet, sense key): a second run encodes nothing new.
The encoder is keyed by its content fingerprint (:mod:`embias_widgets.models.fingerprints`: a hash of
its weights and tokenizer), never by its name, so two encoders that share a name, or a model retrained in
the same folder, never share vectors; an encoder that cannot be fingerprinted shares its
cache only with itself (the same object).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import SenseVectors

DEFAULT_GLOSS_ENCODER = "all-MiniLM-L6-v2"
_GLOSS_CACHE: dict[tuple[str, str, str], dict[str, np.ndarray]] = {}
_OBJECT_CACHES: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], dict[str, np.ndarray]]] = (
    weakref.WeakKeyDictionary())


def gloss_text(sense: Any) -> str:
    """LMMS's gloss string: ``"lemma - synonym , synonym - gloss"`` for a :class:`~embias_widgets.stimuli.Sense`."""
    return f"{sense.lemma.replace('_', ' ')} - {' , '.join(sense.synonyms)} - {sense.gloss}"


def clear_gloss_cache() -> None:
    """Forget every cached gloss vector."""
    _GLOSS_CACHE.clear()
    _OBJECT_CACHES.clear()


def _gloss_cache(encoder: Any, options: str, wordnet_source: str) -> dict[str, np.ndarray]:
    """The shared cache of this encoder's content, options and WordNet (a private one if unfingerprintable)."""
    from ..fingerprints import FingerprintError, object_fingerprint

    try:
        fingerprint = object_fingerprint(encoder)
    except FingerprintError:  # shared only by this very object (held weakly: no id reuse after it is gone)
        try:
            per_object = _OBJECT_CACHES.setdefault(encoder, {})
        except TypeError:  # not weak-referenceable or not hashable
            return {}
        return per_object.setdefault((options, wordnet_source), {})
    return _GLOSS_CACHE.setdefault((fingerprint, options, wordnet_source), {})


class GlossSenseVectors(SenseVectors):
    """Sense vectors from an encoder over WordNet 3.0 glosses (every key of WordNet is covered).

    Parameters
    ----------
    encoder
        A sentence encoder (``encode(list[str]) -> Encoding``), e.g. ``load_model("all-MiniLM-L6-v2", layer=-2)``.
    wordnet
        A :class:`~embias_widgets.stimuli.WordNet`; default :func:`~embias_widgets.stimuli.load_wordnet`.
    """

    def __init__(self, encoder: Any, wordnet: Any = None) -> None:
        from ...stimuli.wordnet import load_wordnet

        self.encoder = encoder
        self.wordnet = wordnet if wordnet is not None else load_wordnet()
        self.name = f"gloss:{getattr(encoder, 'name', type(encoder).__name__)}"
        self.options = getattr(encoder, "options", "")
        self._cache = _gloss_cache(encoder, str(self.options), str(getattr(self.wordnet, "source", "")))
        self._dim: int | None = None

    def __repr__(self) -> str:
        return f"GlossSenseVectors({self.name!r}, {self.options})"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.vector(self.wordnet.senses("entity")[0].key).shape[0])
        return self._dim

    def keys_of(self, lemma: str) -> list[str]:
        return [s.key for s in self.wordnet.senses(lemma)]

    def _lookup(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        todo = [k for k in dict.fromkeys(keys) if k not in self._cache]
        if todo:
            senses = [self.wordnet.sense(k) for k in todo]  # UnknownSenseError names a non-WordNet key
            encoding = self.encoder.encode([gloss_text(s) for s in senses])
            if len(encoding.vectors) != len(todo):
                lost = ", ".join(o.item for o in encoding.oov)
                raise ValueError(f"{self.name} could not encode the gloss(es) {lost}: use a sentence encoder")
            for key, vector in zip(todo, encoding.vectors, strict=True):
                self._cache[key] = np.asarray(vector, dtype=np.float64)
        return [self._cache[k] for k in keys]
