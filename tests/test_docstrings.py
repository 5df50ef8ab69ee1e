"""Every public name has a docstring of its own, and every public package is in the API reference.

Public names are those in each public package's ``__all__``: the packages users import from (README, docs).
A class must have its own docstring (not one inherited, not the signature a dataclass writes for itself);
constants (``__version__``, ``CHECKS``, ...) cannot carry one and are documented in their package's docstring.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_PACKAGES = [
    "embias_widgets",
    "embias_widgets.metrics",
    "embias_widgets.stimuli",
    "embias_widgets.models",
    "embias_widgets.models.static_vectors",
    "embias_widgets.models.sentence_encoders",
    "embias_widgets.models.language_models",
    "embias_widgets.models.sense_vectors",
    "embias_widgets.models.nli_classifiers",
    "embias_widgets.analysis",
    "embias_widgets.widgets",
    "embias_widgets.classroom",
]


def own_docstring(obj: object) -> str:
    """The docstring ``obj`` itself carries: '' for none, an inherited one, or a dataclass's generated
    signature (``Point(x: int, y: int)``)."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    doc = (doc or "").strip()
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and doc.startswith(f"{obj.__name__}("):
        return ""
    return doc


def undocumented(package: str) -> list[str]:
    module = importlib.import_module(package)
    names = getattr(module, "__all__", None)
    assert names, f"{package} has no __all__: say what is public"
    missing = []
    for name in names:
        obj = getattr(module, name)
        if (inspect.isclass(obj) or inspect.isroutine(obj)) and not own_docstring(obj):
            missing.append(name)
    return missing


@pytest.mark.parametrize("package", PUBLIC_PACKAGES)
def test_public_package_has_a_docstring(package):
    assert (importlib.import_module(package).__doc__ or "").strip()


@pytest.mark.parametrize("package", PUBLIC_PACKAGES)
def test_every_public_name_has_a_docstring(package):
    assert undocumented(package) == []


def test_every_public_package_is_in_the_api_reference():
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\.\. automodule:: ([\w.]+)", api, re.M))
    assert set(PUBLIC_PACKAGES) - documented == set()


def test_the_check_catches_what_it_should():
    @dataclasses.dataclass
    class Bare:
        x: int

    @dataclasses.dataclass
    class Documented:
        """A documented result."""

        x: int

    class Child(Documented):
        pass

    def nothing():
        pass

    assert own_docstring(Bare) == ""
    assert own_docstring(Child) == ""  # inherited does not count
    assert own_docstring(nothing) == ""
    assert own_docstring(Documented) == "A documented result."
