"""NLI cross-encoders of the DeBERTa-v3 and RoBERTa families: labels read from any ``id2label`` spelling,
two-class and unreadable label sets refused, probabilities as the model's own softmax in (e, n, c) order.

Tiny random ``*ForSequenceClassification`` heads with tokenizers trained offline (:mod:`_tiny_families`),
saved and loaded back by path through ``load_nli_model``.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from _tiny_families import SMALL, byte_level_bpe, sentencepiece_unigram  # noqa: E402
from _tiny_lm import one_thread  # noqa: E402

from embias_widgets.models.nli_classifiers import CrossEncoderNli, NliLabelError, load_nli_model  # noqa: E402
from embias_widgets.models.nli_classifiers.cross_encoder import label_columns  # noqa: E402

_single_thread = pytest.fixture(autouse=True)(one_thread)
PREMISES = ["The nurse fixed the souvenir shop.", "Poor people are lazy."]
HYPOTHESES = ["The woman fixed it.", "Rich people are lazy and never work hard."]


def _save(tmp_path, family: str, id2label: dict[int, str]):
    torch.manual_seed(0)
    if family == "deberta-v3":
        tok = sentencepiece_unigram(transformers.DebertaV2Tokenizer, "[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]",
                                    ("[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"))
        config = transformers.DebertaV2Config(vocab_size=len(tok), max_position_embeddings=64, relative_attention=True,
                                              position_biased_input=False, pos_att_type=["p2c", "c2p"],
                                              type_vocab_size=0, pad_token_id=tok.pad_token_id, id2label=id2label,
                                              label2id={v: k for k, v in id2label.items()}, **SMALL)
        model = transformers.DebertaV2ForSequenceClassification(config)
    else:
        tok = byte_level_bpe()
        config = transformers.RobertaConfig(vocab_size=len(tok), max_position_embeddings=66, pad_token_id=1,
                                            id2label=id2label, label2id={v: k for k, v in id2label.items()}, **SMALL)
        model = transformers.RobertaForSequenceClassification(config)
    folder = tmp_path / family
    model.eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder, model.eval(), tok


@pytest.mark.parametrize(
    ("family", "id2label", "columns"),
    [
        ("deberta-v3", {0: "contradiction", 1: "entailment", 2: "neutral"}, [1, 2, 0]),  # cross-encoder/nli-deberta-v3
        ("roberta", {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, [2, 1, 0]),  # roberta-large-mnli
        ("roberta", {0: "Entailment", 1: "Neutral", 2: "Contradiction"}, [0, 1, 2]),
    ],
)
def test_families_read_their_labels_and_predict_like_the_model(tmp_path, family, id2label, columns) -> None:
    folder, model, tok = _save(tmp_path, family, id2label)
    nli = load_nli_model(str(folder), device="cpu")
    assert isinstance(nli, CrossEncoderNli) and nli.columns.tolist() == columns
    assert nli.max_length == 64  # DeBERTa: its 64 positions; RoBERTa: 66 less padding_idx + 1
    probs = nli.predict(PREMISES, HYPOTHESES)
    for i, (p, h) in enumerate(zip(PREMISES, HYPOTHESES, strict=True)):
        with torch.no_grad():
            logits = model(**tok(p, h, return_tensors="pt")).logits[0].double()
        expected = torch.softmax(logits, dim=-1).numpy()[columns]  # (entailment, neutral, contradiction)
        assert probs[i] == pytest.approx(expected, abs=1e-6)


def test_any_spelling_of_the_three_names() -> None:
    assert label_columns({0: "ENTAILMENT", 1: "neutral", 2: "Contradiction"}).tolist() == [0, 1, 2]
    assert label_columns({"0": "contradictory", "1": "entails", "2": " Neutral "}).tolist() == [1, 2, 0]
    assert label_columns({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}).tolist() == [1, 2, 0]


@pytest.mark.parametrize(
    "id2label", [{0: "entailment", 1: "not_entailment"}, {0: "ENTAILMENT", 1: "NON-ENTAILMENT"},
                 {0: "entailment", 1: "contradiction"}]
)
def test_two_class_models_are_refused_with_the_reason(id2label) -> None:
    with pytest.raises(NliLabelError, match=r"two-class .* cannot say neutral from contradiction.*three-class"):
        label_columns(id2label)


def test_two_class_model_refused_by_path_before_its_weights_load(tmp_path) -> None:
    folder, _, _ = _save(tmp_path, "roberta", {0: "entailment", 1: "not_entailment"})
    (folder / "model.safetensors").unlink()  # never read: the config alone is refused
    with pytest.raises(NliLabelError, match="two-class"):
        load_nli_model(str(folder), device="cpu")


def test_unknown_and_generic_labels_are_refused_with_the_fix() -> None:
    with pytest.raises(NliLabelError, match=r"LABEL_0 do not say which logit is which.*labels=\("):
        label_columns({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(NliLabelError, match=r"0='yes', 1='maybe', 2='no'.*entailment, neutral and contradiction"):
        label_columns({0: "yes", 1: "maybe", 2: "no"})
    with pytest.raises(NliLabelError, match="two of them mean entailment"):
        label_columns({0: "entailment", 1: "ENTAILS", 2: "neutral"})
    # ... and the order given by hand is used
    assert label_columns(dict(enumerate(["contradiction", "neutral", "entailment"]))).tolist() == [2, 1, 0]
