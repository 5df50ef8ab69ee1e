"""What every sense-vector model offers: vectors by WordNet 3.0 sense key, and eq. 7 word vectors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import MissingSenseError


def lemma_of(key: str) -> str:
    """The lemma part of a sense key (``"black%3:00:01::"`` -> ``"black"``)."""
    return key.split("%", 1)[0]


class SenseVectors:
    """Base class: a model that maps WordNet 3.0 sense keys to vectors.

    Subclasses implement :meth:`_lookup` (vectors for keys it has, ``None`` for
    the others), :meth:`keys_of` and :attr:`dim`. A key without a vector is a
    :class:`~embias_widgets.models.errors.MissingSenseError` naming it, never a
    zero vector (the reference code of Zhou et al. 2022 silently used zeros).
    """

    name: str = "sense vectors"
    options: str = ""
    kind: str = "sense"

    @property
    def dim(self) -> int:
        raise NotImplementedError

    def keys_of(self, lemma: str) -> list[str]:
        """The keys of ``lemma`` this model has a vector for (WordNet order where known)."""
        raise NotImplementedError

    def _lookup(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        raise NotImplementedError

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._lookup([key])[0] is not None

    def vectors(self, keys: Iterable[str]) -> np.ndarray:
        """``(len(keys), dim)`` float64 array; every key must have a vector of finite numbers."""
        keys = list(keys)
        found = self._lookup(keys)
        missing = tuple(dict.fromkeys(k for k, v in zip(keys, found, strict=True) if v is None))
        if missing:
            shown = ", ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
            raise MissingSenseError(
                f"{self.name} has no vector for sense key(s) {shown}: pick keys the model covers "
                "(see keys_of(lemma)), or another sense model",
                missing,
            )
        if not keys:
            return np.zeros((0, self.dim))
        out = np.vstack([np.asarray(v, dtype=np.float64) for v in found])
        bad = tuple(dict.fromkeys(k for k, row in zip(keys, out, strict=True) if not np.isfinite(row).all()))
        if bad:  # files say which line; this catches any other model (an encoder that overflowed)
            raise ValueError(
                f"{self.name} gave a vector holding NaN or an infinity for sense key(s) {', '.join(bad[:8])}: "
                "a sense vector must be finite numbers; check the model or pick other keys"
            )
        return out

    def vector(self, key: str) -> np.ndarray:
        return self.vectors([key])[0]

    def sense_groups(self, lemmas: Iterable[str]) -> list[np.ndarray]:
        """For each lemma, the ``(senses x dim)`` array of all its sense vectors."""
        out = []
        for lemma in lemmas:
            keys = self.keys_of(lemma)
            if not keys:
                raise MissingSenseError(f"{self.name} has no sense vector for any sense of {lemma!r}", (lemma,))
            out.append(self.vectors(keys))
        return out

    def word_vectors(self, lemmas: Iterable[str]) -> np.ndarray:
        """Sense-insensitive word vectors: the mean of each lemma's sense vectors (Zhou et al. eq. 7)."""
        from ...metrics.senses import mean_sense_vectors

        return mean_sense_vectors(self.sense_groups(lemmas))
