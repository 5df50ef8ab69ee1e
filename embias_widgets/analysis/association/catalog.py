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
    out = []
    for name in names:
        spec = load(name)
        out.append([name, short_test_label(name, spec), _title(name, spec)])
    return out


SHORT_LABEL_CHARS = 40
"""The longest short label (about 280 px at the dropdown's 13 px font: it fits a 360 px screen)."""

_VALENCE = ("pleasant", "unpleasant")


def _words(category: str) -> str:
    """``MaleNames`` -> ``male names``, ``Career`` -> ``career`` (bundled categories are CamelCase)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", category).lower()


def _pair(first: str, second: str) -> str:
    """``male terms``, ``female terms`` -> ``male vs female terms`` (a shared last word said once)."""
    a, b = first.rsplit(" ", 1), second.rsplit(" ", 1)
    if len(a) == 2 and len(b) == 2 and a[1] == b[1]:
        return f"{a[0]} vs {b[0]} {a[1]}"
    return f"{first} vs {second}"


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
    mid-word: its id and what it measures, e.g. ``weat6 · career vs family``. What it measures is the
    attribute pair (Caliskan et al. 2017's attribute words), or the target pair when the attributes are
    pleasant vs unpleasant (shared by WEAT 1-5 and 10). A long id is shortened in the middle
    (:func:`_cut_middle`) and shown alone; the full title goes beside the dropdown."""
    if len(name) > SHORT_LABEL_CHARS:
        return _cut_middle(name, SHORT_LABEL_CHARS)
    attrs = (_words(spec.attr1.category), _words(spec.attr2.category))
    sets = (_words(spec.targ1.category), _words(spec.targ2.category)) if attrs == _VALENCE else attrs
    room = SHORT_LABEL_CHARS - len(name) - 3
    return f"{name} · {_cut_end(_pair(*sets), room)}" if room >= 14 else name


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
