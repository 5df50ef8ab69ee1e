"""Everything the README (and the docs' Markdown pages) names exists: every ``embias_widgets...`` name imports,
every ``embias ...`` command parses with the real parser (and the entry point answers ``--help``), every bundled
test name resolves, every test file or test function named is there, every repository path exists."""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from embias_widgets.cli import build_parser
from embias_widgets.stimuli import is_sense_test, resolve_test

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOC_PAGES = sorted((ROOT / "docs").rglob("*.md")) if (ROOT / "docs").is_dir() else []
PAGES = [README, *(p for p in DOC_PAGES if "_build" not in p.parts)]

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
NAME = re.compile(r"\bembias_widgets(?:\.[A-Za-z_]\w*)+")
TEST_NAME = re.compile(r"^(?:sent-|sense-)?(?:weat\d+b?|angry_black_woman_stereotype(?:_b)?|heilman_double_bind_\w+)$")
TEST_REF = re.compile(r"\btests/[\w/]+\.py(?:::\w+)?")


def _fences(text: str) -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in FENCE.findall(text)]


def _inline(text: str) -> list[str]:
    return INLINE.findall(FENCE.sub("", text))


def _text(page: Path) -> str:
    return page.read_text(encoding="utf-8")


def resolve_name(dotted: str) -> object:
    """Import the longest module prefix of ``dotted`` and get the rest as attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def _names(page: Path) -> set[str]:
    text = _text(page)
    names = set(NAME.findall(text))
    for lang, body in _fences(text):
        if lang == "python":
            for node in ast.walk(ast.parse(body)):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("embias_widgets"):
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _commands(page: Path) -> list[tuple[str, bool]]:
    """Every ``embias ...`` command with whether it is written out in full: lines of bash fences (full) and
    inline code spans (often a fragment: ``embias pll --threads N``), split at ``&&``, ``|``, ``>`` and ``;``,
    comments dropped. ``COMMAND`` stands for every command."""
    text = _text(page)
    chunks = [(line, True) for lang, body in _fences(text) if lang in {"bash", "sh", "console"}
              for line in body.splitlines()]
    chunks += [(span, False) for span in _inline(text)]
    out = []
    for chunk, full in chunks:
        chunk = chunk.split(" #", 1)[0]
        for part in re.split(r"&&|\|\||[|;>]", chunk):
            part = part.strip()
            if part.startswith("embias "):
                names = _command_names() if "COMMAND" in part else ["COMMAND"]
                out.extend((part.replace("COMMAND", name), full) for name in names)
    return out


def _command_names() -> list[str]:
    return list(_subparsers(build_parser()))


def _subparsers(parser) -> dict:
    return next((a.choices for a in parser._actions if a.dest == "command" and a.choices), {})


def _parse(command: str) -> str | None:
    """None if the real parser accepts ``command``, else what argparse said."""
    argv = shlex.split(command)[1:]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(argv)
    except SystemExit as exit_:
        if exit_.code not in (0, None):  # --help and --version exit 0
            return err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else f"exit {exit_.code}"
    return None


def _check_fragment(command: str) -> str | None:
    """None if the command of ``command`` exists and knows every ``--option`` it names, else what is wrong."""
    argv = shlex.split(command)[1:]
    parser = build_parser()
    if argv and not argv[0].startswith("-"):
        sub = _subparsers(parser).get(argv[0])
        if sub is None:
            return f"no command {argv[0]!r}"
        parser, argv = sub, argv[1:]
    known = {o for a in parser._actions for o in a.option_strings}
    unknown = [a.split("=", 1)[0] for a in argv if a.startswith("--") and a.split("=", 1)[0] not in known]
    return f"unknown options {unknown}" if unknown else None


def _test_names(page: Path) -> set[str]:
    text = _text(page)
    found = {span for span in _inline(text) if TEST_NAME.match(span)}
    for command, _ in _commands(page):
        argv = shlex.split(command)
        if argv[1:2] == ["weat"]:
            found.update(a for a in argv[2:] if not a.startswith("-") and TEST_NAME.match(a))
    return found


def _resolves_as_test(name: str) -> bool:
    if is_sense_test(name):
        return True
    try:
        return resolve_test(name).name == name
    except (KeyError, ValueError, OSError):
        return False


# -- the README itself ---------------------------------------------------------------------------------------------

def test_readme_keeps_the_two_setup_commands_first():
    """.ci/run runs the second command (tests/test_lint.py checks that); both stay exactly as they are."""
    bash = [body.strip() for lang, body in _fences(_text(README)) if lang == "bash"]
    assert bash[:2] == [
        "pip install -c constraints.txt . && embias report --model glove-6b-50d --quick",
        'apt-get update && apt-get install -y chromium wordnet-base wordnet-sense-index && pip install -c '
        'constraints.txt -e ".[test]" && python -m pytest',
    ]


def test_readme_fits_on_a_screen_or_two():
    text = _text(README)
    assert len(text.splitlines()) <= 70, "README grew: move the detail to docs/"
    assert len(text) <= 6000


def test_readme_mentions_every_widget_and_the_docs():
    widgets = importlib.import_module("embias_widgets.widgets")
    text = _text(README)
    missing = [w for w in widgets.__all__ if w not in text and w not in {"WordSetEditor", "EffectSizeBars"}]
    assert missing == [], f"widgets without a line in the README's tour: {missing}"
    assert "docs/" in text and "CONTRIBUTING.md" in text and "LICENSE" in text


def test_readme_paths_exist():
    text = _text(README)
    spans = [s for s in _inline(text) if re.fullmatch(r"[\w./-]+\.(?:md|ipynb|py|png|txt|toml)|(?:docs|notebooks|"
                                                     r"tests|bench|binder|scripts)/[\w./-]*", s)]
    spans += re.findall(r"\]\(([\w./-]+)\)", text)  # images and relative links
    assert spans, "the README names no file: the pattern is stale"
    missing = [s for s in spans if not (ROOT / s).exists() and not (ROOT / "notebooks" / s).exists()]
    assert missing == []


# -- every page: README and docs/*.md --------------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_embias_widgets_name_imports(page):
    names = _names(page)
    broken = []
    for name in sorted(names):
        try:
            resolve_name(name)
        except (ImportError, AttributeError) as err:
            broken.append(f"{name}: {err}")
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_embias_command_parses(page):
    commands = _commands(page)
    broken = {c: why for c, full in commands if (why := _parse(c) if full else _check_fragment(c)) is not None}
    assert broken == {}


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_bundled_test_name_resolves(page):
    unknown = sorted(n for n in _test_names(page) if not _resolves_as_test(n))
    assert unknown == []


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_test_file_and_test_function_named_exists(page):
    missing = []
    for ref in set(TEST_REF.findall(_text(page))):
        path, _, func = ref.partition("::")
        if not (ROOT / path).is_file():
            missing.append(ref)
        elif func:
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            if func not in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}:
                missing.append(ref)
    assert missing == []


# -- the checks above can fail -------------------------------------------------------------------------------------

def test_the_checks_reject_what_does_not_exist():
    assert _parse("embias weat weat6 --no-such-option") is not None
    assert _parse("embias no-such-command") is not None
    assert _parse("embias data fetch") is None
    assert _check_fragment("embias pll --threads N") is None
    assert _check_fragment("embias pll --thread N") is not None
    assert _check_fragment("embias plll --threads N") is not None
    assert not _resolves_as_test("sent-heilman_double_bind_competent_one_sentence")  # the old README's promise
    assert _resolves_as_test("heilman_double_bind_competent_one_sentence")
    with pytest.raises(AttributeError):
        resolve_name("embias_widgets.analysis.user_probe")  # the old README suggested it lives there
    assert callable(resolve_name("embias_widgets.stimuli.nli_probes.user_probe"))
    page = "`embias weat weat6 --format json` and\n```bash\nembias pll --model M --pairs F  # c\n```\n"
    assert [c for c in _inline(page)] == ["embias weat weat6 --format json"]
    assert _fences(page) == [("bash", "embias pll --model M --pairs F  # c\n")]


def test_the_entry_point_answers_help():
    """The console script itself (not only the parser object) runs, for the top level and each command."""
    exe = Path(sys.executable).with_name("embias")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "embias_widgets.cli"]
    for sub in ([], ["weat"], ["pll"], ["nli"], ["data"]):
        proc = subprocess.run([*cmd, *sub, "--help"], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("usage: embias")
