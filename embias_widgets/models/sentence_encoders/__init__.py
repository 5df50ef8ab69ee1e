"""Sentence encoders: any Hugging Face encoder with a pooling and a layer choice, and the CBoW baseline.

torch and transformers are imported inside the loaders, not here.
"""

from .encoders import CBoWEncoder, TransformerSentenceEncoder, clear_encoding_cache

__all__ = ["CBoWEncoder", "TransformerSentenceEncoder", "clear_encoding_cache"]
