"""The package's shape, read from its source (AST, function-level imports included).

- no import cycle between modules;
- no lower layer imports a higher one (metrics < stimuli < models < analysis < widgets, cli, classroom);
- no widget imports the metric core (widgets show what analysis results hold);
- no Python module or JavaScript module over 400 lines, no Python function over 80 lines of code.

See ``../shared/docs/architecture.md`` for the layers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "embias_widgets"
JS = ROOT / "js"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80

# Rank of each top-level part of the package; a module may import parts of its own rank or lower.
# The package root (``EmbiasWarning``, ``__version__``), the palette (colours shared by charts and the
# front end) and the number formatter (``formatting``, shared the same way) are below every layer.
# ``data`` fetches the published data sets (files, no models): the stimuli's rank.
LAYER_RANK = {"": 0, "palette": 0, "formatting": 0, "metrics": 1, "stimuli": 2, "data": 2, "models": 3,
              "analysis": 4, "widgets": 5, "classroom": 5, "cli": 5}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of ``from <level dots><target>`` written in ``module``."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def _is_main_guard(node: ast.AST) -> bool:
    """``if __name__ == "__main__":``: its body runs in a separate module object (``python -m``), never on import."""
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If) and isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
        and test.left.id == "__name__" and any(
            isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _walk_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement outside ``if __name__ == "__main__":`` blocks."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        if _is_main_guard(node):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def dynamic_imports_of(name: str) -> set[str]:
    """Package modules ``name`` looks up by a literal string at run time (``import_module("embias_widgets...")``)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("embias_widgets"):
                found.add(arg.value)
    return found


# Upward look-ups made on purpose, each with its reason; any other one fails test_no_layer_imports_a_higher_one.
DISPLAY_HOOKS = {
    ("embias_widgets.analysis.report.result", "embias_widgets.widgets.report_viewer"):
        "a ReportResult shows itself as the viewer widget in a notebook, looked up at display time only",
}


def imports_of(name: str) -> set[str]:
    """Package modules that ``name`` imports anywhere in its file (module or function level)."""
    path = MODULES[name]
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _walk_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(name, is_package, node.level, node.module)
            # ``from pkg import sub`` imports the submodule when there is one, else a name of pkg.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("embias_widgets") and target != name:
                found.add(target)
    return found


GRAPH = {name: imports_of(name) for name in MODULES}


def _layer(name: str) -> str:
    parts = name.split(".")
    if len(parts) == 1:
        return ""
    top = parts[1]
    return "cli" if top.startswith("cli") else top


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in GRAPH[node]:
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in GRAPH:
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_function_level_imports() -> None:
    """The reader is not blind to imports inside functions (the reason cycles hid before)."""
    source = "def f():\n    from ..metrics import weat\n"
    tree = ast.parse(source)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom))
    assert _resolve("embias_widgets.analysis.x", False, node.level, node.module) == "embias_widgets.metrics"
    assert "embias_widgets.metrics" in GRAPH["embias_widgets.analysis"] or any(
        target.startswith("embias_widgets.metrics") for name in GRAPH if name.startswith("embias_widgets.analysis.")
        for target in GRAPH[name]
    )


def test_no_import_cycle() -> None:
    assert _cycles() == []


def test_no_layer_imports_a_higher_one() -> None:
    edges = {(name, target) for name, targets in GRAPH.items() for target in targets}
    edges |= {(name, target) for name in MODULES for target in dynamic_imports_of(name)}
    offenders = [
        f"{name} ({_layer(name) or 'root'}) imports {target} ({_layer(target)})"
        for name, target in sorted(edges)
        if LAYER_RANK[_layer(target)] > LAYER_RANK[_layer(name)] and (name, target) not in DISPLAY_HOOKS
    ]
    assert offenders == []


def test_display_hooks_are_real_and_lazy() -> None:
    """Each allowed upward look-up exists, is no static import, and its target does not import back."""
    for (name, target), reason in DISPLAY_HOOKS.items():
        assert reason and target in dynamic_imports_of(name)
        assert target not in GRAPH[name]
        assert not any(t.startswith(name.rsplit(".", 1)[0]) for t in GRAPH[target])


def test_widgets_do_not_import_the_metric_core() -> None:
    offenders = [
        f"{name} imports {target}"
        for name, targets in GRAPH.items()
        if _layer(name) == "widgets"
        for target in sorted(targets)
        if _layer(target) == "metrics"
    ]
    assert offenders == []


def _source_files() -> Iterator[Path]:
    yield from sorted(PACKAGE.rglob("*.py"))
    yield from sorted(p for p in JS.rglob("*.js") if "node_modules" not in p.parts)


@pytest.mark.parametrize("path", list(_source_files()), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_fits_on_a_few_screens(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it along its seams"


def _code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function without its docstring."""
    lines = node.end_lineno - node.lineno + 1
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(
        body[0].value.value, str
    ):
        lines -= body[0].end_lineno - body[0].lineno + 1
    return lines


def test_no_function_over_80_lines() -> None:
    long = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _code_lines(node) > MAX_FUNCTION_LINES:
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({_code_lines(node)} lines)")
    assert long == []


def test_a_main_guard_is_not_an_import_edge() -> None:
    """``python -m pkg.mod`` runs the guarded block in ``__main__``, a module object of its own: no cycle."""
    tree = ast.parse("import os\nif __name__ == '__main__':\n    from .cli import main\n")
    assert [type(n).__name__ for n in _walk_imports(tree)] == ["Import"]
