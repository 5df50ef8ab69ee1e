"""WordNet 3.0 senses, offline (Debian files) or online (nltk data).

Sense keys are WordNet 3.0 keys (``black%3:00:01::``), the keys that LMMS,
ARES and the SSSB data of Zhou, Kaneko & Bollegala (2022, section 3) use. A key
reads ``lemma%ss_type:lex_filenum:lex_id:head_word:head_id`` with ``ss_type``
1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite.

:func:`load_wordnet` chooses the data: Debian's ``wordnet-base`` +
``wordnet-sense-index`` files in ``/usr/share/wordnet`` (read with nltk's
reader and the 45-line ``lexnames`` file shipped in this package, since Debian
lacks it), else the data of ``nltk.download("wordnet")``. ``WordNet.source``
says which one is used. nltk is imported only when WordNet is loaded.
"""

from __future__ import annotations

import difflib
import io
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "DEBIAN_WORDNET_DIR",
    "Sense",
    "UnknownSenseError",
    "WordNet",
    "WordNetNotFoundError",
    "load_wordnet",
]

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
_DEBIAN_FILES = ("data.noun", "index.noun", "data.adj", "index.sense")
_KEY_RE = re.compile(r"^[^%\s]+%[1-5]:\d{2}:\d{2}:[^:\s]*:(\d{2})?$")
_SS_TYPE_POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "s"}
_POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective satellite", "r": "adverb"}
_INSTALL = (
    "install it offline with `apt-get install wordnet-base wordnet-sense-index` (Debian/Ubuntu), "
    "or online with `python -c \"import nltk; nltk.download('wordnet')\"`"
)


@dataclass(frozen=True)
class Sense:
    """One WordNet 3.0 sense: a lemma in one synset."""

    key: str  # WordNet 3.0 sense key, e.g. "black%3:00:01::"
    lemma: str  # the key's lemma, lowercase, words joined by "_" as in the key: "black", "ice_cream"
    pos: str  # "n", "v", "a", "s" (adjective satellite) or "r"
    lexname: str  # lexicographer file, e.g. "noun.person"
    gloss: str
    examples: tuple[str, ...]
    synonyms: tuple[str, ...]  # lemma names of the synset, "_" written as spaces
    synset: str  # "black.a.01"
    sense_number: int  # 1-based rank of this synset among the lemma's synsets of that part of speech

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready fields (lists for tuples)."""
        return {
            "key": self.key,
            "lemma": self.lemma,
            "pos": self.pos,
            "lexname": self.lexname,
            "gloss": self.gloss,
            "examples": list(self.examples),
            "synonyms": list(self.synonyms),
            "synset": self.synset,
            "sense_number": self.sense_number,
        }


class UnknownSenseError(KeyError):
    """An unknown lemma or sense key; ``suggestions`` holds close matches (keys or lemmas)."""

    def __init__(self, message: str, item: str = "", suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.item = item
        self.suggestions = tuple(suggestions)

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return self.message


class WordNetNotFoundError(FileNotFoundError):
    """Neither the Debian WordNet files nor nltk's WordNet data are installed."""


def _lexnames_text() -> str:
    return resources.files("embias_widgets.stimuli").joinpath("data/wordnet_lexnames.txt").read_text("utf-8")


def _normalise_lemma(text: str) -> str:
    return "_".join(text.strip().lower().split())


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _wordnet_iv(value: Any, what: str, example: str) -> str:
    """Validate one argument of the public lookups: a non-blank string (TypeError or ValueError naming it)."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string such as {example!r}, not {type(value).__name__} {_short_repr(value)}")
    if not value.strip():
        raise ValueError(f"{what} is empty: give a word such as {example!r}")
    return value


def _open_debian_reader(directory: Path) -> Any:
    """nltk's reader over Debian's files, with our ``lexnames`` and no OMW mapping."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    lexnames = _lexnames_text()

    class DebianWordNetReader(WordNetCorpusReader):
        def open(self, fileid: str) -> Any:
            if fileid == "lexnames":
                return io.StringIO(lexnames)
            return super().open(fileid)

        def map_wn(self, version: str = "wordnet") -> None:
            return None  # this IS WordNet 3.0: no mapping to nltk's own copy needed

    root = str(directory)
    if root not in nltk.data.path:  # nltk only opens corpora under nltk.data.path
        nltk.data.path.append(root)
    with warnings.catch_warnings():  # "multilingual functions are not available": expected, no OMW here
        warnings.simplefilter("ignore")
        return DebianWordNetReader(root, None)


def _open_nltk_reader() -> tuple[Any, str]:
    import nltk

    try:
        found = nltk.data.find("corpora/wordnet")
    except LookupError:
        try:
            found = nltk.data.find("corpora/wordnet.zip")
        except LookupError:
            raise WordNetNotFoundError("nltk's WordNet data is not installed: " + _INSTALL) from None
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    return wordnet, f"nltk_data WordNet {wordnet.get_version()} at {found}"


class WordNet:
    """WordNet 3.0 sense inventory. Use :func:`load_wordnet` to get one (cached)."""

    def __init__(self, reader: Any, source: str) -> None:
        self._reader = reader
        self.source = source
        self._lemma_names: list[str] | None = None
        self._by_initial: dict[str, list[str]] | None = None
        self._by_key: dict[str, Sense] = {}

    def __repr__(self) -> str:
        return f"WordNet({self.source})"

    # ----------------------------------------------------------------- lookups
    @staticmethod
    def is_key(text: str) -> bool:
        """Whether ``text`` is written as a sense key (``lemma%n:nn:nn:head:nn``); says nothing of existence."""
        return isinstance(text, str) and bool(_KEY_RE.match(text.strip()))

    def senses(self, lemma: str, pos: str | None = None) -> list[Sense]:
        """Every sense of ``lemma`` in WordNet order (of one part of speech when ``pos`` is given).

        ``pos="a"`` includes adjective satellites (``"s"``), as WordNet's index does.
        Raises :class:`UnknownSenseError` with close matches for an unknown lemma, or
        naming the parts of speech it has when it has none in ``pos``.
        """
        name = _normalise_lemma(_wordnet_iv(lemma, "lemma", "nurse"))
        if pos is not None and (not isinstance(pos, str) or pos not in _POS_NAMES):
            raise ValueError(f"pos must be one of {sorted(_POS_NAMES)} or None, not {pos!r}")
        found = self._all_senses(name)
        if not found:
            raise UnknownSenseError(*self._unknown_lemma(lemma, name))
        if pos is None:
            return found
        wanted = {"a", "s"} if pos == "a" else {pos}
        chosen = [s for s in found if s.pos in wanted]
        if not chosen:
            has = sorted({s.pos for s in found})
            names = ", ".join(f"{p} ({_POS_NAMES[p]})" for p in has)
            suggestions = tuple(s.key for s in found)
            raise UnknownSenseError(
                f"WordNet 3.0 has no {_POS_NAMES[pos]} sense of {lemma!r}; it has senses as {names}: "
                + ", ".join(suggestions[:8]),
                lemma,
                suggestions,
            )
        return chosen

    def sense(self, key: str) -> Sense:
        """The sense with WordNet 3.0 sense key ``key``.

        Raises :class:`UnknownSenseError` naming the key and offering the lemma's
        senses (other parts of speech, other sense numbers) or spelling matches.
        """
        text = key.strip() if isinstance(key, str) else key
        if not isinstance(text, str) or not self.is_key(text):
            raise UnknownSenseError(
                f"{_short_repr(key)} is not written as a WordNet sense key "
                "(lemma%ss_type:lex_filenum:lex_id:head:head_id, e.g. 'black%3:00:01::')",
                str(key),
                (),
            )
        text = text.lower()
        if text in self._by_key:
            return self._by_key[text]
        from nltk.corpus.reader.wordnet import WordNetError

        try:
            lemma = self._reader.lemma_from_key(text)
        except (WordNetError, ValueError, KeyError):
            lemma = None
        if lemma is None or lemma.key().lower() != text:
            raise UnknownSenseError(*self._unknown_key(text))
        return self._make_sense(lemma)

    def base_forms(self, word: str) -> list[str]:
        """WordNet lemmas that ``word`` is an inflection of (``"equations"`` -> ``["equation"]``), by morphy."""
        name = _normalise_lemma(_wordnet_iv(word, "word", "equations"))
        forms = [self._reader.morphy(name, p) for p in "nvar"]
        return sorted({f for f in forms if f and f != name and self._all_senses(f)})

    def lemma_names(self) -> list[str]:
        """Every lemma of WordNet (lowercase, "_" between words), sorted."""
        if self._lemma_names is None:
            self._lemma_names = sorted(set(self._reader.all_lemma_names()))
        return self._lemma_names

    # ---------------------------------------------------------------- internals
    def _all_senses(self, name: str) -> list[Sense]:
        out: list[Sense] = []
        for synset in self._reader.synsets(name):
            for lemma in synset.lemmas():
                if lemma.name().lower() == name:  # synsets() applies morphy: keep only the lemma itself
                    out.append(self._make_sense(lemma))
        return out

    def _make_sense(self, lemma: Any) -> Sense:
        key = lemma.key()
        if key in self._by_key:
            return self._by_key[key]
        synset = lemma.synset()
        pos = _SS_TYPE_POS[key.split("%", 1)[1][0]]
        name = key.split("%", 1)[0]
        index_pos = "a" if pos in ("a", "s") else pos
        ranked = [s.name() for s in self._reader.synsets(name, pos=index_pos)]
        number = ranked.index(synset.name()) + 1 if synset.name() in ranked else 0
        sense = Sense(
            key=key,
            lemma=name,
            pos=pos,
            lexname=synset.lexname(),
            gloss=synset.definition(),
            examples=tuple(synset.examples()),
            synonyms=tuple(n.replace("_", " ") for n in synset.lemma_names()),
            synset=synset.name(),
            sense_number=number,
        )
        self._by_key[key] = sense
        return sense

    def _close_lemmas(self, name: str, n: int = 5) -> list[str]:
        if self._by_initial is None:  # lemmas by first letter, built once (about 0.1 s)
            self._by_initial = {}
            for w in self._reader._lemma_pos_offset_map:
                self._by_initial.setdefault(w[:1], []).append(w)
        index = self._reader._lemma_pos_offset_map
        swapped = [name[:i] + name[i + 1] + name[i] + name[i + 2 :] for i in range(len(name) - 1)]
        first = [w for w in dict.fromkeys(swapped) if w != name and w in index]  # one transposed pair: "blakc"
        pool = [w for w in self._by_initial.get(name[:1], ()) if abs(len(w) - len(name)) <= 3]
        close = difflib.get_close_matches(name, pool, n=n, cutoff=0.75)
        return (first + [w for w in close if w not in first])[:n]

    def _unknown_lemma(self, lemma: str, name: str) -> tuple[str, str, tuple[str, ...]]:
        base = self.base_forms(name)
        close = [w for w in self._close_lemmas(name) if w not in base]
        suggestions = tuple(sorted(base) + close)
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else "; check the spelling"
        return f"WordNet 3.0 has no lemma {lemma!r}{hint}", lemma, suggestions

    def _unknown_key(self, key: str) -> tuple[str, str, tuple[str, ...]]:
        name = key.split("%", 1)[0]
        pos = _SS_TYPE_POS.get(key.split("%", 1)[1][:1], "")
        found = self._all_senses(name)
        if found:
            same_pos = [s.key for s in found if s.pos == pos]
            other = [s.key for s in found if s.pos != pos]
            suggestions = tuple(same_pos + other)
            return (
                f"WordNet 3.0 has no sense key {key!r} (a key from another WordNet version or a typo?); "
                f"{name!r} has these WordNet 3.0 keys: {', '.join(suggestions[:10])}"
                + (" ..." if len(suggestions) > 10 else ""),
                key,
                suggestions,
            )
        close = self._close_lemmas(name)
        suggestions = tuple(s.key for w in close for s in self._all_senses(w)[:3])
        hint = f"; close lemmas: {', '.join(close)} ({', '.join(suggestions[:6])})" if close else ""
        return f"WordNet 3.0 has no sense key {key!r}: no lemma {name!r}{hint}", key, suggestions


@lru_cache(maxsize=4)
def load_wordnet(source: str | Path = "auto") -> WordNet:
    """WordNet 3.0, loaded once per ``source``.

    ``source``: ``"auto"`` (Debian files in ``/usr/share/wordnet`` when present,
    else nltk's data), ``"debian"``, ``"nltk"``, or a directory holding the
    WordNet 3.0 database files (``data.noun``, ``index.sense``, ...).
    Raises :class:`WordNetNotFoundError` with both install routes when no data is found.
    """
    source = _wordnet_iv(str(source) if isinstance(source, Path) else source, "source", "auto")
    try:
        import nltk  # noqa: F401
    except ImportError:
        raise WordNetNotFoundError(
            "WordNet is read with nltk, which is not installed: `pip install nltk` (or embias-widgets[models]); "
            "then " + _INSTALL
        ) from None
    if source == "nltk":
        return WordNet(*_open_nltk_reader())
    directory = DEBIAN_WORDNET_DIR if source in ("auto", "debian") else Path(source).expanduser()
    if all((directory / f).is_file() for f in _DEBIAN_FILES):
        label = "Debian wordnet-base" if directory == DEBIAN_WORDNET_DIR else "WordNet 3.0 files"
        return WordNet(_open_debian_reader(directory), f"{label} at {directory}")
    if source == "auto":
        try:
            return WordNet(*_open_nltk_reader())
        except WordNetNotFoundError:
            pass
    missing = ", ".join(f for f in _DEBIAN_FILES if not (directory / f).is_file())
    raise WordNetNotFoundError(f"no WordNet 3.0 data found ({directory} lacks {missing}; no nltk data): " + _INSTALL)
