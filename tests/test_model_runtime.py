"""The models' runtime facts in one place (``models/runtime.py``): a model's input length (RoBERTa's padding
offset, the tokenizer's limit), the default device, torch's CPU threads; and every adapter using them."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import pytest
import torch  # test extra: a missing install fails, never skips
import transformers
from _tiny_families import wordpiece
from _tiny_lm import one_thread

from embias_widgets.models.language_models.causal_lm import CausalLMScorer
from embias_widgets.models.language_models.masked_lm import MaskedLMScorer
from embias_widgets.models.nli_classifiers.cross_encoder import CrossEncoderNli
from embias_widgets.models.runtime import cpu_threads, default_device, input_length, torch_threads
from embias_widgets.models.sentence_encoders import TransformerSentenceEncoder

_one_thread = pytest.fixture(autouse=True)(one_thread)


def _model(config: transformers.PretrainedConfig) -> SimpleNamespace:
    return SimpleNamespace(config=config)


def test_roberta_positions_start_after_the_padding_index() -> None:
    """RoBERTa numbers positions from padding_idx + 1: 514 position embeddings hold 512 tokens."""
    assert input_length(_model(transformers.RobertaConfig(max_position_embeddings=514, pad_token_id=1))) == 512
    assert input_length(_model(transformers.RobertaConfig(max_position_embeddings=34, pad_token_id=0))) == 33
    assert input_length(_model(transformers.XLMRobertaConfig(max_position_embeddings=514))) == 512
    assert input_length(_model(transformers.BertConfig(max_position_embeddings=512))) == 512  # no offset


def test_the_tokenizer_limit_counts_unless_it_means_no_limit() -> None:
    bert = _model(transformers.BertConfig(max_position_embeddings=512))
    assert input_length(bert, SimpleNamespace(model_max_length=128)) == 128
    assert input_length(bert, SimpleNamespace(model_max_length=int(1e30))) == 512  # tokenizers' "no limit"
    assert input_length(_model(transformers.GPT2Config(n_positions=64)), SimpleNamespace(model_max_length=100)) == 64
    assert input_length(SimpleNamespace(config=SimpleNamespace()), SimpleNamespace(model_max_length=int(1e30))) is None


def test_default_device_and_threads() -> None:
    assert default_device("cpu") == "cpu"
    assert default_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    assert cpu_threads(3) == 3 and 1 <= cpu_threads() <= torch.get_num_threads()
    with pytest.raises(ValueError, match="--threads must be a whole number of at least 1"):
        cpu_threads(0)
    before = torch.get_num_threads()
    with torch_threads(2):
        assert torch.get_num_threads() == 2
    assert torch.get_num_threads() == before


@pytest.fixture(scope="module")
def bert_tokenizer():
    """BERT's WordPiece over MiniLM's vocab.txt."""
    return wordpiece()


def _roberta(tokenizer, cls, **extra):
    torch.manual_seed(0)
    config = transformers.RobertaConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=34, pad_token_id=1, **extra,
    )
    return cls(config).eval()


def test_every_adapter_takes_its_input_length_from_the_helper(bert_tokenizer) -> None:
    """A RoBERTa with 34 position embeddings (padding index 1) takes 32 tokens; every adapter agrees, and the
    masked-LM scorer scores a 32-token sentence and names a 33-token one."""
    tokenizer = copy.deepcopy(bert_tokenizer)
    mlm = MaskedLMScorer(_roberta(tokenizer, transformers.RobertaForMaskedLM), tokenizer, device="cpu",
                         progress=False)
    encoder = TransformerSentenceEncoder(_roberta(tokenizer, transformers.RobertaModel), tokenizer, name="tiny",
                                         device="cpu")
    nli = CrossEncoderNli(_roberta(tokenizer, transformers.RobertaForSequenceClassification, num_labels=3),
                          tokenizer, labels=["entailment", "neutral", "contradiction"], device="cpu")
    assert mlm.max_length == encoder.max_length == nli.max_length == 32
    words = " ".join(["cat"] * 30)  # [CLS] + 30 + [SEP] = 32 tokens
    assert len(mlm.tokenize(words)) == 32
    assert mlm.score_sentences([words], metric="pll")[0].score < 0  # every position fits its embedding
    with pytest.raises(ValueError, match="has 33 tokens but the model takes at most 32"):
        mlm.tokenize(words + " cat")
    tokenizer.model_max_length = 16  # the tokenizer's limit, when lower, wins
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(
        vocab_size=tokenizer.vocab_size, n_embd=32, n_layer=1, n_head=2, n_positions=64)).eval()
    assert CausalLMScorer(gpt2, tokenizer, device="cpu", progress=False).max_length == 16
