"""Adapters from text to arrays, and the one registry of named models."""

from .registry import available_models, load_model, register
from .static import Encoding, OutOfVocabulary, StaticVectors

__all__ = ["Encoding", "OutOfVocabulary", "StaticVectors", "available_models", "load_model", "register"]
