"""The CBoW baseline of May et al. (2019, table 3): a sentence is the mean of its words' vectors."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..static_vectors import Encoding, OutOfVocabulary, StaticVectors
from ..static_vectors.glove import load_glove_6b_50d

_TOKEN = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*|'[^\W_]+", re.UNICODE)


def tokenize_words(sentence: str) -> list[str]:
    """Words of a sentence for CBoW: letters/digits, inner hyphens and apostrophes;
    a clitic ("'s") is its own token, as in GloVe's tokenisation."""
    out = []
    for token in _TOKEN.findall(sentence):
        head, sep, tail = token.partition("'")
        if sep and head:
            out.extend([head, "'" + tail])
        else:
            out.append(token)
    return out


class CBoWEncoder:
    """Continuous bag of words: a sentence is the mean of its words' vectors
    (May et al. 2019, table 3: GloVe CBoW).

    ``v(s) = (1 / |W|) sum_{w in W} v(w)`` over the words W of ``s`` that the
    vectors know; a hyphenated word unknown as a whole contributes its parts.
    A sentence with no known word is reported as out of vocabulary.
    """

    def __init__(self, vectors: StaticVectors, *, name: str | None = None) -> None:
        self.vectors = vectors
        self.name = name or f"cbow-{vectors.name}"

    @property
    def options(self) -> str:
        return f"cbow,{self.vectors.options}"

    def encode(self, items: Iterable[str]) -> Encoding:
        kept, rows, oov = [], [], []
        for item in items:
            found = []
            for token in tokenize_words(item):
                vec = self.vectors.vector(token)
                if vec is None and "-" in token:
                    parts = [self.vectors.vector(p) for p in token.split("-")]
                    found.extend(p for p in parts if p is not None)
                elif vec is not None:
                    found.append(vec)
            if not found:
                oov.append(OutOfVocabulary(item, tuple(tokenize_words(item)) or (item,), ()))
                continue
            kept.append(item)
            rows.append(np.mean(np.asarray(found, dtype=np.float64), axis=0))
        vectors = np.vstack(rows) if rows else np.zeros((0, self.vectors.dim))
        return Encoding(tuple(kept), vectors, tuple(oov))


def load_cbow_glove_6b_50d(**options: Any) -> CBoWEncoder:
    """CBoW over the embedded GloVe 6B 50d vectors (May et al. 2019's baseline)."""
    return CBoWEncoder(load_glove_6b_50d(**options), name="cbow-glove-6b-50d")
