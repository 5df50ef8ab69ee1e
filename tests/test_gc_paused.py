"""The language-model scorers pause Python's cyclic garbage collector while they score
(:func:`embias_widgets.models.runtime.gc_paused`): it is paused inside, as it was after (also after an error,
and left alone when the caller paused it), and the scoring paths make no reference cycles, so nothing waits
for the collector while it is paused."""

from __future__ import annotations

import gc

import pytest
import torch  # test extra: a missing install fails, never skips
import transformers
from _tiny_families import family_model, wordpiece

from embias_widgets.models.language_models.causal_lm import CausalLMScorer
from embias_widgets.models.language_models.masked_lm import MaskedLMScorer
from embias_widgets.models.runtime import gc_paused

SENTENCES = ["The doctor said he was tired.", "Nurses are kind to the patients they meet.", "A cat sat."]
PAIRS = [("She is a nurse.", "He is a nurse."), ("Poor people steal.", "Rich people steal.")]


def test_paused_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("scoring failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the caller's choice stays
    finally:
        gc.enable()


@pytest.fixture(scope="module")
def scorers():
    torch.manual_seed(0)
    tok = wordpiece()
    config = transformers.BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=4, intermediate_size=64, max_position_embeddings=64)
    masked = MaskedLMScorer(transformers.BertForMaskedLM(config).eval(), tok, device="cpu", progress=False)
    causal = CausalLMScorer(*family_model("llama"), device="cpu", progress=False)
    return masked, causal


def test_scoring_makes_no_reference_cycles(scorers, monkeypatch) -> None:
    """Every metric of both scorers, each from nothing cached, runs with the collector paused; run again with it
    paused by the test, a collection afterwards finds nothing to free."""
    masked, causal = scorers
    seen: list[bool] = []
    original = MaskedLMScorer.masked_log_probs

    def watched(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MaskedLMScorer, "masked_log_probs", watched)
    gc.collect()
    for metric in ("pll", "pll-word-l2r", "aul", "aula"):
        masked.score_sentences(SENTENCES, metric)
    masked.score_pairs(PAIRS, "cps")
    causal.score_sentences(SENTENCES)
    causal.score_pairs(PAIRS)
    assert seen and not any(seen)  # paused inside every call
    assert gc.isenabled()
    gc.disable()
    try:
        for metric in ("pll", "pll-word-l2r", "aul", "aula"):
            masked._masked.clear()
            masked._unmasked.clear()
            masked._tokenized.clear()
            masked.score_sentences(SENTENCES, metric)
        masked._masked.clear()
        masked.score_pairs(PAIRS, "cps")
        for score in (causal.score_sentences, causal.score_pairs):
            causal._passes.clear()
            causal._tokenized.clear()
            score(SENTENCES if score == causal.score_sentences else PAIRS)
        assert gc.collect() == 0
    finally:
        gc.enable()
