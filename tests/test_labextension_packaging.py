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
