"""Cross-encoder NLI batching: the [CLS]-row last layer and exact-length packing against the plain model.

For tiny seeded BERT-, RoBERTa- and ALBERT-shaped sequence classifiers, :meth:`CrossEncoderNli.predict`
(default: last layer at the [CLS] row only, equal-length batches under a token budget) gives the same
probabilities, within 1e-6, as the model run one pair at a time through ``model(**tokenizer(p, h)).logits``
with a softmax (re-implemented here), and as its own full pass (``cls_row=False``); the token budget changes
nothing; a pickled or re-embedded copy does not reuse a shortcut made for another model.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from _tiny_families import wordpiece  # noqa: E402

from embias_widgets.models.nli_classifiers import CrossEncoderNli  # noqa: E402

LABELS3 = ("entailment", "neutral", "contradiction")
PREMISES = ["The accountant ate a bagel.", "A man is playing a guitar on stage.", "The nurse slept.",
            "Two dogs run through a field of tall grass.", "She reads."]
HYPOTHESES = ["The man ate a bagel.", "A person plays music.", "Someone is awake.", "Animals are outside.",
              "The woman reads a long book about the history of the city."]


@pytest.fixture(scope="module")
def tokenizer():
    """BERT's WordPiece over MiniLM's vocab.txt."""
    return wordpiece()


def _classifier(family: str, vocab: int) -> object:
    torch.manual_seed(0)
    shape = dict(vocab_size=vocab, hidden_size=32, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=64, num_labels=3, id2label=dict(enumerate(LABELS3)))
    if family == "bert":
        return transformers.BertForSequenceClassification(transformers.BertConfig(num_hidden_layers=3, **shape))
    if family == "roberta":
        config = transformers.RobertaConfig(num_hidden_layers=3, pad_token_id=0, **shape)
        return transformers.RobertaForSequenceClassification(config)
    config = transformers.AlbertConfig(num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2,
                                       embedding_size=16, **shape)
    return transformers.AlbertForSequenceClassification(config)


def reference_probs(model, tokenizer) -> np.ndarray:
    """One pair per pass through the whole model, softmax over (e, n, c) in float64."""
    out = []
    with torch.no_grad():
        for p, h in zip(PREMISES, HYPOTHESES, strict=True):
            logits = model(**tokenizer(p, h, return_tensors="pt")).logits[0].double()
            out.append(torch.softmax(logits, dim=-1).numpy())
    return np.array(out)


@pytest.mark.parametrize("family", ["bert", "roberta", "albert"])
def test_cls_row_and_packing_equal_the_plain_model(family, tokenizer) -> None:
    model = _classifier(family, tokenizer.vocab_size).eval()
    fast = CrossEncoderNli(model, tokenizer, device="cpu", token_budget=64)
    full = CrossEncoderNli(model, tokenizer, device="cpu", cls_row=False)
    expected = reference_probs(model, tokenizer)
    got = fast.predict(PREMISES, HYPOTHESES)
    assert fast._fast, f"{family}: the [CLS]-row shortcut is not used"
    np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
    np.testing.assert_allclose(full.predict(PREMISES, HYPOTHESES), expected, atol=1e-6, rtol=0)
    assert full._fast is False
    one_batch = CrossEncoderNli(model, tokenizer, device="cpu", token_budget=100_000).predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(one_batch, got, atol=1e-7, rtol=0)  # the budget only changes the batching
    assert fast.forward_passes > 1


def test_shortcut_is_not_carried_to_another_model(tokenizer) -> None:
    """A pickled copy (what a Dask worker gets) and a re-embedded copy make their own shortcut."""
    model = _classifier("bert", tokenizer.vocab_size).eval()
    nli = CrossEncoderNli(model, tokenizer, device="cpu")
    nli.predict(PREMISES[:2], HYPOTHESES[:2])
    assert nli._fast
    copy = pickle.loads(pickle.dumps(nli))
    assert copy._fast is None
    np.testing.assert_allclose(copy.predict(PREMISES, HYPOTHESES), nli.predict(PREMISES, HYPOTHESES), atol=1e-7)
    W = nli.input_embeddings() * 0.5
    clone = nli.with_input_embeddings(W, suffix="halved")
    expected = reference_probs(clone.model, tokenizer)
    np.testing.assert_allclose(clone.predict(PREMISES, HYPOTHESES), expected, atol=1e-6, rtol=0)
    assert not np.allclose(expected, reference_probs(model, tokenizer), atol=1e-3)  # the copy is another model
