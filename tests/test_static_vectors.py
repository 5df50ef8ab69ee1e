"""Static vectors: file formats, case handling, OOV reports, multi-word items."""

import numpy as np
import pytest

from embias_widgets.models import StaticVectors, load_model
from embias_widgets.models.static_vectors.files import write_word2vec_binary, write_word2vec_text

WORDS = ["black", "woman", "Paris", "paris", "flower"]
VECS = np.arange(20, dtype=np.float32).reshape(5, 4) + 1


@pytest.fixture
def table():
    return StaticVectors(WORDS, VECS, name="tiny")


def test_case_sensitive_when_vocabulary_has_uppercase(table):
    assert table.lowercase is False
    enc = table.encode(["Paris", "paris", "PARIS"])
    assert enc.items == ("Paris", "paris")
    np.testing.assert_array_equal(enc.vectors[0], VECS[2])
    assert enc.oov[0].item == "PARIS"
    assert "Paris" in enc.oov[0].suggestions


def test_lowercase_option():
    t = StaticVectors(WORDS, VECS, lowercase=True)
    np.testing.assert_array_equal(t.encode(["FLOWER"]).vectors[0], VECS[4])


def test_multiword_mean_is_reported(table):
    enc = table.encode(["black woman"])
    np.testing.assert_allclose(enc.vectors[0], (VECS[0] + VECS[1]) / 2)
    assert enc.averaged == ("black woman",)
    strict = StaticVectors(WORDS, VECS, multiword="error").encode(["black woman"])
    assert strict.items == () and strict.oov[0].item == "black woman"


def test_oov_never_silently_dropped(table):
    enc = table.encode(["flower", "flowr", "black man"])
    assert enc.items == ("flower",)
    assert [o.item for o in enc.oov] == ["flowr", "black man"]
    assert enc.oov[0].suggestions[0] == "flower"
    assert enc.oov[1].missing == ("man",)
    assert "missing word 'man'" in enc.oov[1].message()


@pytest.mark.parametrize("fmt", ["w2v-text", "glove-text", "w2v-bin"])
def test_vector_files_round_trip(tmp_path, fmt):
    path = tmp_path / ("v.bin" if fmt == "w2v-bin" else "v.txt")
    if fmt == "w2v-bin":
        write_word2vec_binary(path, WORDS, VECS)
    else:
        write_word2vec_text(path, WORDS, VECS)
        if fmt == "glove-text":
            lines = path.read_text().splitlines()[1:]
            path.write_text("\n".join(lines) + "\n")
    model = load_model(str(path))
    assert model.words == WORDS
    np.testing.assert_allclose(model.vectors, VECS, rtol=1e-6)


def test_malformed_vector_file_names_the_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("2 3\nfoo 1 2 3\nbar 1 x 3\n")
    with pytest.raises(ValueError, match=r"bad.txt:3: not a number"):
        load_model(str(path))


def test_keyed_vectors_duck_type():
    class KV:
        index_to_key = ("a", "b")
        vectors = np.eye(2)

    model = load_model(KV())
    np.testing.assert_array_equal(model.encode(["b"]).vectors[0], [0, 1])


def test_unknown_model_lists_registered_names():
    with pytest.raises(ValueError, match="glove-6b-50d"):
        load_model("no-such-model")


def test_glove_embedded(glove):
    assert len(glove) == 400_000 and glove.dim == 50 and glove.lowercase
    enc = glove.encode(["Flower", "gladiola"])
    assert enc.items == ("Flower",)
    assert enc.oov[0].item == "gladiola"


def test_registry_lists_every_named_model_without_importing_torch():
    import subprocess
    import sys

    code = ("import sys; from embias_widgets.models import available_models as a; names = a(); "
            "print(sorted(names)); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    names, torch_loaded = out.splitlines()
    for name in ("glove-6b-50d", "all-MiniLM-L6-v2", "cbow-glove-6b-50d", "embias-demo-mlm"):
        assert name in names
    assert torch_loaded == "False"
