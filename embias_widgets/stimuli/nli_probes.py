"""Template sentence pairs for the NLI bias probes of Dev, Li, Phillips & Srikumar (2020).

"On Measuring and Mitigating Biased Inferences of Word Embeddings" (AAAI 2020,
``../shared/papers/001_…``), section 2: every pair shares a template
"The SUBJECT VERB a/an OBJECT." and differs only in the subject, so every pair
should be *neutral*; deviation from neutral is bias.

Templates (:func:`templates`) pair verb groups with object groups as the
authors' released generator does: commerce verbs x all 95 objects, interaction
verbs x 89 person nouns, driving verbs x vehicles, eating verbs x food, i.e.
10*95 + 10*89 + 2*9 + 5*22 = 1,968 templates. The paper lists the verbs and the
objects but not the verb groups, the food/vehicle subsets or the person nouns:
those come from the authors' word lists (github
``sunipa/On-Measuring-and-Mitigating-Biased-Inferences-of-Word-Embeddings``,
``word_lists/``); the person nouns are their 23 ``person_hyponyms``
(acquaintance, neighbor, stranger, ...) plus their 66 ``rulers``. Every list
names its source in ``data/nli_word_lists.json``.

Sentence styles (:data:`STYLES`):

- ``"authors"`` (the default): what the authors' generator writes and what
  published numbers were computed on, "A driver bought a phone ." (capitalised
  indefinite article, a space before the period); a pair's id is then the
  authors' id, ``sha224(pair_type + "\\t" + premise + "\\t" + hypothesis)``.
- ``"paper"``: as the paper prints them, "The driver bought a phone."

Adjective probes (polarity, demonyms, adherents) fill "SUBJECT person":
"An evil person bought a phone ." / "The evil person bought a phone.".

Pairs are never materialised: pair ``i`` is computed from ``i`` (premise word
outermost, then hypothesis word, then template, the authors' loop order), so a
1.9M-pair probe costs a few kilobytes until it is iterated, and any index range
is a chunk a worker can generate on its own. :class:`CsvPairs` reads and
:func:`write_pairs_csv` writes the authors' CSV layout with the ``csv`` module.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

STYLES = ("authors", "paper")
DEFAULT_STYLE = "authors"
CSV_COLUMNS = (
    "id",
    "pair type",
    "premise_filler_word",
    "hypothesis_filler_word",
    "template_type",
    "premise",
    "hypothesis",
)
#: Verb group -> object list, in the order the authors' ``Templates`` class adds them.
VERB_GROUPS: tuple[tuple[str, str], ...] = (
    ("commerce_verbs", "objects"),
    ("interaction_verbs", "person_nouns"),
    ("driving_verbs", "vehicles"),
    ("eating_verbs", "food"),
)


class ProbeError(ValueError):
    """A probe that cannot be built (unknown name, empty or malformed word list)."""


class PairFileError(ValueError):
    """A pairs CSV that cannot be read: names the file, the line and the fix."""


# -- word lists -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _word_list_table() -> dict[str, dict[str, Any]]:
    text = resources.files(__package__).joinpath("data/nli_word_lists.json").read_text(encoding="utf-8")
    return json.loads(text)["lists"]


def word_lists() -> dict[str, tuple[str, ...]]:
    """Every bundled list by name (occupations, gendered_words, demonyms, adherents, polarity, ...)."""
    return {name: tuple(entry["words"]) for name, entry in _word_list_table().items()}


def word_list(name: str) -> tuple[str, ...]:
    """One bundled list; :class:`ProbeError` naming the lists when ``name`` is unknown."""
    table = _word_list_table()
    if name not in table:
        raise ProbeError(f"unknown word list {name!r}: bundled lists are {', '.join(sorted(table))}")
    return tuple(table[name]["words"])


def word_list_source(name: str) -> str:
    """Where a bundled list comes from (paper appendix or the authors' word lists)."""
    word_list(name)
    return str(_word_list_table()[name]["source"])


def _iv_words(words: Iterable[str] | str, what: str) -> tuple[str, ...]:
    """Validate a slot-filler list: non-empty, strings, no blanks; duplicates dropped in order."""
    if isinstance(words, str):
        raise ProbeError(f"{what} must be a list of words, not the string {words!r}")
    out: list[str] = []
    for i, w in enumerate(words):
        if not isinstance(w, str) or not w.strip():
            raise ProbeError(f"{what} item {i} is {w!r}: every word must be a non-empty string")
        w = " ".join(w.split())
        if w not in out:
            out.append(w)
    if not out:
        raise ProbeError(f"{what} is empty: give at least one word")
    return tuple(out)


# -- templates ---------------------------------------------------------------------------------
def article(word: str) -> str:
    """``"a"`` or ``"an"`` by the word's first letter, as the authors' ``articlize`` (vowel -> an)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


@dataclass(frozen=True)
class Template:
    """One "SUBJECT VERB a/an OBJECT" template of a verb group."""

    verb_group: str
    verb: str
    object: str

    def sentence(self, subject: str, *, style: str = DEFAULT_STYLE, person: bool = False) -> str:
        """The template filled with ``subject`` (``person``: "SUBJECT person ...")."""
        head = f"{subject} person" if person else subject
        obj = f"{article(self.object)} {self.object}"
        if style == "authors":
            return f"{article(head).capitalize()} {head} {self.verb} {obj} ."
        return f"The {head} {self.verb} {obj}."

    def type_name(self, person: bool = False) -> str:
        """The authors' template type: the verb (``person_<verb>`` for adjective templates)."""
        return f"person_{self.verb}" if person else self.verb


def templates(
    verb_groups: Sequence[tuple[str, str]] = VERB_GROUPS,
    lists: Mapping[str, Sequence[str]] | None = None,
) -> tuple[Template, ...]:
    """All templates: for each (verb list, object list) group every verb x every object.

    The default gives the authors' 1,968 templates (see the module docstring).
    ``lists`` overrides bundled lists by name (e.g. a shorter ``objects``).
    """
    out: list[Template] = []
    for verbs_name, objects_name in verb_groups:
        verbs = _iv_words(lists[verbs_name] if lists and verbs_name in lists else word_list(verbs_name), verbs_name)
        objects = _iv_words(
            lists[objects_name] if lists and objects_name in lists else word_list(objects_name), objects_name
        )
        out.extend(Template(verbs_name, v, o) for v in verbs for o in objects)
    return tuple(out)


# -- pairs --------------------------------------------------------------------------------------
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
        self.premise_words = _iv_words(premise_words, "premise words")
        self.hypothesis_words = _iv_words(hypothesis_words, "hypothesis words")
        self.templates = tuple(templates() if template_list is None else template_list)
        if not self.templates:
            raise ProbeError("the template list is empty: give at least one template")
        self.premise_type = premise_type
        self.hypothesis_type = hypothesis_type
        self.person = person
        self.style = style
        self.pair_type = f"{premise_type} -> {hypothesis_type}"

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


# -- named probes ---------------------------------------------------------------------------------
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


# -- the authors' CSV layout -------------------------------------------------------------------------
_REQUIRED = ("premise", "hypothesis", "premise_filler_word", "hypothesis_filler_word")


class _LineFeed:
    """Lines of a binary file decoded one at a time, with the byte offset of the next line."""

    def __init__(self, handle: Any, offset: int, line: int) -> None:
        self.handle, self.offset, self.line = handle, offset, line

    def __iter__(self) -> _LineFeed:
        return self

    def __next__(self) -> str:
        raw = self.handle.readline()
        if not raw:
            raise StopIteration
        self.offset += len(raw)
        self.line += 1
        return raw.decode("utf-8-sig" if self.line == 1 else "utf-8")


class CsvPairs(PairSource):
    """A pairs file in the authors' layout (:data:`CSV_COLUMNS`), read lazily with the ``csv`` module.

    Opening it reads it once to check every row (field count, empty premise or
    hypothesis, with line numbers) and to remember the byte offset of every
    ``stride``-th row, so a chunk ``start .. stop`` is read without the rows
    before it, and nothing but those offsets stays in memory. Required
    columns: ``premise``, ``hypothesis``, ``premise_filler_word``,
    ``hypothesis_filler_word``; ``id``, ``pair type`` and ``template_type`` are
    optional (an id is computed as the authors' sha224 when absent).
    """

    def __init__(self, path: str | Path, *, stride: int = 4096) -> None:
        self.path = Path(path).expanduser()
        self.name = self.path.name
        self.stride = int(stride)
        if not self.path.is_file():
            raise FileNotFoundError(f"pairs file {str(self.path)!r} does not exist")
        offsets: list[int] = []
        lines: list[int] = []
        with open(self.path, "rb") as handle:
            feed = _LineFeed(handle, 0, 0)
            reader = csv.reader(feed, strict=True)
            try:
                header = next(reader)
            except StopIteration:
                raise PairFileError(
                    f"{self.path}: the file is empty; expected a header {','.join(CSV_COLUMNS)}"
                ) from None
            except (csv.Error, UnicodeDecodeError) as err:
                raise PairFileError(f"{self.path}, line 1: {err}") from None
            self.columns = [c.strip() for c in header]
            missing = [c for c in _REQUIRED if c not in self.columns]
            if missing:
                raise PairFileError(
                    f"{self.path}, line 1: missing column(s) {', '.join(missing)}; the header has "
                    f"{', '.join(self.columns) or 'nothing'} (expected the layout {','.join(CSV_COLUMNS)})"
                )
            self._index = {c: self.columns.index(c) for c in (*CSV_COLUMNS,) if c in self.columns}
            n = 0
            while True:
                start_offset, start_line = feed.offset, feed.line + 1
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except (csv.Error, UnicodeDecodeError) as err:
                    raise PairFileError(f"{self.path}, line {start_line}: {err}") from None
                if not row or all(not c.strip() for c in row):
                    raise PairFileError(f"{self.path}, line {start_line}: empty row; remove it")
                if len(row) != len(self.columns):
                    raise PairFileError(
                        f"{self.path}, line {start_line}: {len(row)} fields, the header has {len(self.columns)}; "
                        "quote fields that contain commas"
                    )
                for col in ("premise", "hypothesis"):
                    if not row[self._index[col]].strip():
                        raise PairFileError(f"{self.path}, line {start_line}: empty {col}")
                if n % self.stride == 0:
                    offsets.append(start_offset)
                    lines.append(start_line)
                n += 1
        self._n = n
        self._offsets = offsets
        self._lines = lines
        if n == 0:
            raise PairFileError(f"{self.path}: no pairs after the header")

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"CsvPairs({str(self.path)!r}, {self._n:,} pairs)"

    def iter_pairs(self, start: int = 0, stop: int | None = None) -> Iterator[NliPair]:
        start, stop = self._range(start, stop)
        if start == stop:
            return
        block = start // self.stride
        get = self._index.get
        with open(self.path, "rb") as handle:
            handle.seek(self._offsets[block])
            reader = csv.reader(_LineFeed(handle, self._offsets[block], self._lines[block] - 1), strict=True)
            i = block * self.stride
            for row in reader:
                if i >= stop:
                    break
                if i >= start:
                    premise, hypothesis = row[self._index["premise"]], row[self._index["hypothesis"]]
                    pair_type = row[get("pair type")] if "pair type" in self._index else ""
                    yield NliPair(
                        index=i,
                        id=row[get("id")] if "id" in self._index else pair_id(pair_type, premise, hypothesis),
                        pair_type=pair_type,
                        premise_word=row[self._index["premise_filler_word"]],
                        hypothesis_word=row[self._index["hypothesis_filler_word"]],
                        template_type=row[get("template_type")] if "template_type" in self._index else "",
                        premise=premise,
                        hypothesis=hypothesis,
                    )
                i += 1


def write_pairs_csv(pairs: Iterable[NliPair], path: str | Path | io.TextIOBase) -> int:
    """Write pairs in the authors' CSV layout (header :data:`CSV_COLUMNS`), streaming; returns the row count."""
    own = not hasattr(path, "write")
    handle = open(path, "w", newline="", encoding="utf-8") if own else path  # noqa: SIM115
    try:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        n = 0
        for pair in pairs:
            writer.writerow(pair.csv_row())
            n += 1
        return n
    finally:
        if own:
            handle.close()


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
