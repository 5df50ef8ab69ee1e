"""The package as users get it: sdist and wheel build, pass ``twine check``, and the wheel installed in a
fresh virtual environment (no Node or npm on PATH, no system site-packages) runs the README's first job."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from test_binder import _run

ROOT = Path(__file__).resolve().parent.parent
FIRST_JOB = "embias report --model glove-6b-50d --quick"  # the README's first command


NODE = {"node", "nodejs", "npm", "npx", "corepack", "yarn", "pnpm"}


def _path_without_node(venv: Path, tools: Path) -> str:
    """The venv's bin, then ``tools``: links to every program on PATH but Node's (which may share /usr/bin)."""
    tools.mkdir()
    for folder in filter(None, os.environ["PATH"].split(os.pathsep)):
        for exe in Path(folder).glob("*") if Path(folder).is_dir() else ():
            if exe.name not in NODE and not (tools / exe.name).exists() and os.access(exe, os.X_OK):
                (tools / exe.name).symlink_to(exe)
    return os.pathsep.join([str(venv / "bin"), str(tools)])


@pytest.mark.slow
def test_wheel_installs_in_a_fresh_venv_and_runs_the_first_job(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="the test extra has build and twine: pip install -e '.[test]'")
    dist = tmp_path / "dist"
    # sdist and wheel each straight from the source tree (the wheel's hook builds the front end with npm here)
    locks = {p: p.read_bytes() for p in (ROOT / "package-lock.json", ROOT / "labextension" / "package-lock.json")}
    _run(f"{sys.executable} -m build --sdist --wheel --outdir {dist} .", ROOT, dict(os.environ), timeout=600)
    assert {p: p.read_bytes() for p in locks} == locks  # npm --no-save: the build leaves the tracked locks alone
    sdist, wheel = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdist) == 1 and len(wheel) == 1, list(dist.iterdir())
    _run(f"{sys.executable} -m twine check --strict {dist}/*", ROOT, dict(os.environ))

    names = zipfile.ZipFile(wheel[0]).namelist()
    for needed in ("embias_widgets/static/word_set_editor.js", "embias_widgets/data_registry.txt",
                   "embias_widgets/palette.json"):
        assert needed in names, needed
    labext = "embias_widgets-0.1.0.data/data/share/jupyter/labextensions/embias-widgets/"  # prebuilt JupyterLab ext
    assert {labext + "package.json", labext + "install.json"} <= set(names), [n for n in names if ".data/" in n]
    assert not [n for n in names if n.startswith(("tests/", "node_modules/", "notebooks/"))]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]  # the suite writes .pyc (conftest)
    with tarfile.open(sdist[0]) as tar:
        members = tar.getnames()
    assert any(m.endswith("/pyproject.toml") for m in members)
    assert not [m for m in members if "/node_modules/" in m or "/.venv/" in m]
    assert not [m for m in members if "__pycache__" in m or m.endswith(".pyc")]

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    # PIP_COMPILE=0 (pip install --no-compile): the same files installed, without byte-compiling every module of
    # scipy, pandas, pyarrow... (27 of the install's 43 s); the first job compiles only what it imports.
    env.update(PATH=_path_without_node(venv, tmp_path / "tools"), VIRTUAL_ENV=str(venv), HF_HUB_OFFLINE="1",
               PIP_RETRIES="1", PIP_COMPILE="0")
    assert shutil.which("node", path=env["PATH"]) is None and shutil.which("npm", path=env["PATH"]) is None
    _run(f"python -m pip install -q {wheel[0]}", tmp_path, env)  # pip's own index configuration, as a user's
    where = _run("python -c 'import embias_widgets; print(embias_widgets.__file__)'", tmp_path, env).strip()
    assert where.startswith(str(venv)), where

    out = _run(FIRST_JOB, tmp_path, env)
    html = tmp_path / "embias-report" / "report.html"
    assert f"report: {html.resolve()}" in out and html.is_file(), out
    sections = {(s["method"], s["model"]): s for s in json.loads((html.parent / "report.json").read_text())["sections"]}
    weat = sections["weat", "glove-6b-50d"]
    assert weat["status"] == "done", weat
    rows = {row[0]: row for row in weat["table"]["rows"]}
    column = weat["table"]["columns"].index("effect size d")
    # the same numbers as the development install gives (the report rounds its table to 4 decimals)
    from embias_widgets.analysis.association import run_suite

    here = {r["test"]: r for r in run_suite(["weat1", "weat6", "weat7", "weat8"], ["glove-6b-50d"]).records()}
    for test, record in here.items():
        assert rows[test][column] == pytest.approx(record["effect_size"], abs=5e-5), (test, rows[test])
