"""Sense-vector files (LMMS .npz/.txt, ARES .txt), gloss vectors, eq. 7 word vectors, and their bad input."""

from __future__ import annotations

import numpy as np
import pytest
from _missing import skip_unless_ci

from embias_widgets.models.errors import MissingSenseError, SenseFileError
from embias_widgets.models.registry import load_sense_model
from embias_widgets.models.sense_vectors import (
    SenseVectorFile,
    gloss_text,
    is_sense_file,
    load_sense_file,
)
from embias_widgets.models.sense_vectors.files import _npz_memmap

KEYS = ["black%3:00:01::", "black%3:00:02::", "black%1:18:00::", "nurse%1:18:00::", "nurse%2:29:00::"]


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    return rng.normal(size=(len(KEYS), 6)).astype(np.float32)


def _write_txt(path, keys, table, header=False):
    lines = [f"{len(keys)} {table.shape[1]}"] if header else []
    lines += [k + " " + " ".join(f"{v:.6f}" for v in row) for k, row in zip(keys, table, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("header", [False, True], ids=["lmms-txt", "ares-txt"])
def test_text_files_read_lazily_and_exactly(tmp_path, table, header):
    path = _write_txt(tmp_path / "senses.txt", KEYS, table, header=header)
    vecs = load_sense_file(path)
    assert isinstance(vecs, SenseVectorFile) and vecs._matrix is None  # indexed, nothing parsed yet
    assert vecs.dim == 6 and len(vecs) == 5
    np.testing.assert_allclose(vecs.vectors(["nurse%2:29:00::", "black%3:00:01::"]), table[[4, 0]], atol=1e-6)
    assert vecs.keys_of("black") == KEYS[:3]
    assert is_sense_file(path)


def test_text_file_only_needed_keys(tmp_path, table):
    path = _write_txt(tmp_path / "senses.txt", KEYS, table)
    vecs = load_sense_file(path, keys=["nurse%1:18:00::"])
    assert vecs.keys == ["nurse%1:18:00::"] and vecs._matrix.shape == (1, 6)
    np.testing.assert_allclose(vecs.vector("nurse%1:18:00::"), table[3], atol=1e-6)


@pytest.mark.parametrize("compressed", [False, True])
def test_npz_is_memory_mapped_when_uncompressed(tmp_path, table, compressed):
    path = tmp_path / "lmms.npz"
    (np.savez_compressed if compressed else np.savez)(path, labels=np.array(KEYS), vectors=table)
    vecs = load_sense_file(path)
    assert isinstance(vecs._matrix, np.memmap) != compressed
    np.testing.assert_array_equal(vecs.vectors(KEYS), table.astype(np.float64))
    mm = _npz_memmap(path, "vectors")
    assert (mm is None) == compressed
    sub = load_sense_file(path, keys=["black%1:18:00::", "absent%1:01:00::"])
    assert sub.keys == ["black%1:18:00::"]


def test_wrong_dimension_on_one_line_names_the_line(tmp_path, table):
    path = _write_txt(tmp_path / "senses.txt", KEYS, table)
    lines = path.read_text().splitlines()
    lines[3] = lines[3].rsplit(" ", 1)[0]  # line 4 loses a number
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(SenseFileError, match=r"senses.txt:4: expected a sense key and 6 numbers .* got 5"):
        load_sense_file(path)


def test_missing_key_is_named_never_a_zero_vector(tmp_path, table):
    vecs = load_sense_file(_write_txt(tmp_path / "s.txt", KEYS, table))
    with pytest.raises(MissingSenseError, match=r"no vector for sense key\(s\) judge%1:18:00::") as info:
        vecs.vectors(["black%3:00:01::", "judge%1:18:00::"])
    assert info.value.keys == ("judge%1:18:00::",)
    assert "judge%1:18:00::" not in vecs and "black%3:00:01::" in vecs
    with pytest.raises(MissingSenseError, match="any sense of 'judge'"):
        vecs.word_vectors(["judge"])


def test_eq7_word_vector_is_the_mean_of_the_lemmas_sense_vectors(tmp_path, table):
    vecs = load_sense_file(_write_txt(tmp_path / "s.txt", KEYS, table))
    np.testing.assert_allclose(vecs.word_vectors(["nurse"])[0], table[3:5].astype(np.float64).mean(axis=0), atol=1e-6)


def test_bad_npz_and_unknown_spec(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, keys=np.array(["a"]), vecs=np.ones((1, 2)))
    with pytest.raises(SenseFileError, match="needs arrays 'labels' and 'vectors'"):
        load_sense_file(path)
    from embias_widgets.models.errors import ModelNotFoundError

    with pytest.raises(ModelNotFoundError, match="gloss:<encoder>"):
        load_sense_model("no-such-sense-model")


def test_gloss_text_follows_lmms():
    from embias_widgets.stimuli.wordnet import Sense

    s = Sense("nurse%1:18:00::", "nurse", "n", "noun.person", "one skilled in caring", (), ("nurse",), "nurse.n.01", 1)
    assert gloss_text(s) == "nurse - nurse - one skilled in caring"


class _CountingEncoder:
    """A stand-in sentence encoder: a deterministic vector per text, counting what it encodes."""

    name = "counting"
    options = "pooling=mean"

    def __init__(self):
        self.seen = []

    def encode(self, texts):
        from embias_widgets.models import Encoding

        texts = list(texts)
        self.seen += texts
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=4) for t in texts]
        return Encoding(tuple(texts), np.vstack(rows))


def test_gloss_vectors_encode_each_key_once_and_name_unknown_keys():
    from embias_widgets.models.sense_vectors.gloss import GlossSenseVectors, clear_gloss_cache
    from embias_widgets.stimuli.wordnet import UnknownSenseError, WordNetNotFoundError, load_wordnet

    try:
        wn = load_wordnet()
    except WordNetNotFoundError as err:
        skip_unless_ci(str(err))
    clear_gloss_cache()
    enc = _CountingEncoder()
    gloss = GlossSenseVectors(enc, wn)
    first = gloss.vectors(["nurse%1:18:00::", "nurse%2:29:00::"])
    assert len(enc.seen) == 2 and enc.seen[0].startswith("nurse - nurse - ")
    again = GlossSenseVectors(enc, wn).vectors(["nurse%2:29:00::", "nurse%1:18:00::"])
    assert len(enc.seen) == 2  # cached per (model, options, key)
    np.testing.assert_array_equal(again, first[::-1])
    with pytest.raises(UnknownSenseError, match=r"WordNet 3\.0 has no sense key 'nurse%1:18:07::'"):
        gloss.vectors(["nurse%1:18:07::"])
    assert len(gloss.keys_of("nurse")) == 7


def test_gloss_minilm_end_to_end_matches_encoding_the_gloss_strings():
    """The registered gloss:all-MiniLM-L6-v2 model: vectors are the encoder's vectors of LMMS gloss strings."""
    import torch

    from embias_widgets.analysis import SenseAssociationTest
    from embias_widgets.metrics import weat
    from embias_widgets.models import load_model
    from embias_widgets.stimuli.wordnet import WordNetNotFoundError, load_wordnet

    try:
        wn = load_wordnet()
    except WordNetNotFoundError as err:
        skip_unless_ci(str(err))
    torch.set_num_threads(1)
    gloss = load_model("gloss:all-MiniLM-L6-v2", device="cpu")
    keys = {"targ1": ["nurse%1:18:00::", "engineer%1:18:00::"], "targ2": ["nurse%2:29:00::", "engineer%2:31:01::"],
            "attr1": ["man%1:18:00::"], "attr2": ["woman%1:18:00::"]}
    res = SenseAssociationTest(model=gloss, **keys).run()
    encoded = {k: gloss.encoder.encode([gloss_text(wn.sense(x)) for x in v]).vectors for k, v in keys.items()}
    plain = weat(encoded["targ1"], encoded["targ2"], encoded["attr1"], encoded["attr2"], variant="max", rng=0)
    assert res.effect_size == pytest.approx(plain.effect_size)
    assert res.model == "gloss:all-MiniLM-L6-v2" and "pooling=mean" in res.options
