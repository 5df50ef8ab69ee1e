"""What an association study can be built from: the bundled tests, the models, and which study runs a test.

The explorer's pickers and the suite ask here, so a test name means the same study everywhere:
:func:`association_test_for` builds a :class:`SentenceAssociationTest` for a sentence test and an
:class:`AssociationTest` otherwise.
"""

from __future__ import annotations

import re
from typing import Any

from ...models import available_models, load_model
from ...models.errors import ModelNotFoundError
from ...stimuli import SET_KEYS, AssociationTestSpec, bundled_test_names, load_bundled_test
from ...stimuli.sentence_tests import SentenceTestSpec, is_sentence_test, load_sentence_test, sentence_test_names
from .sentence import SentenceAssociationTest
from .study import AssociationTest
from .validation import AssociationInputError

__all__ = [
    "ASSOCIATION_MODEL_KINDS",
    "SET_KEYS",
    "USER_ERRORS",
    "association_test_for",
    "display_test_name",
    "load_association_model",
    "model_choices",
    "short_test_label",
    "test_choices",
    "test_names",
]

ASSOCIATION_MODEL_KINDS = ("static", "sentence")
USER_ERRORS = (AssociationInputError, ModelNotFoundError, KeyError, FileNotFoundError)
"""Failures caused by what was typed or picked: shown as they are (others are internal errors)."""


def display_test_name(name: str) -> str:
    """The published name of a bundled test: ``weat6`` -> ``WEAT 6`` (Caliskan et al.'s numbering,
    as in May et al. 2019); sentence tests keep May et al.'s ``sent-weat6``; other names are kept."""
    if name.startswith("weat") and name[4:5].isdigit():
        return f"WEAT {name[4:]}"
    return name


def test_names(sentence: bool) -> list[str]:
    """The bundled word tests (``weat1`` ...) or sentence tests (``sent-weat1`` ...)."""
    return sentence_test_names() if sentence else bundled_test_names()


def test_choices(sentence: bool) -> list[list[str]]:
    """``[[name, label, title]]`` of the bundled word tests (or sentence tests) for a picker.

    The label is short enough for a dropdown on a phone-width screen (:func:`short_test_label`,
    e.g. ``weat6 · career vs family``); the title is the full one (the published name and the test's
    description, or else its sets ``X vs Y, A vs B``), shown as wrapping text beside the dropdown."""
    names = sentence_test_names() if sentence else bundled_test_names()
    load = load_sentence_test if sentence else load_bundled_test
    specs = {name: load(name) for name in names}
    out = [[name, short_test_label(name, spec), _title(name, spec)] for name, spec in specs.items()]
    phrases: dict[str, list[list[str]]] = {}
    for choice in out:
        phrases.setdefault(choice[1].partition(" · ")[2], []).append(choice)
    for same in phrases.values():  # tests whose sets are named alike (WEAT 3, 4, 5) told apart by their sizes
        if len(same) > 1 and len({_sizes(specs[c[0]]) for c in same}) == len(same):
            for choice in same:
                choice[1] = _sized_label(choice[0], specs[choice[0]], choice[1])
    return out


SHORT_LABEL_CHARS = 40
"""The longest short label (about 280 px at the dropdown's 13 px font: it fits a 360 px screen)."""

_VALENCE = ("pleasant", "unpleasant")


def _words(category: str) -> str:
    """``MaleNames`` -> ``male names``, ``Career`` -> ``career`` (bundled categories are CamelCase)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", category).lower()


def _pair(first: str, second: str, *, initials: bool = False, tail: bool = True) -> str:
    """``male terms``, ``female terms`` -> ``male/female terms`` (a shared last word said once; without it
    when ``tail`` is off); ``initials``: two-word heads as initials (``european american`` -> ``EA``)."""
    a, b = first.rsplit(" ", 1), second.rsplit(" ", 1)
    if len(a) == 2 and len(b) == 2 and a[1] == b[1]:
        heads, end = [a[0], b[0]], f" {a[1]}" if tail else ""
    else:
        heads, end = [first, second], ""
    if initials and all(" " in h for h in heads):
        heads = ["".join(w[0].upper() for w in h.split()) for h in heads]
    return f"{heads[0]}/{heads[1]}{end}"


def _phrases(spec: Any) -> list[str]:
    """What a short label may say, most complete first: the targets and the attributes (``math/arts ×
    male/female terms``; pleasant vs unpleasant as ``(un)pleasant``), then shorter spellings."""
    targets = (_words(spec.targ1.category), _words(spec.targ2.category))
    attrs = (_words(spec.attr1.category), _words(spec.attr2.category))
    if attrs == _VALENCE:
        return [f"{_pair(*targets)} × (un)pleasant", _pair(*targets),
                f"{_pair(*targets, initials=True)} × (un)pleasant", _pair(*targets, initials=True)]
    a, a_short = _pair(*attrs), _pair(*attrs, tail=False)
    return [f"{_pair(*targets)} × {a}", f"{_pair(*targets, initials=True)} × {a}",
            f"{_pair(*targets, tail=False)} × {a}", f"{_pair(*targets, tail=False)} × {a_short}",
            f"{_pair(*targets, initials=True, tail=False)} × {a_short}", a]


def _sizes(spec: Any) -> tuple[int, int]:
    """Words in the first target set and in the first attribute set (a word or a sentence test)."""
    def size(s: Any) -> int:
        return len(getattr(s, "examples", None) or getattr(s, "words", ()))
    return size(spec.targ1), size(spec.attr1)


def _sized_label(name: str, spec: Any, label: str) -> str:
    """``weat4 · EA/AA names, 16 × 25 words``: the targets and the sets' sizes (target words per set ×
    attribute words per set), for tests whose sets have the same names; ``label`` when that does not fit."""
    targets = (_words(spec.targ1.category), _words(spec.targ2.category))
    n_t, n_a = _sizes(spec)
    for pair in (_pair(*targets), _pair(*targets, initials=True)):
        sized = f"{name} · {pair}, {n_t} × {n_a} words"
        if len(sized) <= SHORT_LABEL_CHARS:
            return sized
    return label


def _cut_end(text: str, limit: int) -> str:
    """``text`` cut after its last whole word that leaves it at most ``limit`` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    return head[: head.rfind(" ")].rstrip() + "…" if " " in head else head + "…"


def _cut_middle(name: str, limit: int) -> str:
    """A long id with its middle left out at underscores (``sent-heilman…bind_likable_one_word``): both
    ends stay, so ids that differ at either end stay apart."""
    if len(name) <= limit:
        return name
    keep_end = name[-(limit - 13):]
    end = keep_end[keep_end.find("_") + 1:] if "_" in keep_end[:8] else keep_end
    return f"{name[:12]}…{end}"


def short_test_label(name: str, spec: Any) -> str:
    """A dropdown label for a bundled test, at most :data:`SHORT_LABEL_CHARS` characters and never cut
    mid-word: its id and both pairs of sets, targets × attributes, e.g. ``weat7 · math/arts × male/female
    terms`` (the attributes alone left WEAT 7 and 8 alike, the targets alone WEAT 3, 4 and 5), in
    the first of :func:`_phrases`' spellings that fits; :func:`test_choices` adds the sets' sizes where tests
    name their sets alike. A long id is shortened in the middle (:func:`_cut_middle`) and shown alone; the
    full title goes beside the dropdown."""
    if len(name) > SHORT_LABEL_CHARS:
        return _cut_middle(name, SHORT_LABEL_CHARS)
    room = SHORT_LABEL_CHARS - len(name) - 3
    if room < 14:
        return name
    phrases = _phrases(spec)
    fitting = next((p for p in phrases if len(p) <= room), None)
    return f"{name} · {fitting if fitting is not None else _cut_end(phrases[-1], room)}"


def _title(name: str, spec: Any) -> str:
    about = spec.description or (f"{spec.targ1.category} vs {spec.targ2.category}, "
                                 f"{spec.attr1.category} vs {spec.attr2.category}")
    return f"{display_test_name(name)}: {about}"


def model_choices(current: str) -> list[list[str]]:
    """``[[name, name]]`` of the registered word and sentence models (and the current one)."""
    names = [n for kind in ASSOCIATION_MODEL_KINDS for n in available_models(kind)]
    if current and current not in names:
        names.insert(0, current)
    return [[n, n] for n in names]


def load_association_model(name: str) -> Any:
    """A registered word or sentence model (or a path), loaded (see :func:`embias_widgets.models.load_model`)."""
    return load_model(name)


def association_test_for(test: Any, **options: Any) -> AssociationTest:
    """The study that runs ``test``: SEAT (:class:`SentenceAssociationTest`) for a bundled sentence test
    name or a :class:`SentenceTestSpec`, else WEAT (:class:`AssociationTest`) for a name, path or spec."""
    if isinstance(test, SentenceTestSpec) or is_sentence_test(test):
        return SentenceAssociationTest(test, **options)
    if isinstance(test, str | AssociationTestSpec):
        return AssociationTest(test, **options)
    raise TypeError(f"cannot run {type(test).__name__} as a test: give a test name, path or spec")
