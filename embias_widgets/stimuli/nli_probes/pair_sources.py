"""Sentence pairs of a probe, never materialised: pair ``i`` is computed from ``i``.

:class:`PairSource` is what the engines need (a length known up front, chunks by index range);
:class:`TemplateProbe` generates premise words x hypothesis words x templates lazily (premise word
outermost, then hypothesis word, then template, the authors' loop order), so a 1.9M-pair probe costs a
few kilobytes until it is iterated and any index range is a chunk a worker can generate on its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from .sentence_templates import DEFAULT_STYLE, STYLES, Template, subject_part, templates
from .word_lists import ProbeError, check_words

CSV_COLUMNS = (
    "id",
    "pair type",
    "premise_filler_word",
    "hypothesis_filler_word",
    "template_type",
    "premise",
    "hypothesis",
)


@dataclass(frozen=True)
class NliPair:
    """One premise/hypothesis pair and where it comes from.

    ``index`` is its position in the probe (stable: the same probe always gives
    the same pair at the same index); ``id`` the authors' sha224 id.
    """

    index: int
    id: str
    pair_type: str
    premise_word: str
    hypothesis_word: str
    template_type: str
    premise: str
    hypothesis: str
    verb: str = ""
    object: str = ""

    def csv_row(self) -> list[str]:
        """The pair in the authors' CSV layout (:data:`CSV_COLUMNS`)."""
        return [self.id, self.pair_type, self.premise_word, self.hypothesis_word, self.template_type,
                self.premise, self.hypothesis]


@dataclass
class PairChunk:
    """Pairs ``start .. stop-1`` of a source, column by column (what a model and the metrics consume)."""

    start: int
    ids: list[str] = field(default_factory=list)
    premise_words: list[str] = field(default_factory=list)
    hypothesis_words: list[str] = field(default_factory=list)
    template_types: list[str] = field(default_factory=list)
    verbs: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    premises: list[str] = field(default_factory=list)
    hypotheses: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.premises)

    def append(self, pair: NliPair) -> None:
        self.ids.append(pair.id)
        self.premise_words.append(pair.premise_word)
        self.hypothesis_words.append(pair.hypothesis_word)
        self.template_types.append(pair.template_type)
        self.verbs.append(pair.verb)
        self.objects.append(pair.object)
        self.premises.append(pair.premise)
        self.hypotheses.append(pair.hypothesis)


@dataclass(frozen=True)
class PairParts:
    """Pairs ``start .. stop-1`` of a template probe as indices into the sentences' parts, never as pair objects.

    Pair ``k`` of the chunk has premise ``first[p[k]] + tails[t[k]]`` and hypothesis ``second[h[k]] +
    tails[t[k]]`` (:func:`~.sentence_templates.subject_part` and :meth:`~.sentence_templates.Template.tail`), of
    the word pair ``(premise_words[p[k]], hypothesis_words[h[k]])``. A classifier that tokenises each part once
    (the cross-encoder's ``predict_parts``) builds every pair's token ids from them.
    """

    start: int
    first: tuple[str, ...]
    second: tuple[str, ...]
    tails: tuple[str, ...]
    premise_words: tuple[str, ...]
    hypothesis_words: tuple[str, ...]
    p: np.ndarray
    h: np.ndarray
    t: np.ndarray

    def __len__(self) -> int:
        return len(self.p)

    def premises(self) -> list[str]:
        first, tails = self.first, self.tails
        return [first[i] + tails[j] for i, j in zip(self.p.tolist(), self.t.tolist(), strict=True)]

    def hypotheses(self) -> list[str]:
        second, tails = self.second, self.tails
        return [second[i] + tails[j] for i, j in zip(self.h.tolist(), self.t.tolist(), strict=True)]

    def pair_premise_words(self) -> list[str]:
        return np.asarray(self.premise_words, dtype=object)[self.p].tolist()

    def pair_hypothesis_words(self) -> list[str]:
        return np.asarray(self.hypothesis_words, dtype=object)[self.h].tolist()


def pair_id(pair_type: str, premise: str, hypothesis: str) -> str:
    """The authors' pair id: ``sha224(pair_type + "\\t" + premise + "\\t" + hypothesis)`` in hex."""
    return hashlib.sha224(f"{pair_type}\t{premise}\t{hypothesis}".encode()).hexdigest()


class PairSource:
    """What the engines need from pairs: a length known up front and chunks by index range."""

    name: str = ""

    def __len__(self) -> int:
        raise NotImplementedError

    def iter_pairs(self, start: int = 0, stop: int | None = None) -> Iterator[NliPair]:
        raise NotImplementedError

    def chunk(self, start: int, stop: int) -> PairChunk:
        """Pairs ``start .. stop-1`` as columns."""
        out = PairChunk(start)
        for pair in self.iter_pairs(start, stop):
            out.append(pair)
        return out

    def pair_parts(self, start: int, stop: int) -> PairParts | None:
        """Pairs ``start .. stop-1`` as :class:`PairParts` where the source is a product of parts, else None."""
        return None

    def _range(self, start: int, stop: int | None) -> tuple[int, int]:
        n = len(self)
        stop = n if stop is None else stop
        if not (0 <= start <= stop <= n):
            raise IndexError(f"pair range {start}..{stop} is outside 0..{n} of {self.name!r}")
        return start, stop

    def __iter__(self) -> Iterator[NliPair]:
        return self.iter_pairs()


class TemplateProbe(PairSource):
    """Premise words x hypothesis words x templates, generated lazily.

    Pair ``i`` is ``(premise_words[p], hypothesis_words[h], templates[t])``
    with ``i = (p * len(hypothesis_words) + h) * len(templates) + t``.
    ``person=True`` fills "SUBJECT person" (adjective slot fillers).
    """

    def __init__(
        self,
        name: str,
        premise_words: Iterable[str],
        hypothesis_words: Iterable[str],
        *,
        premise_type: str = "premise",
        hypothesis_type: str = "hypothesis",
        person: bool = False,
        style: str = DEFAULT_STYLE,
        template_list: Sequence[Template] | None = None,
        description: str = "",
    ) -> None:
        if style not in STYLES:
            raise ProbeError(f"unknown sentence style {style!r}: use one of {', '.join(STYLES)}")
        self.name = name
        self.description = description
        self.premise_words = check_words(premise_words, "premise words")
        self.hypothesis_words = check_words(hypothesis_words, "hypothesis words")
        self.templates = tuple(templates() if template_list is None else template_list)
        if not self.templates:
            raise ProbeError("the template list is empty: give at least one template")
        self.premise_type = premise_type
        self.hypothesis_type = hypothesis_type
        self.person = person
        self.style = style
        self.pair_type = f"{premise_type} -> {hypothesis_type}"
        self._parts: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None = None  # by pair_parts

    def __len__(self) -> int:
        return len(self.premise_words) * len(self.hypothesis_words) * len(self.templates)

    def __repr__(self) -> str:
        return (f"TemplateProbe({self.name!r}: {len(self.premise_words)} premise words x "
                f"{len(self.hypothesis_words)} hypothesis words x {len(self.templates)} templates = "
                f"{len(self):,} pairs, style={self.style!r})")

    def word_pair_range(self, premise_word: str, hypothesis_word: str) -> range:
        """Indices of every template of one (premise word, hypothesis word): a contiguous block."""
        try:
            p, h = self.premise_words.index(premise_word), self.hypothesis_words.index(hypothesis_word)
        except ValueError:
            raise ProbeError(f"({premise_word!r}, {hypothesis_word!r}) is not a word pair of probe {self.name!r}: "
                             f"premise words {', '.join(self.premise_words[:5])}, ...; hypothesis words "
                             f"{', '.join(self.hypothesis_words[:6])}, ...") from None
        start = (p * len(self.hypothesis_words) + h) * len(self.templates)
        return range(start, start + len(self.templates))

    def pair_parts(self, start: int, stop: int) -> PairParts:
        """Pairs ``start .. stop-1`` as indices into the subject parts and template tails (see
        :class:`PairParts`): the same sentences as :meth:`iter_pairs`, no pair objects, no ids."""
        start, stop = self._range(start, stop)
        if self._parts is None:
            style, person = self.style, self.person
            self._parts = (tuple(subject_part(w, style=style, person=person) for w in self.premise_words),
                           tuple(subject_part(w, style=style, person=person) for w in self.hypothesis_words),
                           tuple(tpl.tail(style) for tpl in self.templates))
        ph, t = np.divmod(np.arange(start, stop, dtype=np.int64), len(self.templates))
        p, h = np.divmod(ph, len(self.hypothesis_words))
        return PairParts(start, *self._parts, self.premise_words, self.hypothesis_words, p, h, t)

    def pair(self, index: int) -> NliPair:
        """Pair number ``index`` (0-based)."""
        self._range(index, index + 1)
        return next(self.iter_pairs(index, index + 1))

    def iter_pairs(self, start: int = 0, stop: int | None = None) -> Iterator[NliPair]:
        start, stop = self._range(start, stop)
        n_t, n_h = len(self.templates), len(self.hypothesis_words)
        p_type, h_type = self.premise_type, self.hypothesis_type
        for i in range(start, stop):
            ph, t = divmod(i, n_t)
            p, h = divmod(ph, n_h)
            tpl = self.templates[t]
            pw, hw = self.premise_words[p], self.hypothesis_words[h]
            premise = tpl.sentence(pw, style=self.style, person=self.person)
            hypothesis = tpl.sentence(hw, style=self.style, person=self.person)
            ttype = tpl.type_name(self.person)
            yield NliPair(
                index=i,
                id=pair_id(self.pair_type, premise, hypothesis),
                pair_type=self.pair_type,
                premise_word=pw,
                hypothesis_word=hw,
                template_type=f"X1_{p_type} {ttype} Y -> X2_{h_type} {ttype} Y",
                premise=premise,
                hypothesis=hypothesis,
                verb=tpl.verb,
                object=tpl.object,
            )
