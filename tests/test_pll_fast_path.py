"""The default PLL path (last layer at the masked rows only) against the reference, per model family.

For tiny seeded BERT-, RoBERTa- and ALBERT-shaped masked LMs (ALBERT with a factorised embedding, two layer
groups of two inner layers, so its shared layer is called several times per pass), every masked token's
``log P(w_i | S with w_i masked)`` from the default scorer equals (within 1e-5) the textbook loop re-implemented
here (one copy per pass through the whole model, full log-softmax over the vocabulary) and the scorer's own
full pass (``last_layer_rows=False``). The fast path must really run (``supports_last_rows`` and the encoder
loop of :mod:`~embias_widgets.models.language_models.encoder_loop`), really skip the last layer's feed-forward
block at the unmasked rows, and really embed each sentence once per batch (first-layer sharing); a sentence's
scores must not depend on its batch-mates beyond float rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from _tiny_families import wordpiece  # noqa: E402

from embias_widgets.models.language_models.head_split import last_layer  # noqa: E402
from embias_widgets.models.language_models.masked_lm import MaskedLMScorer  # noqa: E402

# several lengths in one call, and two sentences of one length (copies of both share batches)
SENTENCES = ["The doctor said he was tired.", "Nurses are kind to the patients they meet.", "A cat sat.",
             "A dog ran."]


@pytest.fixture(scope="module")
def tokenizer():
    """BERT's WordPiece over MiniLM's vocab.txt."""
    return wordpiece()


def _model(family: str, vocab: int) -> object:
    torch.manual_seed(0)
    shape = dict(vocab_size=vocab, hidden_size=32, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=64)
    if family == "bert":
        config = transformers.BertConfig(num_hidden_layers=3, **shape)
        return _random_biases(transformers.BertForMaskedLM(config).eval())
    if family == "roberta":  # BERT's vocabulary, so pad id 0; positions start after the padding index
        config = transformers.RobertaConfig(num_hidden_layers=3, pad_token_id=0, **shape)
        return _random_biases(transformers.RobertaForMaskedLM(config).eval())
    config = transformers.AlbertConfig(num_hidden_layers=4, num_hidden_groups=2, inner_group_num=2,
                                       embedding_size=16, hidden_act="gelu_new", **shape)
    return _random_biases(transformers.AlbertForMaskedLM(config).eval())


def _random_biases(model):
    """Non-zero biases and layer-norm shifts (they start at zero), so a path that drops one fails."""
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("bias"):
                param.normal_(0, 0.1)
    return model


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
    assert fast._head().encoder_loop(fast.mask_id) is not None, f"{family}: the encoder loop is not used"
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
    """The loop's last layer ends in one row per masked copy; every earlier call of that layer's output norm
    (ALBERT: its shared last layer at every depth of the last group) covers every row of every copy."""
    model = _model(family, tokenizer.vocab_size)
    layer = last_layer(model.base_model)
    assert layer is not None
    assert layer.calls == (2 if family == "albert" else 1)  # 4 depths over 2 groups: the last group twice
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    assert scorer._head().encoder_loop(scorer.mask_id) is not None  # built (and checked) before hooking
    shapes: list[tuple[int, ...]] = []
    handle = layer.output_norm.register_forward_hook(lambda m, args, out: shapes.append(tuple(args[0].shape)))
    try:
        (result,) = scorer.score_sentences(["A cat sat on the mat."], "pll")
    finally:
        handle.remove()
    copies, length = int(result.counted.sum()), len(result.tokenized)
    width = model.config.hidden_size
    assert shapes == [(copies * length, width)] * (layer.calls - 1) + [(copies, width)]


@pytest.mark.parametrize("family", ["bert", "roberta", "albert"])
def test_first_layer_is_shared_across_copies(family, tokenizer) -> None:
    """Embeddings (and layer 1's Q/K/V) run once per distinct sentence plus one [MASK] row, and give what
    embedding every copy would (within float rounding)."""
    model = _model(family, tokenizer.vocab_size)
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    loop = scorer._head().encoder_loop(scorer.mask_id)
    ids = torch.tensor([tokenizer(t)["input_ids"] for t in SENTENCES[2:]])  # two sentences of one length
    length = ids.shape[1]
    rows = torch.arange(2 * 3)
    original = ids.repeat_interleave(3, 0)
    positions = torch.tensor([1, 2, 3] * 2)
    masked = original.clone()
    masked[rows, positions] = scorer.mask_id
    embedded: list[tuple[int, ...]] = []
    plain = loop._embed
    loop._embed = lambda x: (embedded.append(tuple(x.shape)), plain(x))[1]
    with torch.inference_mode():
        shared = loop._first_layer_input(masked, original)
        assert embedded == [(2, length), (1, length)]  # the two sentences, the [MASK] row
        each = loop._first_layer_input(masked, None)
        assert embedded[-1] == (6, length)  # without sharing: every copy
        got = loop.last_rows(masked, rows, positions, original=original)
        want = scorer._head().last_rows(masked, rows, positions)
    loop._embed = plain
    for a, b in zip(shared, each, strict=True):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=0)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("family", ["bert", "roberta", "albert"])
def test_embeddings_by_hand_are_the_modules_bits(family, tokenizer) -> None:
    """The loop's embeddings (word + type 0, + position, layer norm) equal the model's embedding module bit for
    bit; RoBERTa's positions start after the padding id, and a row holding padding goes through the module."""
    from embias_widgets.models.language_models.encoder_loop import embedding_positions

    model = _model(family, tokenizer.vocab_size)
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    loop = scorer._head().encoder_loop(scorer.mask_id)
    emb = model.base_model.embeddings
    assert loop.positions == embedding_positions(emb) == ((1, 0) if family == "roberta" else (0, None))
    ids = torch.tensor([tokenizer(t)["input_ids"] for t in SENTENCES[2:]])
    calls: list[int] = []
    handle = emb.register_forward_hook(lambda *args: calls.append(1))
    try:
        with torch.inference_mode():
            got = loop._embed(ids)
            assert not calls  # by hand
            want = emb(input_ids=ids)
            want = loop.project(want) if loop.project is not None else want
            assert torch.equal(got, want)
            if family == "roberta":
                padded = ids.clone()
                padded[0, -1] = 0
                assert torch.equal(loop._embed(padded), emb(input_ids=padded)) and len(calls) == 3
    finally:
        handle.remove()


@pytest.mark.parametrize("family", ["bert", "albert"])
def test_distinct_sentences_from_the_caller_give_the_same_bits(family, tokenizer) -> None:
    """The copy plan's distinct sentences (first-appearance order) in place of ``torch.unique``'s (sorted), and
    the masked places from the caller in place of comparing the ids: the same layer-1 input, bit for bit, and the
    same as ``torch.where`` of every copy's rows (the composition before the masked rows were overwritten)."""
    from embias_widgets.models.language_models.copy_plan import CopyPlan

    model = _model(family, tokenizer.vocab_size)
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    loop = scorer._head().encoder_loop(scorer.mask_id)
    texts = [SENTENCES[3], SENTENCES[2]]  # reverse of sorted order, so the two orders differ
    groups = [(tuple(tokenizer(t)["input_ids"]), [(1,), (2,), (3,)]) for t in texts]
    plan = CopyPlan(groups, budget=10**6)
    (batch,) = plan.batches
    copies = plan.copies(torch, batch, "cpu")
    assert copies.mask is None and copies.also is None and copies.index.tolist() == [0, 0, 0, 1, 1, 1]
    assert torch.equal(copies.sentences[copies.index], copies.ids)
    assert copies.ids.tolist() == [list(ids) for ids, _ in groups for _ in range(3)]
    assert copies.positions.tolist() == [1, 2, 3] * 2
    rows, positions = torch.arange(6), copies.positions
    masked = copies.ids.clone()
    masked[rows, positions] = scorer.mask_id
    with torch.inference_mode():
        given = loop._first_layer_input(masked, copies.ids, (copies.sentences, copies.index))
        found = loop._first_layer_input(masked, copies.ids)
        flat = rows * masked.shape[1] + positions  # the masked places as the scorer passes them
        told = loop._first_layer_input(masked, copies.ids, (copies.sentences, copies.index), (flat, scorer.mask_id))
        each = loop._embed(masked).reshape(6 * masked.shape[1], -1)
        first = loop.layers[0]
        where = (masked != copies.ids).reshape(-1, 1)
        x_m = loop._embed(torch.full_like(masked[:1], scorer.mask_id)).expand(6, -1, -1).reshape(where.shape[0], -1)
        x_u = loop._embed(copies.sentences)[copies.index].reshape(where.shape[0], -1)
        composed = torch.where(where, x_m, x_u)
    for a, b, c in zip(given, found, told, strict=True):
        assert torch.equal(a, b) and torch.equal(a, c)
    assert torch.equal(given[0], composed)
    torch.testing.assert_close(given[0], each, atol=1e-6, rtol=0)
    torch.testing.assert_close(given[1], loop._linear(each, first.qkv_weight, first.qkv_bias), atol=1e-5, rtol=0)


@pytest.mark.parametrize("family", ["bert", "roberta", "albert"])
def test_scores_do_not_depend_on_batch_mates(family, tokenizer) -> None:
    """One sentence scored alone, with other sentences of its length (shared batches) and of other lengths."""
    model = _model(family, tokenizer.vocab_size)
    alone = MaskedLMScorer(model, tokenizer, device="cpu", progress=False).score_sentences([SENTENCES[2]])
    crowd = MaskedLMScorer(model, tokenizer, device="cpu", progress=False).score_sentences(SENTENCES * 3)
    for other in (crowd[2], crowd[6], crowd[10]):
        np.testing.assert_allclose(other.log_probs, alone[0].log_probs, atol=1e-6, rtol=0)


def test_the_loop_is_not_used_where_it_disagrees_or_cannot_run(tokenizer) -> None:
    """A failed one-time check, float64 weights or training mode: the model's own layers run instead."""
    from embias_widgets.models.language_models.encoder_loop import EncoderLoop

    model = _model("bert", tokenizer.vocab_size)
    probe = tokenizer("A cat sat on the mat.")["input_ids"]
    split = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)._head()
    mask = tokenizer.mask_token_id
    assert EncoderLoop.build(model.base_model, probe, mask, split.last_rows) is not None
    wrong = lambda *args: split.last_rows(*args) + 1e-2  # noqa: E731
    assert EncoderLoop.build(model.base_model, probe, mask, wrong) is None
    assert EncoderLoop.build(model.base_model.double(), probe, mask, split.last_rows) is None
    model.float().train()
    try:
        assert EncoderLoop.build(model.base_model, probe, mask, split.last_rows) is None
    finally:
        model.eval()


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
