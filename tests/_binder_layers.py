"""The Binder replay's first two image layers, kept as Docker keeps them (tests/test_binder.py).

repo2docker's image is built in layers: (1) the base environment's Jupyter packages, (2) ``pip install -r
binder/requirements.txt`` (CPU torch), then the repository's files and ``postBuild``. Docker, and so Binder,
rebuilds a layer only when what it is built from changed. The replay does the same for layers 1 and 2: after
building them in a fresh venv it keeps a copy of that venv, named by the SHA-256 of what determines it (this
Python, the pinned base packages, ``requirements.txt``, pip's configuration), and a later replay with the same
inputs starts from a copy of it. The steps that depend on the repository (``postBuild``: the front end, the
package and its dependencies, the checks) always run afresh.

The unpinned dependencies of the base packages can move on the index, which Docker's cache would not see
either; so a kept layer older than :data:`MAX_AGE_S` is built again, and ``EMBIAS_BINDER_FRESH=1`` builds
them anyway. A copy is only kept once both steps succeeded, under a temporary name renamed at the end.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from embias_widgets.stimuli.pairs.download import default_cache_dir

#: Built again after a week, so the base packages' unpinned dependencies follow the index.
MAX_AGE_S = 7 * 24 * 3600
LAYOUT = "binder-layers-v1"  # change when what a kept layer holds changes


def _pip_config_text(env: Mapping[str, str]) -> bytes:
    """The pip configuration files and ``PIP_*`` variables a ``pip install`` with ``env`` reads."""
    home = Path(env.get("HOME") or Path.home())
    files = [Path("/etc/pip.conf"), Path("/etc/xdg/pip/pip.conf"), home / ".pip" / "pip.conf",
             home / ".config" / "pip" / "pip.conf"]
    if env.get("PIP_CONFIG_FILE"):
        files.append(Path(env["PIP_CONFIG_FILE"]))
    out = [f"{p}\n".encode() + p.read_bytes() for p in files if p.is_file()]
    out += [f"{k}={v}\n".encode() for k, v in sorted(env.items()) if k.startswith("PIP_")]
    # and the constraints files they name (``constraint = /etc/xdg/pip/constraints.txt``, PIP_CONSTRAINT)
    named = re.findall(rb"^\s*constraints?\s*=\s*(.+?)\s*$", b"\n".join(out), flags=re.MULTILINE)
    named += [v.encode() for k, v in env.items() if k == "PIP_CONSTRAINT"]
    for path in sorted({Path(os.fsdecode(p)) for name in named for p in name.split()}):
        out.append(f"{path}\n".encode() + (path.read_bytes() if path.is_file() else b"(absent)"))
    return b"\0".join(out)


def layers_key(base_pins: str, requirements: bytes, env: Mapping[str, str]) -> str:
    """SHA-256 of what layers 1 and 2 are built from (``env``: the environment their ``pip install`` runs in)."""
    h = hashlib.sha256()
    for part in (LAYOUT.encode(), sys.version.encode(), os.path.realpath(sys.executable).encode(), base_pins.encode(),
                 requirements, _pip_config_text(env)):
        h.update(len(part).to_bytes(8, "little") + part)
    return h.hexdigest()


def _relocate(venv: Path, old: str) -> None:
    """Point a copied venv's scripts (their ``#!`` lines, the activate scripts) and pyvenv.cfg at ``venv``."""
    for f in [venv / "pyvenv.cfg", *(venv / "bin").iterdir()]:
        if f.is_file() and not f.is_symlink():
            data = f.read_bytes()
            if old.encode() in data:
                f.write_bytes(data.replace(old.encode(), str(venv).encode()))


def base_layers(venv: Path, key: str, build: Callable[[], None]) -> str:
    """Make ``venv`` (absent yet) hold layers 1 and 2: a copy of the kept ones for ``key``, else ``build()``
    them (creating the venv) and keep a copy. Returns "kept" or "built"."""
    root = default_cache_dir() / "binder-layers"
    kept = root / key
    fresh = os.environ.get("EMBIAS_BINDER_FRESH") == "1"
    if not fresh and (kept / "complete").is_file() and time.time() - (kept / "complete").stat().st_mtime < MAX_AGE_S:
        shutil.copytree(kept / "venv", venv, symlinks=True)
        _relocate(venv, (kept / "complete").read_text())
        return "kept"
    build()
    try:
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".{key}.{os.getpid()}"
        shutil.copytree(venv, tmp / "venv", symlinks=True)
        (tmp / "complete").write_text(str(venv))
        for old in root.iterdir():  # one kept layer pair at a time (about 1 GB)
            if old.name != tmp.name:
                shutil.rmtree(old, ignore_errors=True)
        os.replace(tmp, kept)
    except OSError:  # an unwritable or full cache only loses the copy
        pass
    return "built"
