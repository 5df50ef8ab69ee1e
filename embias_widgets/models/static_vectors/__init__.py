"""Static word vectors: lookup, vector files (word2vec/GloVe), the embedded GloVe, projection debiasing."""

from .files import load_vector_file, read_text_vectors, read_word2vec_binary
from .vectors import Encoding, OutOfVocabulary, StaticVectors

__all__ = ["Encoding", "OutOfVocabulary", "StaticVectors", "load_vector_file", "read_text_vectors",
           "read_word2vec_binary"]
