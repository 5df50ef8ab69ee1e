"""The Binder replay's kept layers (tests/_binder_layers.py): keyed by their inputs, relocated when copied,
built again when incomplete, old, or asked for."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from _binder_layers import MAX_AGE_S, base_layers, layers_key

ENV = {"HOME": "/nonexistent-home", "PIP_RETRIES": "1"}


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("EMBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("EMBIAS_BINDER_FRESH", raising=False)
    return tmp_path / "cache" / "binder-layers"


def _builder(venv: Path, calls: list[str]):
    def build() -> None:
        calls.append(str(venv))
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "jupyter").write_text(f"#!{venv}/bin/python\nimport sys\n")
        (venv / "bin" / "python").symlink_to("/usr/bin/python3")
        (venv / "pyvenv.cfg").write_text(f"home = /usr/bin\ncommand = /usr/bin/python3 -m venv {venv}\n")
        (venv / "lib").mkdir()
        (venv / "lib" / "torch.py").write_text(f"# installed into {venv}, a path only a script line would hold\n")
    return build


def test_key_follows_every_input():
    key = layers_key("jupyterlab==4.4.9", b"torch==2.13.0\n", ENV)
    assert key == layers_key("jupyterlab==4.4.9", b"torch==2.13.0\n", dict(ENV))
    assert len({key, layers_key("jupyterlab==4.4.10", b"torch==2.13.0\n", ENV),
                layers_key("jupyterlab==4.4.9", b"torch==2.13.1\n", ENV),
                layers_key("jupyterlab==4.4.9", b"torch==2.13.0\n", {**ENV, "PIP_INDEX_URL": "file:///x"})}) == 4


def test_constraints_file_named_by_the_environment_is_part_of_the_key(tmp_path):
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("torch<=2.14.1\n")
    env = {**ENV, "PIP_CONSTRAINT": str(constraints)}
    before = layers_key("a==1", b"", env)
    constraints.write_text("torch<=2.13.0\n")
    assert layers_key("a==1", b"", env) != before


def test_built_once_then_copied_and_pointed_at_the_new_venv(cache, tmp_path):
    calls: list[str] = []
    first, second = tmp_path / "one" / "venv", tmp_path / "two" / "venv"
    assert base_layers(first, "k" * 64, _builder(first, calls)) == "built"
    assert base_layers(second, "k" * 64, _builder(second, calls)) == "kept"
    assert calls == [str(first)]  # the second venv was not built
    assert (second / "bin" / "jupyter").read_text().startswith(f"#!{second}/bin/python\n")
    assert str(second) in (second / "pyvenv.cfg").read_text() and str(first) not in (second / "pyvenv.cfg").read_text()
    assert os.readlink(second / "bin" / "python") == "/usr/bin/python3"
    # only scripts and pyvenv.cfg are rewritten; the kept copy itself is untouched
    assert str(first) in (second / "lib" / "torch.py").read_text()
    assert str(first) in (cache / ("k" * 64) / "venv" / "bin" / "jupyter").read_text()


def test_another_key_replaces_the_kept_pair(cache, tmp_path):
    calls: list[str] = []
    a, b = tmp_path / "a", tmp_path / "b"
    base_layers(a, "a" * 64, _builder(a, calls))
    base_layers(b, "b" * 64, _builder(b, calls))
    assert [p.name for p in cache.iterdir()] == ["b" * 64]


@pytest.mark.parametrize("why", ["incomplete", "old", "asked"])
def test_built_again_when_incomplete_old_or_asked(cache, tmp_path, monkeypatch, why):
    calls: list[str] = []
    first, second = tmp_path / "one", tmp_path / "two"
    base_layers(first, "k" * 64, _builder(first, calls))
    marker = cache / ("k" * 64) / "complete"
    if why == "incomplete":
        marker.unlink()
    elif why == "old":
        past = time.time() - MAX_AGE_S - 60
        os.utime(marker, (past, past))
    else:
        monkeypatch.setenv("EMBIAS_BINDER_FRESH", "1")
    assert base_layers(second, "k" * 64, _builder(second, calls)) == "built"
    assert calls == [str(first), str(second)]
    assert (cache / ("k" * 64) / "complete").read_text() == str(second)
