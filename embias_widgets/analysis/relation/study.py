"""``RelationProjection``: RIPA along a relation vector, and debiasing by projection.

Given ordered pairs (``("she", "he")``, ...) and words, the study encodes them
with a static model, builds the relation vector ``b`` (first principal
component of the pairs' differences, Ethayarajh, Duvenaud & Hirst 2019,
Definition 2) and scores every word with ``RIPA(w) = <w, b>``. It also builds
debiased models (the relation direction or the span of the differences
projected out; Bolukbasi et al. 2016, Ethayarajh et al. 2019 §3) and their
random-direction controls (Dev et al. 2020), so that
:func:`~embias_widgets.analysis.relation.before_after.weat_before_after` can put WEAT effect sizes
side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...metrics.projection import (
    RelationVector,
    Subspace,
    difference_vectors,
    relation_subspace,
    relation_vector,
    ripa,
    span_subspace,
)
from ...metrics.relation_intervals import DEFAULT_RIPA_RESAMPLES, ripa_intervals
from ...metrics.score_intervals import DEFAULT_LEVEL
from ...models import OutOfVocabulary, StaticVectors, load_model
from ...models.static_vectors.debias import project_out_random, project_out_subspace
from ...stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS
from .before_after import weat_before_after
from .result import RelationProjectionResult
from .validation import Pair, RelationInputError, check_finite, clean_pairs, clean_word_groups, mirrored_pair_notes

SUBSPACE_KINDS = ("relation", "span")
DEFAULT_PAIRS = BOLUKBASI_DEFINITIONAL_PAIRS
"""Bolukbasi et al. (2016)'s ten definitional pairs, female first (positive RIPA points to the female words)."""


class RelationProjection:
    """RIPA of words along the relation vector of ordered pairs.

    Parameters
    ----------
    pairs
        Ordered pairs ``(first, second)``; ``b`` points towards the first words
        (Ethayarajh et al. 2019: the pair order gives the direction).
    words
        Words to score: a list, or ``{group: words}`` for a coloured plot.
    model
        A registered name (default ``"glove-6b-50d"``), a path, or loaded
        :class:`StaticVectors`.
    model_options
        Passed to :func:`embias_widgets.models.load_model`.

    Notes
    -----
    Pairs or words not in the vocabulary are left out with a note (see
    ``result.notes``); a study with no usable pair raises
    :class:`RelationInputError`.
    """

    def __init__(
        self,
        pairs: Iterable[Sequence[str]],
        words: Iterable[str] | Mapping[str, Iterable[str]] = (),
        *,
        model: Any = "glove-6b-50d",
        **model_options: Any,
    ) -> None:
        self.model = load_model(model, **model_options)
        if not hasattr(self.model, "vector"):
            raise RelationInputError(
                f"RelationProjection needs static word vectors, got {type(self.model).__name__}: "
                "use load_model('glove-6b-50d') or a vector file"
            )
        self.pairs = clean_pairs(pairs)
        self.word_groups = clean_word_groups(words)

    # -- editing -----------------------------------------------------------
    def set_pairs(self, pairs: Iterable[Sequence[str]]) -> None:
        self.pairs = clean_pairs(pairs)

    def set_words(self, words: Iterable[str] | Mapping[str, Iterable[str]]) -> None:
        self.word_groups = clean_word_groups(words)

    # -- encoding ----------------------------------------------------------
    def encoded_pairs(
        self,
    ) -> tuple[tuple[Pair, ...], np.ndarray, np.ndarray, list[str], list[OutOfVocabulary]]:
        """Pairs in the vocabulary, their vectors ``X`` (first) and ``Y`` (second), notes, OOV."""
        if not self.pairs:
            raise RelationInputError("no pairs: add at least one ordered pair, e.g. ('she', 'he')")
        kept, xs, ys, notes, oov = [], [], [], [], []
        for first, second in self.pairs:
            enc = self.model.encode([first, second])
            if len(enc.items) == 2:
                check_finite(enc.items, enc.vectors, f"pair ({first!r}, {second!r})")
                kept.append((first, second))
                xs.append(enc.vectors[0])
                ys.append(enc.vectors[1])
                continue
            oov.extend(enc.oov)
            why = "; ".join(o.message() for o in enc.oov)
            notes.append(f"pair ({first!r}, {second!r}) left out: {why}")
        if not kept:
            raise RelationInputError(
                f"no pair has both words in the vocabulary of "
                f"{getattr(self.model, 'name', 'the model')} "
                f"({' | '.join(notes)}): check spelling or case"
            )
        return tuple(kept), np.vstack(xs), np.vstack(ys), notes, oov

    def relation(self) -> RelationVector:
        """The relation vector of the pairs in the vocabulary."""
        _, X, Y, _, _ = self.encoded_pairs()
        return relation_vector(X, Y)

    def subspace(self, kind: str = "relation", *, rtol: float | None = None) -> Subspace:
        """``"relation"``: the 1-d relation vector; ``"span"``: span of the differences."""
        if kind not in SUBSPACE_KINDS:
            raise ValueError(f"`kind` must be in {SUBSPACE_KINDS}, got {kind!r}")
        _, X, Y, _, _ = self.encoded_pairs()
        if kind == "relation":
            return relation_subspace(relation_vector(X, Y))
        return span_subspace(difference_vectors(X, Y), rtol=rtol)

    # -- running -----------------------------------------------------------
    def run(self, *, level: float = DEFAULT_LEVEL, n_resamples: int = DEFAULT_RIPA_RESAMPLES,
            seed: int = 0) -> RelationProjectionResult:
        """Build ``b`` and score every word (``RIPA(w) = <w, b>``), each with its bias-corrected bootstrap interval
        over the relation pairs at ``level`` (``n_resamples`` seeded replicates, ``b`` recomputed each time:
        :func:`~embias_widgets.metrics.relation_intervals.ripa_intervals`; ``n_resamples=0``: none)."""
        pairs, X, Y, notes, oov = self.encoded_pairs()
        rel = relation_vector(X, Y)
        notes.extend(mirrored_pair_notes(pairs))
        items = [w for _, w in self.word_groups]
        enc = self.model.encode(items)
        oov = oov + list(enc.oov)
        if enc.oov:
            notes.append(
                f"{len(enc.oov)} word(s) not in the vocabulary left out: "
                + "; ".join(o.message() for o in enc.oov)
            )
        check_finite(enc.items, enc.vectors, "words")
        kept = set(enc.items)
        groups = [g for g, w in self.word_groups if w in kept]
        dim = rel.dim
        vectors = enc.vectors if len(enc.items) else np.zeros((0, dim))
        scores = vectors @ rel.vector
        pair_scores = np.column_stack([ripa(X, rel), ripa(Y, rel)])
        intervals = None
        if n_resamples:
            intervals = ripa_intervals(X, Y, np.vstack([vectors, X, Y]), level=level, n_resamples=n_resamples,
                                       seed=seed)
            if intervals.note:
                notes.append(intervals.note)
        return RelationProjectionResult(
            model=getattr(self.model, "name", type(self.model).__name__),
            pairs=pairs,
            relation=rel,
            words=enc.items,
            groups=tuple(groups),
            ripa=scores,
            norms=np.linalg.norm(vectors, axis=1),
            pair_ripa=pair_scores,
            oov=tuple(oov),
            notes=tuple(notes),
            intervals=intervals,
        )

    # -- debiasing ---------------------------------------------------------
    def debiased_model(
        self, kind: str = "relation", *, rtol: float | None = None, **options: Any
    ) -> StaticVectors:
        """A NEW model with the ``kind`` subspace projected out (the study's model is unchanged).

        ``options`` (``mask``, ``keep``, ``name``) go to
        :func:`embias_widgets.models.static_vectors.debias.project_out_subspace`.
        """
        return project_out_subspace(self.model, self.subspace(kind, rtol=rtol), **options)

    def random_model(
        self, kind: str = "relation", *, seed: int = 0, rtol: float | None = None, **options: Any
    ) -> StaticVectors:
        """Control: a NEW model with as many random directions as ``kind`` has, projected out."""
        k = self.subspace(kind, rtol=rtol).rank
        return project_out_random(self.model, k, seed=seed, **options)

    def compare_weat(
        self,
        tests: Iterable[Any] = ("weat6", "weat7", "weat8"),
        *,
        kind: str = "relation",
        seed: int = 0,
        n_random: int = 1,
        **test_options: Any,
    ) -> Any:
        """WEAT before and after debiasing, and after random projections (a DataFrame).

        Columns ``original``, ``debiased`` and ``random`` hold effect sizes,
        ``p_*`` the p-values. With ``n_random > 1`` the ``random`` columns are
        means over seeds ``seed, seed + 1, ...`` (Dev et al. 2020 average 8).
        """
        if n_random < 1:
            raise ValueError(f"`n_random` must be at least 1, got {n_random}")
        tests = list(tests)
        models: dict[str, Any] = {"original": self.model, "debiased": self.debiased_model(kind)}
        frame = weat_before_after(tests, models, **test_options)
        randoms = [
            weat_before_after(
                tests, {"random": self.random_model(kind, seed=seed + i)}, **test_options
            )
            for i in range(n_random)
        ]
        frame["random"] = np.mean([r["random"].to_numpy(dtype=float) for r in randoms], axis=0)
        frame["p_random"] = np.mean([r["p_random"].to_numpy(dtype=float) for r in randoms], axis=0)
        return frame[
            ["test", "original", "debiased", "random", "p_original", "p_debiased", "p_random"]
        ]
