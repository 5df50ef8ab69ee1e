"""Sense-vector files users give are read strictly: one message naming the file, the line or key, and the fix."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from embias_widgets.models.errors import SenseFileError
from embias_widgets.models.registry import load_sense_model
from embias_widgets.models.sense_vectors import load_sense_file

KEYS = ["black%3:00:01::", "black%1:18:00::", "nurse%1:18:00::", "nurse%2:29:00::"]


def _line(key, row, sep=" "):
    return key + sep + sep.join(f"{v:.6f}" for v in row)


def _txt(path, lines, header=None):
    head = [header] if header else []
    path.write_bytes(("\n".join(head + lines) + "\n").encode("utf-8"))
    return path


@pytest.fixture
def table():
    return np.random.default_rng(3).normal(size=(len(KEYS), 5))


def _no_pickle_hint(err):
    assert "allow_pickle" not in str(err.value) and "pickle=True" not in str(err.value)


# -- text files ------------------------------------------------------------------------------------
@pytest.mark.parametrize("keys", [None, ["nurse%1:18:00::"]], ids=["indexed", "keys="])
def test_duplicate_key_names_both_lines_never_picks_one(tmp_path, table, keys):
    lines = [_line(k, r) for k, r in zip(KEYS, table, strict=True)] + [_line(KEYS[1], table[0])]
    path = _txt(tmp_path / "dup.txt", lines)
    pattern = r"dup\.txt:5: sense key 'black%1:18:00::' appears again \(first on line 2\)"
    with pytest.raises(SenseFileError, match=pattern):
        load_sense_file(path, keys=keys)


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "NaN"])
def test_non_finite_vector_names_key_file_and_line(tmp_path, table, bad):
    lines = [_line(k, r) for k, r in zip(KEYS, table, strict=True)]
    lines[2] = lines[2].rsplit(" ", 1)[0] + f" {bad}"
    path = _txt(tmp_path / "nan.txt", lines)
    vecs = load_sense_file(path)  # indexed lazily: the other vectors still read
    np.testing.assert_allclose(vecs.vector(KEYS[0]), table[0], atol=1e-6)
    pattern = r"nan\.txt:3: the vector of sense key 'nurse%1:18:00::' holds -?(nan|inf) \(number 5 of 5\)"
    with pytest.raises(SenseFileError, match=pattern):
        vecs.vectors([KEYS[0], KEYS[2]])
    with pytest.raises(SenseFileError, match=pattern):
        load_sense_file(path, keys=[KEYS[2]])


def test_key_not_utf8_is_named_with_its_line(tmp_path, table):
    path = tmp_path / "latin1.txt"
    lines = [_line(k, r).encode() for k, r in zip(KEYS, table, strict=True)]
    lines[1] = "caf\xe9%1:13:00:: 0.1 0.2 0.3 0.4 0.5".encode("latin-1")
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(SenseFileError, match=r"latin1\.txt:2: the key b'caf\\xe9%1:13:00::' is not UTF-8 text; save"):
        load_sense_file(path)


@pytest.mark.parametrize("sep", [",", ";", "|"])
def test_wrong_separator_says_to_use_spaces(tmp_path, table, sep):
    path = _txt(tmp_path / "sep.txt", [_line(k, r, sep) for k, r in zip(KEYS, table, strict=True)])
    with pytest.raises(SenseFileError, match=rf"sep\.txt:1: fields are separated by '\{sep}'.*separated by spaces"):
        load_sense_file(path)


def test_comma_after_each_number_is_named(tmp_path, table):
    path = _txt(tmp_path / "c.txt", [_line(k, r, ", ") for k, r in zip(KEYS, table, strict=True)])
    with pytest.raises(SenseFileError, match=r"c\.txt:1: fields are separated by ','"):
        load_sense_file(path)


def test_tabs_are_whitespace_and_the_key_is_read_exactly(tmp_path, table):
    path = _txt(tmp_path / "tab.txt", [_line(k, r, "\t") for k, r in zip(KEYS, table, strict=True)])
    vecs = load_sense_file(path)
    assert vecs.keys == KEYS  # the old reader cut a tab-separated key at the first space (none): the whole line
    np.testing.assert_allclose(vecs.vectors(KEYS), table, atol=1e-6)


def test_word_vector_file_is_not_a_sense_file(tmp_path, table):
    path = _txt(tmp_path / "glove.txt", [_line(w, r) for w, r in zip(["the", "a", "of", "to"], table, strict=True)])
    with pytest.raises(SenseFileError, match=r"glove\.txt:1: 'the' is not a WordNet sense key"):
        load_sense_file(path)


def test_header_count_must_match(tmp_path, table):
    path = _txt(tmp_path / "ares.txt", [_line(k, r) for k, r in zip(KEYS, table, strict=True)], header="5 5")
    with pytest.raises(SenseFileError, match=r"ares\.txt: the header says 5 vectors but the file holds 4"):
        load_sense_file(path)


def test_utf8_bom_is_not_part_of_the_first_key(tmp_path, table):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(_line(k, r) for k, r in zip(KEYS, table, strict=True)).encode())
    vecs = load_sense_file(path)
    assert vecs.keys[0] == KEYS[0]
    np.testing.assert_allclose(vecs.vector(KEYS[0]), table[0], atol=1e-6)


def test_not_a_number_read_lazily_names_key_and_line(tmp_path, table):
    lines = [_line(k, r) for k, r in zip(KEYS, table, strict=True)]
    lines[3] = lines[3].rsplit(" ", 1)[0] + " 0.1x"
    vecs = load_sense_file(_txt(tmp_path / "x.txt", lines))
    with pytest.raises(SenseFileError, match=r"x\.txt:4: b'0\.1x' in the vector of sense key 'nurse%2:29:00::'"):
        vecs.vector(KEYS[3])


def test_missing_path_and_directory_name_the_path_and_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope\.txt not found: give the path of an existing LMMS"):
        load_sense_file(tmp_path / "nope.txt")
    with pytest.raises(FileNotFoundError, match=r"lmms\.npz not found: give the path"):
        load_sense_model(str(tmp_path / "lmms.npz"))
    with pytest.raises(IsADirectoryError, match="is a directory: give the path"):
        load_sense_file(tmp_path)


# -- .npz ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("compressed", [False, True])
def test_npz_duplicate_label_is_refused(tmp_path, table, compressed):
    path = tmp_path / "dup.npz"
    save = np.savez_compressed if compressed else np.savez
    save(path, labels=np.array([*KEYS, KEYS[2]]), vectors=np.vstack([table, table[:1]]))
    pattern = r"dup\.npz \(label 4\): sense key 'nurse%1:18:00::' appears again \(first as label 2\)"
    with pytest.raises(SenseFileError, match=pattern):
        load_sense_file(path)


@pytest.mark.parametrize("compressed", [False, True])
def test_npz_nan_row_names_key_and_file(tmp_path, table, compressed):
    table = table.astype(np.float32)
    table[1, 2] = np.nan
    path = tmp_path / "nan.npz"
    (np.savez_compressed if compressed else np.savez)(path, labels=np.array(KEYS), vectors=table)
    vecs = load_sense_file(path)
    np.testing.assert_array_equal(vecs.vector(KEYS[0]), table[0].astype(np.float64))
    pattern = r"nan\.npz \(row 1 of 'vectors'\): the vector of sense key 'black%1:18:00::' holds nan \(number 3 of 5\)"
    with pytest.raises(SenseFileError, match=pattern):
        vecs.vectors(KEYS)
    with pytest.raises(SenseFileError, match=pattern):
        load_sense_file(path, keys=[KEYS[1]])


def _random_bytes(path):
    path.write_bytes(np.random.default_rng(0).bytes(4096))


def _truncated(path):
    np.savez(path, labels=np.array(KEYS), vectors=np.ones((4, 5)))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _npy_named_npz(path):
    with path.open("wb") as fh:
        np.save(fh, np.ones((4, 5)))


def _pickled_labels(path):
    np.savez(path, labels=np.array(KEYS, dtype=object), vectors=np.ones((4, 5)))


def _text_named_npz(path):
    path.write_text("nurse%1:18:00:: 0.1 0.2\n")


def _zip_of_other_things(path):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("readme.txt", "hello")


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_random_bytes, "not a sense-vector file.*not a zip archive"),
        (_truncated, "not a sense-vector file"),
        (_npy_named_npz, "not a sense-vector file.*not a zip archive"),
        (_pickled_labels, "an array holds Python objects.*dtype=str"),
        (_text_named_npz, "not a sense-vector file.*not a zip archive"),
        (_zip_of_other_things, "needs arrays 'labels' and 'vectors'"),
    ],
    ids=["random", "truncated", "npy", "object-labels", "text", "other-zip"],
)
def test_corrupt_npz_is_not_a_sense_file_and_never_suggests_pickle(tmp_path, make, says):
    path = tmp_path / "lmms.npz"
    make(path)
    with pytest.raises(SenseFileError, match=says) as err:
        load_sense_file(path)
    assert str(path) in str(err.value)
    _no_pickle_hint(err)


@pytest.mark.parametrize(
    ("labels", "vectors", "says"),
    [
        (np.array([b"caf\xe9%1:13:00::", b"nurse%1:18:00::"]), np.ones((2, 3)), r"\(label 0\): the key .* not UTF-8"),
        (np.array([["a%1:00:00::"], ["b%1:00:00::"]]), np.ones((2, 3)), "'labels' must be a non-empty 1-d array"),
        (np.array([1, 2]), np.ones((2, 3)), "'labels' must be a non-empty 1-d array of sense keys"),
        (np.array(["a%1:00:00::", "b%1:00:00::"]), np.array([["x"] * 3] * 2), r"\(labels x dim\) array of numbers"),
        (np.array(["a%1:00:00::", "b%1:00:00::"]), np.ones(2), "must be a \\(labels x dim\\) array"),
        (np.array(["the", "b%1:00:00::"]), np.ones((2, 3)), r"\(label 0\): 'the' is not a WordNet sense key"),
    ],
    ids=["latin1-bytes", "2d-labels", "int-labels", "text-vectors", "1d-vectors", "word-label"],
)
def test_npz_arrays_of_the_wrong_kind(tmp_path, labels, vectors, says):
    path = tmp_path / "odd.npz"
    np.savez(path, labels=labels, vectors=vectors)
    with pytest.raises(SenseFileError, match=says) as err:
        load_sense_file(path)
    assert "odd.npz" in str(err.value)


def test_npz_bytes_labels_are_decoded_not_repr(tmp_path, table):
    path = tmp_path / "bytes.npz"
    np.savez(path, labels=np.array([k.encode() for k in KEYS]), vectors=table)
    vecs = load_sense_file(path)
    assert vecs.keys == KEYS  # str(b"...") would have given "b'black%3:00:01::'"
    np.testing.assert_array_equal(vecs.vectors(KEYS), table)


def test_nan_reaches_the_study_as_the_key_and_the_file_not_a_matrix_row(wn, tmp_path):
    """A NaN in a sense vector names the sense key and the file, not "`Y` row 0" of the core."""
    from embias_widgets.analysis import SenseAssociationTest

    keys = [s.key for lemma in ("nurse", "engineer", "man", "woman") for s in wn.senses(lemma)]
    rng = np.random.default_rng(1)
    lines = [_line(k, rng.normal(size=4)) for k in keys]
    bad = keys.index("engineer%1:18:00::")
    lines[bad] = "engineer%1:18:00:: 0.1 nan 0.3 0.4"
    path = _txt(tmp_path / "lmms.txt", lines)
    study = SenseAssociationTest(targ1=["nurse%1:18:00::"], targ2=["engineer%1:18:00::"], attr1=["man%1:18:00::"],
                                 attr2=["woman%1:18:00::"], model=str(path))
    with pytest.raises(SenseFileError, match=rf"lmms\.txt:{bad + 1}: the vector of sense key 'engineer%1:18:00::'"):
        study.run()
