"""Caches keyed by content, not by a name or a file's stat (issue 31, item 3): a file edited in place, same size
and with its mtime set back, is hashed again (its ctime and inode changed), and the WEAT explorer loads a model
file again when it changed while another model was shown."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from embias_widgets.models.fingerprints import ContentKeyedModels, model_fingerprint
from embias_widgets.models.static_vectors.files import write_word2vec_text
from embias_widgets.stimuli import fingerprints, load_bundled_test
from embias_widgets.stimuli.fingerprints import file_digest


def _same_size_edit(path: Path, old: bytes, new: bytes) -> None:
    """Rewrite ``path`` with ``new`` (as long as ``old``) and put its atime and mtime back as they were."""
    assert len(old) == len(new) and path.read_bytes() == old
    st = path.stat()
    path.write_bytes(new)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)


def test_a_same_size_edit_with_the_mtime_restored_is_hashed_again(tmp_path, monkeypatch):
    monkeypatch.setattr(fingerprints, "RACY_NS", 0)  # the stat key alone, not the "changed just now" rule
    hashed = []
    real = hashlib.sha256
    monkeypatch.setattr(fingerprints.hashlib, "sha256", lambda *a: hashed.append(1) or real(*a))
    f = tmp_path / "vectors.txt"
    f.write_bytes(b"abc" * 1000)
    os.utime(f, ns=(1_000_000_000, 1_000_000_000))  # an old file
    assert file_digest(f) == real(b"abc" * 1000).hexdigest()
    assert file_digest(f) == real(b"abc" * 1000).hexdigest() and len(hashed) == 1  # once per process per file
    _same_size_edit(f, b"abc" * 1000, b"abd" * 1000)
    assert file_digest(f) == real(b"abd" * 1000).hexdigest() and len(hashed) == 2


def test_a_file_changed_just_before_hashing_is_not_trusted_next_time(tmp_path, monkeypatch):
    hashed = []
    real = hashlib.sha256
    monkeypatch.setattr(fingerprints.hashlib, "sha256", lambda *a: hashed.append(1) or real(*a))
    f = tmp_path / "fresh.txt"
    f.write_bytes(b"x" * 10)
    file_digest(f)
    file_digest(f)  # written within RACY_NS of the first hash: a same-tick rewrite could share its timestamps
    assert len(hashed) == 2
    monkeypatch.setattr(fingerprints, "RACY_NS", 0)
    file_digest(f)
    file_digest(f)
    assert len(hashed) == 2  # the second hashing was remembered: trusted once the file is not fresh


def _weat7_file(path: Path, glove, swap: bool = False) -> bytes:
    spec = load_bundled_test("weat7")
    words = sorted({w.lower() for s in (spec.targ1, spec.targ2, spec.attr1, spec.attr2) for w in s.examples})
    vectors = np.stack([glove.vector(w) for w in words]).astype(np.float32)
    if swap:  # two target words trade vectors: the same lines' text in another order, so the same size
        i, j = words.index("math"), words.index("poetry")
        vectors[[i, j]] = vectors[[j, i]]
    write_word2vec_text(path, words, vectors)
    return path.read_bytes()


def test_the_weat_explorer_loads_a_changed_model_file_again(tmp_path, glove):
    """Switch to another model and back after the file changed (same size, mtime restored): the explorer shows
    the new file's d, as a fresh study on it does; before, it kept the first file's model by name."""
    from embias_widgets.analysis import AssociationTest
    from embias_widgets.widgets import WeatExplorer

    path = tmp_path / "vectors.txt"
    old = _weat7_file(path, glove)
    new_path = tmp_path / "new.txt"
    new = _weat7_file(new_path, glove, swap=True)
    explorer = WeatExplorer("weat7", model=str(path), n_samples=1000)
    before = explorer.bars.effect_size
    assert before == pytest.approx(AssociationTest("weat7", model=str(path), n_samples=1000).run().effect_size)
    explorer.editor.set_state({"model_name": "glove-6b-50d"})
    _same_size_edit(path, old, new)
    explorer.editor.set_state({"model_name": str(path)})
    expected = AssociationTest("weat7", model=str(new_path), n_samples=1000).run().effect_size
    assert explorer.bars.effect_size == pytest.approx(expected) and abs(expected - before) > 0.05
    assert not explorer.editor.error


def test_content_keyed_models_hold_one_entry_per_name(tmp_path):
    f = tmp_path / "v.txt"
    f.write_text("2 2\na 1 0\nb 0 1\n")
    cache = ContentKeyedModels()
    cache[str(f)] = "first"
    assert str(f) in cache and cache[str(f)] == "first" and list(cache) == [str(f)]
    f.write_text("2 2\na 0 1\nb 1 0\n")
    assert str(f) not in cache  # another content: a miss, so the caller loads it again
    cache[str(f)] = "second"
    assert len(cache) == 1 and cache[str(f)] == "second"
    cache["an object's name"] = "kept by name"  # cannot be fingerprinted: keyed by the name alone
    assert cache["an object's name"] == "kept by name"
    assert model_fingerprint(str(f)) == "file:" + hashlib.sha256(f.read_bytes()).hexdigest()
