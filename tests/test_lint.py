"""House rules that can fail: ruff is clean, the front-end unit tests pass,
and no front-end module writes HTML from strings."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_front_end_unit_tests():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to build and test the front end (pip install runs npm)")
    proc = subprocess.run([node, "--test", "js/tests/"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_front_end_never_parses_html():
    pattern = re.compile(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write")
    hits = [f"{p}:{i}" for p in (ROOT / "js").rglob("*.js")
            for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert hits == []


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"```bash\n(.+?)\n```", readme)
    skip = ("#", "set ", "cd ", "export ")
    ci_lines = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln and not ln.startswith(skip)]
    assert ci_lines == [commands[1]]
