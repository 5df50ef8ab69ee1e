"""Mistakes in the model a user names, each through the command line as a user meets it (issue 31, items 6,
14 and 15): a vectors file with a repeated word, a text file named ``.bin``, an empty name, a missing sense
file, NaN in a relation word's vector, and names that do not exist on an install without torch."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from _cli_inprocess import embias_inprocess

from embias_widgets import EmbiasWarning
from embias_widgets.metrics import weat
from embias_widgets.models.static_vectors.files import (
    load_vector_file,
    read_word2vec_binary,
    write_word2vec_binary,
    write_word2vec_text,
)
from embias_widgets.stimuli import load_bundled_test


def _weat7_words(glove) -> tuple[list[str], np.ndarray]:
    spec = load_bundled_test("weat7")
    words = sorted({w.lower() for s in (spec.targ1, spec.targ2, spec.attr1, spec.attr2) for w in s.examples})
    return words, np.stack([glove.vector(w) for w in words]).astype(np.float32)


def _weat7_d(vectors: dict[str, np.ndarray]) -> float:
    spec = load_bundled_test("weat7")
    sets = [np.stack([vectors[w.lower()] for w in s.examples]) for s in (spec.targ1, spec.targ2, spec.attr1,
                                                                          spec.attr2)]
    return weat(*sets, n_samples=1000, rng=0).effect_size


def test_a_repeated_word_keeps_its_first_vector_as_gensim_does_and_says_which_lines(tmp_path, glove):
    """Item 6: gensim's reader keeps the first vector of a repeated word and logs a warning; we do the same,
    warn naming the word and both lines, and the result computed with that word carries the note."""
    words, vectors = _weat7_words(glove)
    other = glove.vector("poetry").astype(np.float32)
    path = tmp_path / "dup.txt"
    write_word2vec_text(path, [*words, "math"], np.vstack([vectors, other]))  # header is line 1
    first_line = 2 + words.index("math")
    run = embias_inprocess("weat", "weat7", "--model", str(path), "--format", "json", "--permutations", "1000")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    expected = _weat7_d(dict(zip(words, vectors, strict=True)))  # the first vector of 'math'
    later = _weat7_d({**dict(zip(words, vectors, strict=True)), "math": other})
    assert record["effect_size"] == pytest.approx(expected, abs=1e-6) and abs(expected - later) > 0.01
    said = f"'math' appears twice (lines {first_line} and {len(words) + 2})"
    assert any(said in note for note in record["notes"]), record["notes"]
    assert f"embias weat: warning: {path}: the word {said[:-1]}" in run.stderr and "gensim" in run.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_vector_file(path)
    assert len(model) == len(words) and not model.encode(["poetry", "art"]).notes  # only encodes using 'math'


def test_a_repeated_word_in_a_binary_file_names_both_entries(tmp_path):
    path = tmp_path / "dup.bin"
    write_word2vec_binary(path, ["a", "b", "a"], np.array([[1, 0], [0, 1], [5, 5]], dtype=np.float32))
    with pytest.warns(EmbiasWarning, match=r"'a' appears twice \(entries 1 and 3\)"):
        words, vectors = read_word2vec_binary(path)
    assert words == ["a", "b"] and vectors.tolist() == [[1, 0], [0, 1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_vector_file(path)
    assert model.encode(["a"]).notes and not model.encode(["b"]).notes
