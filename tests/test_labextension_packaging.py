"""The JupyterLab extension ships with the wheel: the names in pyproject.toml, labextension/package.json and
install.json agree, the build hook builds it, and (node-free) the installed copy is the one JupyterLab finds."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LABEXT = json.loads((ROOT / "labextension" / "package.json").read_text())
TARGET = "share/jupyter/labextensions/embias-widgets"


def test_the_wheel_maps_the_prebuilt_extension_into_jupyters_labextensions_folder() -> None:
    shared = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["shared-data"]
    assert shared["embias_widgets/labextension"] == TARGET
    assert shared["labextension/install.json"] == f"{TARGET}/install.json"
    # the folder JupyterLab looks in is named after the extension's package name
    assert TARGET.rsplit("/", 1)[1] == LABEXT["name"]
    output = (ROOT / "labextension" / LABEXT["jupyterlab"]["outputDir"]).resolve()
    assert output == ROOT / "embias_widgets" / "labextension"
    install = json.loads((ROOT / "labextension" / "install.json").read_text())
    assert install["packageName"] == PYPROJECT["project"]["name"] and install["packageManager"] == "python"


def test_the_build_hook_builds_the_extension_for_wheels_and_editable_installs() -> None:
    hook = PYPROJECT["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]
    assert "embias_widgets/labextension/package.json" in hook["ensured-targets"]
    scripts = json.loads((ROOT / "package.json").read_text())["scripts"]
    for kwargs in ("build-kwargs", "editable-build-kwargs"):
        command = scripts[hook[kwargs]["build_cmd"]]
        assert "npm run build" in command and "--prefix labextension run build" in command, command
    assert LABEXT["scripts"]["build"].startswith("jupyter builder build")
    assert any(r.startswith("jupyter-builder") for r in PYPROJECT["build-system"]["requires"])
    # built output is not source: ignored like embias_widgets/static
    assert "embias_widgets/labextension/" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_installed_extension_is_this_packages_build() -> None:
    """After `pip install -e .` or `pip install .`, JupyterLab's data path holds the built extension."""
    from jupyter_core.paths import jupyter_path

    found = [Path(p) / "embias-widgets" for p in jupyter_path("labextensions") if (Path(p) / "embias-widgets").is_dir()]
    assert found, f"no embias-widgets labextension under {jupyter_path('labextensions')}: run `pip install -e .`"
    built = json.loads((found[0] / "package.json").read_text())
    assert built["name"] == LABEXT["name"] and built["version"] == LABEXT["version"]
    entry = built["jupyterlab"]["_build"]["load"]
    assert (found[0] / entry).is_file(), entry
    assert json.loads((found[0] / "install.json").read_text())["packageName"] == "embias-widgets"
    local = ROOT / "embias_widgets" / "labextension" / "package.json"
    if local.is_file():  # a later local build: the installed copy (made at install time) must be the same build
        assert json.loads(local.read_text())["jupyterlab"]["_build"] == built["jupyterlab"]["_build"], (
            f"{found[0]} is an older build than {local.parent}: run `pip install -e .` again")


def _npm_installs(command: str) -> list[str]:
    """The ``npm ... install`` steps of a shell command line."""
    return [step.strip() for step in command.split("&&") if step.split()[:1] == ["npm"] and " install" in step]


def test_builds_never_rewrite_the_tracked_lock_files() -> None:
    """Issue 31, item 18: ``pip install .`` rewrote labextension/package-lock.json (the hook's ``npm install``
    saves a lock in the running npm's own layout). Every npm install of the build runs with ``--no-save``,
    which installs what the lock says and writes neither package.json nor the lock."""
    hook = PYPROJECT["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]
    scripts = json.loads((ROOT / "package.json").read_text())["scripts"]
    for kwargs in ("build-kwargs", "editable-build-kwargs"):
        npm = hook[kwargs]["npm"]
        assert "--no-save" in (npm if isinstance(npm, list) else npm.split()), npm  # the hook's own `npm install`
        installs = _npm_installs(scripts[hook[kwargs]["build_cmd"]])
        assert installs and all("--no-save" in step or " ci" in step for step in installs), installs


def test_no_save_leaves_a_lock_that_plain_npm_install_rewrites(tmp_path: Path) -> None:
    """What the flag does, with this machine's npm on a project without dependencies (no network): a lock
    lacking a field this npm writes is rewritten by a plain ``npm install`` and left alone with ``--no-save``."""
    import shutil
    import subprocess

    import pytest

    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the build hook cannot run here either")
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.0.0", "license": "MIT", "private": true}\n')
    lock = '{\n  "name": "x",\n  "version": "1.0.0",\n  "lockfileVersion": 3,\n  "requires": true,\n  "packages": {\n' \
           '    "": {\n      "name": "x",\n      "version": "1.0.0"\n    }\n  }\n}\n'  # no "license": stale
    for args, rewritten in (([npm, "--no-save", "install"], False), ([npm, "install"], True)):
        (tmp_path / "package-lock.json").write_text(lock)
        subprocess.run([*args, "--offline", "--no-audit", "--no-fund"], cwd=tmp_path, check=True,
                       capture_output=True, timeout=120)
        assert ((tmp_path / "package-lock.json").read_text() != lock) is rewritten, args


def test_the_readmes_outputs_are_ignored_by_git() -> None:
    """``embias report``'s default folder, the docs build and the front-end builds leave ``git status`` clean."""
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        import pytest

        pytest.skip("not a git checkout")
    paths = ["embias-report/report.html", "embias-report/sections/weat.json", "docs/_build/html/index.html",
             "embias_widgets/static/word_set_editor.js", "embias_widgets/labextension/package.json",
             "build/lib/x.py", "embias_widgets.egg-info/PKG-INFO", "test-results/a.png"]
    out = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT, capture_output=True, text=True)
    assert out.stdout.split() == paths, out.stdout
