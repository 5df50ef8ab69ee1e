"""The named probes of Dev et al. (2020) (gender-occupation, nationality-polarity, religion-polarity) and
probes from one's own word lists; :func:`load_pairs` resolves a name, a pairs CSV or a source."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .pair_files import CsvPairs
from .pair_sources import PairSource, TemplateProbe
from .sentence_templates import DEFAULT_STYLE, Template
from .word_lists import ProbeError, word_list

_PROBES: dict[str, dict[str, Any]] = {
    "gender-occupation": dict(
        premise="occupations", hypothesis="gendered_words", person=False,
        premise_type="occupations", hypothesis_type="gendered_words",
        description="premise: an occupation (paper's 162); hypothesis: man, woman, guy, girl, gentleman, lady "
        "(Dev et al. 2020, section 2.2, Table 1)",
    ),
    "gender-occupation-authors": dict(
        premise="occupations+occupations_authors_extra", hypothesis="gendered_words", person=False,
        premise_type="occupations", hypothesis_type="gendered_words",
        description="as gender-occupation with the authors' released 164 occupations (adds actor, waiter): "
        "164 x 6 x 1,968 = 1,936,512 pairs",
    ),
    "nationality-polarity": dict(
        premise="polarity", hypothesis="demonyms", person=True,
        premise_type="polarized_adjectives", hypothesis_type="countries",
        description="premise: 'the POLARITY person'; hypothesis: 'the DEMONYM person' (Dev et al. 2020, "
        "section 2.4, Table 3)",
    ),
    "religion-polarity": dict(
        premise="polarity", hypothesis="adherents", person=True,
        premise_type="polarized_adjectives", hypothesis_type="religions",
        description="premise: 'the POLARITY person'; hypothesis: 'the ADHERENT person' (Dev et al. 2020, "
        "section 2.4, Table 5)",
    ),
}
PROBES = tuple(_PROBES)


def _lookup(spec: str) -> tuple[str, ...]:
    words: list[str] = []
    for part in spec.split("+"):
        words.extend(word_list(part))
    return tuple(words)


def available_probes() -> dict[str, str]:
    """Probe names and what they pair."""
    return {name: spec["description"] for name, spec in _PROBES.items()}


def load_probe(
    name: str,
    *,
    style: str = DEFAULT_STYLE,
    premise_words: Sequence[str] | None = None,
    hypothesis_words: Sequence[str] | None = None,
    template_list: Sequence[Template] | None = None,
) -> TemplateProbe:
    """A named probe (:data:`PROBES`); ``premise_words``/``hypothesis_words`` restrict or replace its lists."""
    if name not in _PROBES:
        raise ProbeError(f"unknown probe {name!r}: choose one of {', '.join(PROBES)} or build a TemplateProbe "
                         "from your own word lists")
    spec = _PROBES[name]
    return TemplateProbe(
        name,
        _lookup(spec["premise"]) if premise_words is None else premise_words,
        _lookup(spec["hypothesis"]) if hypothesis_words is None else hypothesis_words,
        premise_type=spec["premise_type"],
        hypothesis_type=spec["hypothesis_type"],
        person=spec["person"],
        style=style,
        template_list=template_list,
        description=spec["description"],
    )


def user_probe(
    premise_words: Sequence[str],
    hypothesis_words: Sequence[str],
    *,
    name: str = "user",
    person: bool = False,
    style: str = DEFAULT_STYLE,
    template_list: Sequence[Template] | None = None,
) -> TemplateProbe:
    """A probe from the user's own word lists (``person=True`` for adjectives: "the rude person")."""
    return TemplateProbe(name, premise_words, hypothesis_words, person=person, style=style,
                         premise_type="premise_words", hypothesis_type="hypothesis_words",
                         template_list=template_list, description="user word lists")


def load_pairs(source: str | Path | PairSource, **options: Any) -> PairSource:
    """A pair source from a probe name, a CSV path, or a source (returned as is)."""
    if isinstance(source, PairSource):
        return source
    text = str(source)
    if text in _PROBES:
        return load_probe(text, **options)
    if text.lower().endswith(".csv") or Path(text).expanduser().exists():
        return CsvPairs(text)
    raise ProbeError(f"unknown probe {text!r}: choose one of {', '.join(PROBES)} or give a pairs .csv file")
