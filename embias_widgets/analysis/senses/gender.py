"""Gender direction bias of senses (Zhou, Kaneko & Bollegala 2022, section 7, eq. 8, Figure 2).

``g = (1/|C|) sum_{(m, f) in C} (m - f)`` over definitional (male, female) pairs,
and the bias of a vector ``s`` is ``cos(s, g)``: positive leans male. For each
occupation the noun sense, the verb sense and the sense-insensitive word vector
(eq. 7, the mean of all the lemma's sense vectors) are compared, as Figure 2 does
for LMMS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...metrics import cosine_bias, mean_difference_direction
from ...models.registry import load_sense_model
from ...models.sense_vectors import SenseVectors
from ...stimuli.sense_sentences import GENDER_PAIR_LEMMAS, OCCUPATIONS
from .result import KINDS, GenderBiasRow, SenseGenderBiasResult


def sense_gender_bias(
    model: Any = "gloss:all-MiniLM-L6-v2",
    *,
    occupations: Mapping[str, Mapping[str, str]] | Iterable[tuple[str, str, str]] | None = None,
    pairs: Sequence[tuple[str, str]] = GENDER_PAIR_LEMMAS,
) -> SenseGenderBiasResult:
    """Zhou et al. eq. 8 for noun sense, verb sense and word vector of each occupation.

    ``occupations``: ``{lemma: {"noun": key, "verb": key}}`` or ``(lemma, noun_key, verb_key)``
    triples; default the six of the paper. ``pairs``: (male, female) items. As in the paper, m and f
    are word embeddings: a lemma ("man") stands for its eq. 7 vector (the mean of its sense vectors);
    a sense key ("man%1:18:00::", e.g. from ``GENDER_PAIR_KEYS``) for that one sense's vector.
    """
    sense_model: SenseVectors = load_sense_model(model)
    if not pairs:
        raise ValueError("give at least one (male, female) pair for the gender direction, e.g. ('man', 'woman')")
    male = _pair_side_vectors(sense_model, [m for m, _ in pairs])
    female = _pair_side_vectors(sense_model, [f for _, f in pairs])
    g = mean_difference_direction(male, female)
    if occupations is None:
        occupations = OCCUPATIONS
    triples = (
        [(k, v["noun"], v["verb"]) for k, v in occupations.items()]
        if isinstance(occupations, Mapping)
        else [tuple(t) for t in occupations]
    )
    rows = []
    for lemma, noun, verb in triples:
        word = sense_model.word_vectors([lemma])[0]
        vectors = np.vstack([sense_model.vector(noun), sense_model.vector(verb), word])
        for kind, key, bias in zip(KINDS, (noun, verb, lemma), cosine_bias(vectors, g), strict=True):
            rows.append(GenderBiasRow(lemma, kind, key, float(bias)))
    return SenseGenderBiasResult(sense_model.name, tuple(tuple(p) for p in pairs), tuple(rows))


def _pair_side_vectors(sense_model: SenseVectors, items: Sequence[str]) -> np.ndarray:
    """A sense key's vector, or a lemma's eq. 7 word vector, per item."""
    return np.vstack([sense_model.vector(item) if "%" in item else sense_model.word_vectors([item])[0]
                      for item in items])
