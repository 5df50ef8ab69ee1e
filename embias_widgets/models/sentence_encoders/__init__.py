"""Sentence encoders: any Hugging Face encoder with a pooling and a layer choice, and the CBoW baseline.

- ``pooling``: hidden states -> sentence vectors (pooling, layer choice);
- ``transformer``: :class:`TransformerSentenceEncoder` (cached per sentence);
- ``cbow``: :class:`CBoWEncoder`, the mean of word vectors;
- ``hub``: checks before a model directory or hub name is loaded;
- ``encoders``: the loaders the registry names.

torch and transformers are imported inside the loaders, not here.
"""

from .cbow import CBoWEncoder
from .transformer import TransformerSentenceEncoder, clear_encoding_cache

__all__ = ["CBoWEncoder", "TransformerSentenceEncoder", "clear_encoding_cache"]
