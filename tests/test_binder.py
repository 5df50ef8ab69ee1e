"""Binder builds: the Dockerfile repo2docker generates, and a replay of its install steps.

No Docker here, so (1) ``jupyter-repo2docker --no-build`` renders the Dockerfile Binder would
build and we check its Python, apt packages and install steps, and (2) the repository's own
steps (the base environment's Jupyter packages, ``pip install -r binder/requirements.txt``,
``./binder/postBuild``) are replayed in a fresh virtual environment on a copy of the tracked
files (no ``node_modules``, no built front end), and the demo notebook runs there offline. The first two
layers (the Jupyter packages and requirements.txt) are kept between replays with the same inputs, as
Docker keeps them (tests/_binder_layers.py); postBuild and everything after it always run afresh.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
from _binder_layers import base_layers, layers_key
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"


def _r2d_conda_dir() -> Path:
    import repo2docker.buildpacks.conda as conda

    return Path(conda.__file__).parent


@pytest.fixture(scope="module")
def dockerfile() -> dict[str, str]:
    exe = shutil.which("jupyter-repo2docker") or str(Path(sys.executable).parent / "jupyter-repo2docker")
    proc = subprocess.run(
        [exe, "--no-build", "--user-id", "1000", "--user-name", "jovyan", str(ROOT)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return {"text": proc.stdout, "log": proc.stderr}


def _lock_file(text: str) -> str:
    """The conda lock file repo2docker copies to /tmp/env/environment.lock (its name unescaped)."""
    from escapism import unescape

    line = next(ln for ln in text.splitlines() if ln.startswith("COPY") and ln.endswith("/tmp/env/environment.lock"))
    escaped = line.split()[2].split("/", 1)[1].rsplit("-", 1)[0]  # drop repo2docker's hash suffix
    return Path(unescape(escaped, escape_char="-")).name


def _runtime_python() -> str:
    text = (BINDER / "runtime.txt").read_text().strip()
    assert re.fullmatch(r"python-3\.\d+", text), text
    return text.removeprefix("python-")


def _lock_versions(lock: Path, names: list[str]) -> dict[str, str]:
    out = {}
    for line in lock.read_text().splitlines():
        m = re.search(r"/(?:noarch|linux-64)/([A-Za-z0-9_.-]+?)-(\d[^-]*)-[^-/]+\.(?:conda|tar\.bz2)", line)
        if m and m.group(1) in names:
            out[m.group(1)] = m.group(2)
    return out


# ---------------------------------------------------------------------------------------------
# 1. The Dockerfile Binder builds
# ---------------------------------------------------------------------------------------------

def test_dockerfile_python_matches_runtime_and_requires_python(dockerfile):
    text, log = dockerfile["text"], dockerfile["log"]
    assert "Python version unspecified" not in log
    lock = _lock_file(text)
    runtime = _runtime_python()
    assert lock == f"environment.py-{runtime}-linux-64.lock"
    python = _lock_versions(_r2d_conda_dir() / lock, ["python", "nodejs"])
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert Version(python["python"]) in SpecifierSet(requires), (python, requires)
    assert Version(python["nodejs"]).major >= 18  # postBuild's npm ci / esbuild


def test_dockerfile_base_apt_and_install_steps_in_order(dockerfile):
    text = dockerfile["text"]
    lines = text.splitlines()
    # Ubuntu 24.04 (noble): wordnet-base and wordnet-sense-index are in its universe component.
    assert lines[1] == "FROM docker.io/library/buildpack-deps:24.04"
    apt = (BINDER / "apt.txt").read_text().split()
    assert set(apt) == {"wordnet-base", "wordnet-sense-index"}
    apt_line = next(i for i, ln in enumerate(lines) if "apt-get install --yes --no-install-recommends" in ln
                    and "wordnet" in ln)
    assert lines[apt_line].split("--no-install-recommends", 1)[1].replace("&& \\", "").split() == apt
    req_line = lines.index('RUN ${KERNEL_PYTHON_PREFIX}/bin/pip install --no-cache-dir -r "binder/requirements.txt"')
    copy_src = next(i for i, ln in enumerate(lines) if re.match(r"COPY --chown=\S+ src/ \$\{REPO_DIR\}/", ln))
    post = lines.index("RUN ./binder/postBuild")
    assert apt_line < req_line < copy_src < post
    assert lines[post - 1] == "RUN chmod +x binder/postBuild"
    # postBuild runs as the notebook user, in the repository root
    users = [ln for ln in lines[:post] if ln.startswith("USER ")]
    assert users[-1] == "USER ${NB_USER}"
    assert "WORKDIR ${REPO_DIR}" in lines[:post]


def test_requirements_take_the_cpu_torch_of_constraints():
    req = [ln.strip() for ln in (BINDER / "requirements.txt").read_text().splitlines()
           if ln.strip() and not ln.startswith("#")]
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in req
    pins = [ln for ln in (ROOT / "constraints.txt").read_text().splitlines() if ln.startswith("torch==")]
    assert pins and pins[0] in req
    post = (BINDER / "postBuild").read_text()
    assert os.access(BINDER / "postBuild", os.X_OK)
    assert "npm ci" in post and "npm run build" in post
    assert re.search(r'pip install .*-c constraints\.txt "\.\[models,notebook\]"', post)


# ---------------------------------------------------------------------------------------------
# 2. A replay of the build in a fresh virtual environment
# ---------------------------------------------------------------------------------------------

def _tracked_copy(dest: Path) -> None:
    """What Binder clones: the tracked files (plus new, not ignored ones, so a work tree is tested as is)."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def _run(cmd: str, cwd: Path, env: dict[str, str], timeout: int = 900) -> str:
    proc = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)
    assert proc.returncode == 0, f"{cmd}\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
    return proc.stdout


VENV_FACTS = """\
import sys

import embias_widgets
import torch
from jupyter_core.paths import jupyter_config_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyter_server.extension.manager import ExtensionPackage

print(embias_widgets.__file__, torch.version.cuda, sys.prefix)
enabled = ExtensionConfigManager(read_config_path=jupyter_config_path()).get_jpserver_extensions()
voila = [name for name, on in enabled.items() if name.startswith("voila") and on]
print(*voila[:1], "enabled-and-loads" if voila and ExtensionPackage(name=voila[0], enabled=True).validate() else "no")
"""
"""Run by the venv's Python: where the package comes from, torch's CUDA (None: the CPU build), the prefix, then
the Voila server extension enabled in the server's config and passing the validation the server runs."""


@pytest.mark.slow
@pytest.mark.notebook
def test_binder_build_replayed_in_fresh_venv_runs_demo(dockerfile, tmp_path):
    runtime = _runtime_python()
    assert f"{sys.version_info.major}.{sys.version_info.minor}" == runtime, "replay needs the runtime's Python"
    repo, venv, jupyter_home = tmp_path / "repo", tmp_path / "venv", tmp_path / "jupyter"
    repo.mkdir()
    _tracked_copy(repo)
    assert not (repo / "node_modules").exists() and not (repo / "embias_widgets" / "static").exists()
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "JUPYTER_PATH", "VIRTUAL_ENV"}}
    env.update(
        PATH=f"{venv / 'bin'}:{env['PATH']}", VIRTUAL_ENV=str(venv), KERNEL_PYTHON_PREFIX=str(venv),
        HOME=env.get("HOME", str(tmp_path)), HF_HUB_OFFLINE="1", PIP_RETRIES="1",  # unreachable extra index: fail fast
        BINDER_KEEP_CACHES="1",  # keep and reuse pip's and npm's caches (Binder itself keeps none)
        PIP_COMPILE="0",  # no .pyc precompilation (pip install --no-compile): the same files installed
        JUPYTER_DATA_DIR=str(jupyter_home / "data"), JUPYTER_CONFIG_DIR=str(jupyter_home / "config"),
        JUPYTER_RUNTIME_DIR=str(jupyter_home / "runtime"), JUPYTER_PLATFORM_DIRS="1",
    )
    # The base image's Jupyter packages, at the versions of repo2docker's lock for this Python.
    base = _lock_versions(_r2d_conda_dir() / _lock_file(dockerfile["text"]),
                          ["jupyterlab", "notebook", "ipywidgets", "jupyter_server", "ipykernel"])
    assert len(base) == 5, base
    pins = " ".join(f"{k}=={v}" for k, v in sorted(base.items()))
    # The Dockerfile's own steps, verbatim but for the cache flag.
    steps = [ln.removeprefix("RUN ").replace(" --no-cache-dir", "") for ln in dockerfile["text"].splitlines()
             if ln.startswith("RUN ") and ("binder/requirements.txt" in ln or "binder/postBuild" in ln)]
    assert steps == ['${KERNEL_PYTHON_PREFIX}/bin/pip install -r "binder/requirements.txt"',
                     "chmod +x binder/postBuild", "./binder/postBuild"]

    def layers_1_and_2() -> None:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        _run("python -m pip install -q " + pins, repo, env)
        _run(steps[0], repo, env)

    # Layers 1 and 2 depend only on their inputs: kept between replays as Docker keeps them (_binder_layers).
    base_layers(venv, layers_key(pins, (BINDER / "requirements.txt").read_bytes(), env), layers_1_and_2)
    for step in steps[1:]:
        _run(step, repo, env)
    _run("python -m pip check", repo, env)
    # Where the package and torch come from, and the Voila server extension (mybinder's ?urlpath=voila/render/...)
    # enabled in the config the server reads and loading as `jupyter server extension list` validates it (that
    # command validates every extension of the environment: 10 s more here).
    facts = _run("cd / && python - <<'PY'\n" + VENV_FACTS + "PY", repo, env).split()
    assert facts[0].startswith(str(venv)) and facts[1] == "None" and facts[2] == str(venv), facts
    assert facts[3].startswith("voila") and facts[4] == "enabled-and-loads", facts

    # The demo notebook, in the venv's kernel, offline; a last cell says which package it imported.
    nb = nbformat.read(repo / "notebooks" / "demo.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import embias_widgets, sys\nprint('IMPORTED', embias_widgets.__file__)"))
    nbformat.write(nb, repo / "notebooks" / "replay.ipynb")
    _run("jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 "
         "--output executed.ipynb notebooks/replay.ipynb", repo, env)
    done = nbformat.read(repo / "notebooks" / "executed.ipynb", as_version=4)
    outputs = [o for c in done.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    printed = "".join(o.get("text", "") for o in outputs)
    assert f"IMPORTED {venv}" in printed
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widgets) >= 4  # WEAT, SEAT, RIPA, likelihood
