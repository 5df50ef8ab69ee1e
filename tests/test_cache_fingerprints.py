"""Caches of vectors are keyed by content fingerprints, never by a model's name or path."""

import hashlib
import shutil

import numpy as np
import pytest
from _missing import skip_unless_ci
from _tiny_lm import one_thread
from _tiny_nli import build_tiny_nli, tiny_nli_dir, tiny_tokenizer

from embias_widgets.models import registry
from embias_widgets.models.fingerprints import (
    EMBEDDED_PACKAGES,
    FingerprintError,
    directory_fingerprint,
    model_fingerprint,
    object_fingerprint,
)
from embias_widgets.stimuli.fingerprints import file_digest, pairs_fingerprint
from embias_widgets.stimuli.nli_probes import load_probe, user_probe

_threads = pytest.fixture(autouse=True)(one_thread)


def test_file_digest_is_sha256_of_the_bytes_and_follows_edits(tmp_path):
    f = tmp_path / "w.bin"
    f.write_bytes(b"abc" * 1000)
    assert file_digest(f) == hashlib.sha256(b"abc" * 1000).hexdigest()
    f.write_bytes(b"abd" * 1000)  # same size, new content
    assert file_digest(f) == hashlib.sha256(b"abd" * 1000).hexdigest()


def test_directory_fingerprint_sees_weights_not_readmes(tmp_path):
    folder = tmp_path / "m"
    shutil.copytree(tiny_nli_dir(), folder)
    before = directory_fingerprint(folder)
    (folder / "README.md").write_text("notes")
    assert directory_fingerprint(folder) == before
    (folder / "tokenizer_config.json").write_text((folder / "tokenizer_config.json").read_text() + " ")
    changed_tokenizer = directory_fingerprint(folder)
    assert changed_tokenizer != before
    build_tiny_nli(tiny_tokenizer(), seed=1).save_pretrained(folder)
    assert directory_fingerprint(folder) not in (before, changed_tokenizer)
    assert model_fingerprint(str(folder)) == "dir:" + directory_fingerprint(folder)
    with pytest.raises(FingerprintError, match="holds no weight or config file"):
        directory_fingerprint(_empty(tmp_path))


def _empty(tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    (d / "README.md").write_text("x")
    return d


def test_every_builtin_has_a_fingerprint_and_unknown_names_are_refused():
    assert set(EMBEDDED_PACKAGES) == set(registry.BUILTIN_MODELS)
    prints = {name: model_fingerprint(name) for name in registry.BUILTIN_MODELS}
    assert len(set(prints.values())) == len(prints)  # the name is part of it
    with pytest.raises(FingerprintError, match="cannot fingerprint model 'no-such/model-xyz'"):
        model_fingerprint("no-such/model-xyz")
    with pytest.raises(FingerprintError, match="fingerprint\\(\\) method"):
        object_fingerprint(object())


def test_object_fingerprint_follows_weights_not_names():
    from embias_widgets.models.nli_classifiers import CrossEncoderNli

    tok = tiny_tokenizer()
    a = CrossEncoderNli(build_tiny_nli(tok, seed=0), tok, name="same", device="cpu")
    b = CrossEncoderNli(build_tiny_nli(tok, seed=0), tok, name="same", device="cpu")
    c = CrossEncoderNli(build_tiny_nli(tok, seed=1), tok, name="same", device="cpu")
    assert object_fingerprint(a) == object_fingerprint(b) != object_fingerprint(c)


def test_pairs_fingerprint_follows_content():
    a = load_probe("gender-occupation", premise_words=["nurse"], hypothesis_words=["man"])
    b = load_probe("gender-occupation", premise_words=["nurse"], hypothesis_words=["woman"])
    assert pairs_fingerprint(a) == pairs_fingerprint(load_probe("gender-occupation", premise_words=["nurse"],
                                                                hypothesis_words=["man"]))
    assert pairs_fingerprint(a) != pairs_fingerprint(b)
    assert pairs_fingerprint(user_probe(["rude"], ["Welsh"])) != pairs_fingerprint(user_probe(["kind"], ["Welsh"]))


def test_sentence_encoder_retrained_in_the_same_folder_is_not_served_from_cache(tmp_path):
    from embias_widgets.models.sentence_encoders import TransformerSentenceEncoder

    folder = tmp_path / "enc"
    shutil.copytree(tiny_nli_dir(), folder)
    before = TransformerSentenceEncoder.from_pretrained(folder, device="cpu").encode(["A nurse ate a pear ."])
    build_tiny_nli(tiny_tokenizer(), seed=1).save_pretrained(folder)
    after = TransformerSentenceEncoder.from_pretrained(folder, device="cpu").encode(["A nurse ate a pear ."])
    other = tmp_path / "copy"
    shutil.copytree(folder, other)
    direct = TransformerSentenceEncoder.from_pretrained(other, device="cpu").encode(["A nurse ate a pear ."])
    assert not np.allclose(before.vectors, after.vectors)
    np.testing.assert_array_equal(after.vectors, direct.vectors)


class _Encoder:
    """A stand-in sentence encoder whose vectors depend on ``seed``; counts what it encodes."""

    name, options = "same-name", "pooling=mean"

    def __init__(self, seed, fingerprint=None):
        self.seed, self.seen = seed, []
        if fingerprint is not None:
            self.fingerprint = fingerprint

    def encode(self, texts):
        from embias_widgets.models import Encoding

        texts = list(texts)
        self.seen += texts
        rows = [np.random.default_rng([self.seed, abs(hash(t)) % 2**32]).normal(size=4) for t in texts]
        return Encoding(tuple(texts), np.vstack(rows))


def test_gloss_vectors_of_two_encoders_with_one_name_are_not_shared():
    from embias_widgets.models.sense_vectors.gloss import GlossSenseVectors, clear_gloss_cache
    from embias_widgets.stimuli.wordnet import WordNetNotFoundError, load_wordnet

    try:
        wn = load_wordnet()
    except WordNetNotFoundError as err:
        skip_unless_ci(str(err))
    clear_gloss_cache()
    key = "nurse%1:18:00::"
    first, second = _Encoder(0, "weights-a"), _Encoder(1, "weights-b")
    v1 = GlossSenseVectors(first, wn).vectors([key])
    v2 = GlossSenseVectors(second, wn).vectors([key])
    assert len(second.seen) == 1 and not np.allclose(v1, v2)  # encoded again, its own vectors
    twin = _Encoder(0, "weights-a")  # another object with the same content: shares
    np.testing.assert_array_equal(GlossSenseVectors(twin, wn).vectors([key]), v1)
    assert twin.seen == []
    anonymous, other = _Encoder(2), _Encoder(3)  # no fingerprint: shared only with the very same object
    GlossSenseVectors(anonymous, wn).vectors([key])
    GlossSenseVectors(other, wn).vectors([key])
    GlossSenseVectors(anonymous, wn).vectors([key])
    assert len(anonymous.seen) == 1 and len(other.seen) == 1
