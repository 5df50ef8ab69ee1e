"""Gender direction bias of senses (Zhou, Kaneko & Bollegala 2022, section 7, eq. 8, Figure 2).

``g = (1/|C|) sum_{(m, f) in C} (m - f)`` over definitional (male, female) pairs,
and the bias of a vector ``s`` is ``cos(s, g)``: positive leans male. For each
occupation the noun sense, the verb sense and the sense-insensitive word vector
(eq. 7, the mean of all the lemma's sense vectors) are compared, as Figure 2 does
for LMMS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..metrics import cosine_bias, mean_difference_direction
from ..models.sense_vectors import SenseVectors, load_sense_model
from ..palette import altair_scale, group_colors
from ..stimuli.sense_sentences import GENDER_PAIR_LEMMAS, OCCUPATIONS

KINDS = ("noun sense", "verb sense", "word (eq. 7)")


@dataclass(frozen=True)
class SenseGenderBiasResult:
    """``cos(v, g)`` per occupation for its noun sense, verb sense and eq. 7 word vector."""

    model: str
    pairs: tuple[tuple[str, str], ...]
    rows: tuple[dict[str, Any], ...]

    def frame(self) -> Any:
        """Tidy DataFrame: occupation, kind, sense_key, bias."""
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=["occupation", "kind", "sense_key", "bias"])

    def chart(self) -> Any:
        """Figure 2 of the paper: grouped bars per occupation (noun vs verb sense vs word)."""
        import altair as alt

        colors = group_colors(list(KINDS))
        return (
            alt.Chart(self.frame(), title=f"gender direction bias cos(v, g) on {self.model}")
            .mark_bar()
            .encode(
                x=alt.X("occupation:N", title=None),
                xOffset=alt.XOffset("kind:N", sort=list(KINDS)),
                y=alt.Y("bias:Q", title="cos(v, g)  (> 0: towards male)"),
                color=alt.Color("kind:N", sort=list(KINDS), scale=altair_scale(colors), title=None),
                tooltip=["occupation", "kind", "sense_key", alt.Tooltip("bias:Q", format="+.3f")],
            )
        )


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
            rows.append({"occupation": lemma, "kind": kind, "sense_key": key, "bias": float(bias)})
    return SenseGenderBiasResult(sense_model.name, tuple(tuple(p) for p in pairs), tuple(rows))


def _pair_side_vectors(sense_model: SenseVectors, items: Sequence[str]) -> np.ndarray:
    """A sense key's vector, or a lemma's eq. 7 word vector, per item."""
    return np.vstack([sense_model.vector(item) if "%" in item else sense_model.word_vectors([item])[0]
                      for item in items])
