"""What an association study can be built from: the bundled tests, the models, and which study runs a test.

The explorer's pickers and the suite ask here, so a test name means the same study everywhere:
:func:`association_test_for` builds a :class:`SentenceAssociationTest` for a sentence test and an
:class:`AssociationTest` otherwise.
"""

from __future__ import annotations

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
    """``[[name, label]]`` of the bundled word tests (or sentence tests) for a picker; every label is a title:
    the published name and the test's description, or else its sets (``X vs Y, A vs B``)."""
    names = sentence_test_names() if sentence else bundled_test_names()
    load = load_sentence_test if sentence else load_bundled_test
    return [[name, _title(name, load(name))] for name in names]


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
