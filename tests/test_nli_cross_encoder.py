"""CrossEncoderNli: label order from id2label, length-bucketed batches, errors, debiasing."""

import numpy as np
import pytest
import torch
from _tiny_lm import one_thread
from _tiny_nli import ORDERS, build_tiny_nli, tiny_nli_dir, tiny_tokenizer

from embias_widgets.metrics.projection import project_out
from embias_widgets.models import ModelNotFoundError
from embias_widgets.models.nli_classifiers import CrossEncoderNli, NliLabelError, load_nli_model
from embias_widgets.models.nli_classifiers.cross_encoder import label_columns
from embias_widgets.models.nli_classifiers.debias import debias_input_embeddings, pair_direction, random_control
from embias_widgets.stimuli.nli_probes import load_probe

_threads = pytest.fixture(autouse=True)(one_thread)

PREMISES = ["An accountant ate a bagel .", "A nurse bought a car .", "The driver can afford a phone.",
            "A very long premise about a cook who prepared a pizza for the whole crew ."]
HYPOTHESES = ["A man ate a bagel .", "A woman bought a car .", "The lady can afford a phone.", "A guy cooked ."]


def direct_probs(model, tokenizer, premise, hypothesis):
    """One pair alone through the model, softmax by hand."""
    enc = tokenizer(premise, hypothesis, return_tensors="pt")
    with torch.no_grad():
        logits = model(**enc).logits[0].double().numpy()
    p = np.exp(logits - logits.max())
    return p / p.sum()


def test_label_columns_follow_id2label_case_insensitively():
    assert label_columns({0: "entailment", 1: "neutral", 2: "contradiction"}).tolist() == [0, 1, 2]
    assert label_columns({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}).tolist() == [2, 1, 0]
    assert label_columns({"0": "Neutral", "1": "Entailment", "2": "Contradiction"}).tolist() == [1, 0, 2]


def test_non_nli_labels_are_named():
    with pytest.raises(NliLabelError, match=r"0='LABEL_0', 1='LABEL_1', 2='LABEL_2'.*labels="):
        label_columns({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(NliLabelError, match="0='negative', 1='positive'"):
        label_columns({0: "negative", 1: "positive"})


@pytest.mark.parametrize("order", sorted(ORDERS))
def test_probabilities_are_reordered_to_entailment_neutral_contradiction(order):
    clf = load_nli_model(str(tiny_nli_dir(order)), device="cpu")
    model = clf.model
    got = clf.predict(PREMISES, HYPOTHESES)
    names = [n.lower() for n in ORDERS[order]]
    for i in range(len(PREMISES)):
        raw = direct_probs(model, clf.tokenizer, PREMISES[i], HYPOTHESES[i])
        expected = [raw[names.index(label)] for label in ("entailment", "neutral", "contradiction")]
        np.testing.assert_allclose(got[i], expected, rtol=1e-5, atol=1e-7)
    assert got.dtype == np.float64 and got.shape == (4, 3)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


def test_same_weights_same_probabilities_whatever_the_label_names():
    a = load_nli_model(str(tiny_nli_dir("snli")), device="cpu").predict(PREMISES, HYPOTHESES)
    b = load_nli_model(str(tiny_nli_dir("mnli")), device="cpu").predict(PREMISES, HYPOTHESES)
    # same logits; snli calls logit 0 entailment, mnli calls it contradiction
    np.testing.assert_allclose(a[:, [2, 1, 0]], b, rtol=1e-12)


def test_results_do_not_depend_on_the_batch_size():
    probe = load_probe("gender-occupation", premise_words=["accountant", "nurse", "firefighter"],
                       hypothesis_words=["man", "lady"])
    chunk = probe.chunk(0, 300)
    clf = load_nli_model(str(tiny_nli_dir()), device="cpu", token_budget=10_000)
    big = clf.predict(chunk.premises, chunk.hypotheses)
    passes_big = clf.forward_passes
    clf.token_budget, clf.forward_passes = 16, 0
    small = clf.predict(chunk.premises, chunk.hypotheses)
    assert clf.forward_passes > 10 * passes_big  # really different batches
    np.testing.assert_allclose(big, small, rtol=1e-5, atol=1e-7)
    one = np.vstack([clf.predict([p], [h]) for p, h in zip(chunk.premises[:20], chunk.hypotheses[:20], strict=True)])
    np.testing.assert_allclose(big[:20], one, rtol=1e-5, atol=1e-7)


def test_a_pair_too_long_is_named():
    clf = CrossEncoderNli.from_pretrained(str(tiny_nli_dir("snli", 20)), device="cpu")
    with pytest.raises(ValueError, match=r"pair 1 \('A nurse bought.*has \d+ tokens but .* at most 20"):
        clf.predict([*PREMISES[:1], "A nurse bought a car and a phone and a laptop and a jeep ."],
                    HYPOTHESES[:2])


def test_a_model_that_is_not_a_sequence_classifier_is_refused(tmp_path):
    import transformers

    tok = tiny_tokenizer()
    mlm = transformers.BertForMaskedLM(transformers.BertConfig(
        vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=32))
    with pytest.raises(TypeError, match="BertForMaskedLM is not a sequence classifier"):
        CrossEncoderNli(mlm, tok)
    mlm.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    with pytest.raises(TypeError, match="BertForMaskedLM, not a sequence classifier"):
        load_nli_model(str(tmp_path))


def test_unknown_names_and_other_registered_kinds_are_refused(tmp_path):
    with pytest.raises(ModelNotFoundError, match="registered static model, not an NLI classifier"):
        load_nli_model("glove-6b-50d")
    with pytest.raises(ModelNotFoundError, match="unknown NLI model"):
        load_nli_model(str(tmp_path / "nowhere"))


def test_explicit_labels_override_meaningless_names():
    tok = tiny_tokenizer()
    model = build_tiny_nli(tok, labels=("LABEL_0", "LABEL_1", "LABEL_2"))
    with pytest.raises(NliLabelError):
        CrossEncoderNli(model, tok)
    clf = CrossEncoderNli(model, tok, labels=("contradiction", "entailment", "neutral"), device="cpu")
    raw = direct_probs(model, tok, PREMISES[0], HYPOTHESES[0])
    np.testing.assert_allclose(clf.predict(PREMISES[:1], HYPOTHESES[:1])[0], raw[[1, 2, 0]], rtol=1e-5)


def test_debiasing_removes_the_he_she_component_from_every_word_embedding():
    clf = load_nli_model(str(tiny_nli_dir()), device="cpu")
    W = clf.input_embeddings()
    he, she = W[clf.token_id("he")], W[clf.token_id("she")]
    d = he / np.linalg.norm(he) - she / np.linalg.norm(she)
    b = d / np.linalg.norm(d)
    np.testing.assert_allclose(pair_direction(clf), b)
    deb = debias_input_embeddings(clf)
    W2 = deb.input_embeddings()
    np.testing.assert_allclose(W2 @ b, 0, atol=1e-6)
    np.testing.assert_allclose(W2, project_out(W, b), atol=1e-6)
    np.testing.assert_array_equal(clf.input_embeddings(), W)  # the original is untouched
    assert "debiased" in deb.name
    rnd = random_control(clf, seed=3)
    assert not np.allclose(rnd.input_embeddings(), W2)
    assert np.linalg.matrix_rank(rnd.input_embeddings() - W, tol=1e-4) == 1  # float32 rounding aside
    before, after = clf.predict(PREMISES, HYPOTHESES), deb.predict(PREMISES, HYPOTHESES)
    assert not np.allclose(before, after)


def test_debiasing_needs_embeddings():
    class Plain:
        name, description = "plain", ""

        def predict(self, p, h):
            return np.full((len(p), 3), 1 / 3)

    with pytest.raises(TypeError, match="no input word embeddings"):
        debias_input_embeddings(Plain())


def test_a_pickled_classifier_predicts_the_same():
    import pickle

    clf = load_nli_model(str(tiny_nli_dir()), device="cpu")
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(PREMISES, HYPOTHESES), clf.predict(PREMISES, HYPOTHESES))
