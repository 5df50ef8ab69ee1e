"""Contextual sense prototypes: mean of the target word's token vectors over labelled sentences."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from _missing import skip_unless_ci
from _tiny_lm import one_thread, tiny_mlm_dir

from embias_widgets.models.errors import MissingSenseError
from embias_widgets.models.sense_vectors import ContextualSenseVectors, target_span
from embias_widgets.models.sentence_encoders import TransformerSentenceEncoder


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


@pytest.fixture(scope="module")
def encoder():
    return TransformerSentenceEncoder.from_pretrained(str(tiny_mlm_dir()), device="cpu")


def test_target_span_finds_inflections():
    assert target_span("She nursed the baby.", "nurse") == (4, 10)
    assert target_span("Black people are kind.", "black") == (0, 5)
    assert target_span("I like ice cream a lot", "ice_cream") == (7, 16)
    assert target_span("He is a judge.", "nurse") is None


def test_prototype_is_the_mean_of_target_token_vectors(encoder):
    protos = ContextualSenseVectors(encoder)
    sentences = ["She will nurse the sick child.", "He nursed his father back to health."]
    assert protos.add("nurse%2:29:00::", [*sentences, "A judge spoke."]) == 2
    assert "does not contain 'nurse'" in protos.skipped[0]
    expected = []
    tok = encoder.tokenizer
    for s in sentences:
        enc = tok(s, return_offsets_mapping=True, return_tensors="pt")
        offsets = enc.pop("offset_mapping")[0].tolist()
        lo, hi = target_span(s, "nurse")
        idx = [i for i, (a, b) in enumerate(offsets) if b > a and a < hi and b > lo]
        assert idx  # the word's word pieces
        with torch.inference_mode():
            h = encoder.model(**enc).last_hidden_state[0]
        expected.append(h[idx].mean(0).numpy())
    np.testing.assert_allclose(protos.vector("nurse%2:29:00::"), np.mean(expected, axis=0), atol=1e-5)
    assert protos.keys_of("nurse") == ["nurse%2:29:00::"]
    with pytest.raises(MissingSenseError, match="nurse%1:18:00::"):
        protos.vector("nurse%1:18:00::")


def test_wordnet_examples_and_labelled_sentences(encoder):
    from embias_widgets.stimuli.sense_sentences import sense_sentences
    from embias_widgets.stimuli.wordnet import WordNetNotFoundError, load_wordnet

    try:
        wn = load_wordnet()
    except WordNetNotFoundError as err:
        skip_unless_ci(str(err))
    protos = ContextualSenseVectors(encoder)
    protos.add_wordnet_examples(["black%3:00:01::"], wn)  # "black leather jackets", ...
    protos.add_labelled([s for s in sense_sentences(("race",)).sentences][:4])
    vectors = protos.vectors(["black%3:00:01::", "black%1:18:00::"])
    assert vectors.shape == (2, encoder.model.config.hidden_size)
    assert not np.allclose(vectors[0], vectors[1])
