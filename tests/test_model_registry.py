"""The package's layering: the registry resolves names lazily from one table (no model module
registers itself), and stimuli modules import one way only (word tests <- sentence tests <- catalog)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from embias_widgets.models import registry

PACKAGE = Path(__file__).resolve().parents[1] / "embias_widgets"


def _imported_modules(path: Path) -> set[str]:
    """Relative and absolute module names a file imports (any depth, also inside functions)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
            names.update("." * node.level + alias.name for alias in node.names if node.module is None)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("name", sorted(registry.BUILTIN_MODELS))
def test_every_builtin_entry_resolves_to_a_function(name: str) -> None:
    loader = registry.resolve_loader(name)
    assert callable(loader)
    assert registry.registered_kind(name) == registry.BUILTIN_MODELS[name].kind


def test_no_model_module_registers_itself() -> None:
    """Names live in the registry's table; a model module never imports ``register``."""
    offenders = []
    for path in (PACKAGE / "models").rglob("*.py"):
        if path.parent.name == "models" and path.name in {"registry.py", "__init__.py"}:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(alias.name == "register" for alias in node.names):
                offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []


def test_models_are_grouped_by_kind() -> None:
    """Model kinds live in subpackages; flat are only what every kind shares: the layer's errors, the registry,
    ``names`` (what a name means before anything loads), ``runtime`` (a model's input length, its device,
    torch's threads: one place for each fact) and ``json_files`` (a model folder's settings files, read with the
    file, line and column of what is wrong named)."""
    flat = sorted(p.name for p in (PACKAGE / "models").glob("*.py"))
    assert flat == ["__init__.py", "errors.py", "json_files.py", "names.py", "registry.py", "runtime.py"]


def test_word_tests_do_not_import_sentence_tests() -> None:
    imported = _imported_modules(PACKAGE / "stimuli" / "association_tests.py")
    assert not any("sentence_tests" in name or "catalog" in name for name in imported)
    assert importlib.import_module("embias_widgets.stimuli").resolve_test("sent-weat1").name == "sent-weat1"


def test_a_user_registered_loader_is_listed_and_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_USER_MODELS", {})
    registry.register("my-vectors", "two words", kind="static")(lambda **_: "loaded")
    assert registry.available_models(kind="static")["my-vectors"] == "two words"
    assert registry.load_model("my-vectors") == "loaded"
