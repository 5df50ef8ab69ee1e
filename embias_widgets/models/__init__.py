"""Adapters from text to arrays, grouped by kind, and the one registry of named models on top.

- ``static_vectors/``: word vectors (embedded GloVe, word2vec/GloVe files), projection debiasing;
- ``sentence_encoders/``: Hugging Face encoders with pooling, the CBoW baseline;
- ``language_models/``: masked- and causal-LM likelihood scorers, the demo MLM;
- ``sense_vectors/``, ``nli_classifiers/``: sense vectors, NLI classifiers;
- ``runtime``: a model's input length, its device and the CPU threads (one place for each);
- ``fingerprints/``: content hashes of models, the cache keys;
- ``names``: what a model name means before anything loads (empty, a missing file, a hub name not found);
- ``registry``: ``load_model(name)`` (and ``load_sense_model(spec)``) resolves names lazily from one table.
"""

from .errors import ModelNotFoundError
from .registry import available_models, load_model, load_sense_model, register
from .static_vectors import Encoding, OutOfVocabulary, StaticVectors

__all__ = ["Encoding", "ModelNotFoundError", "OutOfVocabulary", "StaticVectors", "available_models", "load_model",
           "load_sense_model", "register"]
