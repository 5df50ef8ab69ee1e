"""The decoder run in vocabulary blocks (:mod:`embias_widgets.models.language_models.vocab_blocks`).

``log P(t | h) = z_t - logsumexp(z)`` with ``z = W h + b``, blocks of the vocabulary combined in float64: compared
with the same formula in float64 (the exact value of these float32 inputs), with the unblocked float32
computation it replaces, per model family's real prediction head (BERT, RoBERTa, ALBERT's factorised head,
GPT-2's bare ``lm_head``), and through the scorers (the head queue must not change a value).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch  # test extra: a missing install fails, never skips
import transformers

from embias_widgets.models.language_models import vocab_blocks
from embias_widgets.models.language_models.head_split import HeadSplit
from embias_widgets.models.language_models.masked_lm import MaskedLMScorer
from embias_widgets.models.language_models.vocab_blocks import (
    HeadQueue,
    decoder_input,
    output_decoder,
    target_log_probs,
)

VOCAB = 5003  # not a multiple of any block: the last block is ragged
PROBE = [2, 17, 240, 9, 1033, 4999, 3]


def _exact(x, weight, bias, targets) -> torch.Tensor:
    """The formula in float64 from the same (float32) inputs."""
    logits = x.double() @ weight.double().T + (0 if bias is None else bias.double())
    return torch.log_softmax(logits, dim=-1).gather(1, targets[:, None])[:, 0]


def _inputs(rows: int = 300, width: int = 48, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, width, generator=g) * 2
    weight = torch.randn(VOCAB, width, generator=g) * 0.3
    bias = torch.randn(VOCAB, generator=g)
    targets = torch.randint(0, VOCAB, (rows,), generator=g)
    targets[:6] = torch.tensor([0, VOCAB - 1, 511, 512, 1023, 1024])  # block edges at 512 entries
    return x, weight, bias, targets


@pytest.mark.parametrize("block", [7, 512, vocab_blocks.BLOCK, 10**6])
@pytest.mark.parametrize("with_bias", [True, False])
def test_blocks_equal_the_formula_in_float64(block, with_bias) -> None:
    x, weight, bias, targets = _inputs()
    bias = bias if with_bias else None
    got = target_log_probs(x, weight, bias, targets, block=block)
    want = _exact(x, weight, bias, targets)
    assert got.dtype == torch.float64 and got.shape == targets.shape
    logits = torch.nn.functional.linear(x, weight, bias)  # the float32 computation the blocks replace
    old = (logits.gather(1, targets[:, None])[:, 0] - torch.logsumexp(logits, dim=-1)).double()
    ours, theirs = (got - want).abs(), (old - want).abs()
    assert float(ours.max()) < 1e-5
    assert float(ours.mean()) <= float(theirs.mean())  # no float32 rounding of logsumexp or of the result


@pytest.mark.parametrize(("scale", "shift", "every"), [(60.0, 0.0, 2), (1.0, 150.0, 2), (1.0, -150.0, 1),
                                                       (1.0, -95.0, 1)])
def test_rows_that_need_the_maximum_get_it(scale, shift, every) -> None:
    """On the CPU a block's ``exp`` skips its maximum, and rows whose total overflows (logits past 88.7) or falls
    below 1 (every logit far below 0: terms lost below float32's range, or all of them at -150) run again with
    it: each row still equals the formula in float64. Half the rows are scaled, so both kinds share a tile."""
    x, weight, bias, targets = _inputs(rows=40)
    x[::2] *= scale
    bias = bias + shift * (torch.arange(VOCAB) % every == 0)  # every entry, or half (then no row is uniform)
    got = target_log_probs(x, weight, bias, targets, block=512)
    want = _exact(x, weight, bias, targets)
    assert bool(torch.isfinite(got).all())
    torch.testing.assert_close(got, want, atol=2e-5 * float(want.abs().max() + 1), rtol=0)


def test_bias_folded_into_the_gemm_changes_no_value(monkeypatch) -> None:
    """At most FOLDED_BIAS_WIDTH wide (48 here) the CPU path multiplies ``[x, 1]`` by ``[W, b]``: the same values
    as adding the bias after the GEMM (bit for bit with this machine's MKL, which adds the bias last either
    way; asserted to float32 rounding, as another BLAS may order the sum otherwise)."""
    x, weight, bias, targets = _inputs(rows=120)
    assert x.shape[1] <= vocab_blocks.FOLDED_BIAS_WIDTH
    folded = target_log_probs(x, weight, bias, targets, block=512)
    monkeypatch.setattr(vocab_blocks, "FOLDED_BIAS_WIDTH", 0)
    added = target_log_probs(x, weight, bias, targets, block=512)
    torch.testing.assert_close(folded, added, atol=1e-6 * float(added.abs().max()), rtol=0)
    torch.testing.assert_close(folded, _exact(x, weight, bias, targets), atol=1e-5, rtol=0)


def test_folded_weight_follows_in_place_updates() -> None:
    """``[W, b]`` is kept between calls, and made anew when either tensor changes in place (a fine-tuning step)
    or another bias comes with the same weight: every call equals the formula for the tensors as they are then."""
    x, weight, bias, targets = _inputs(rows=60)
    weight, bias = torch.nn.Parameter(weight), torch.nn.Parameter(bias)  # the objects a model's decoder holds
    other = bias.detach() * 0 + 3.0 * (torch.arange(VOCAB) % 3 == 0)
    with torch.no_grad():
        for step in range(5):
            b = other if step == 4 else bias
            got = target_log_probs(x, weight, b, targets, block=512)
            assert vocab_blocks._FOLDED[id(weight), 512][1] is b
            torch.testing.assert_close(got, _exact(x, weight.detach(), b.detach(), targets), atol=1e-5, rtol=0)
            (bias if step % 2 else weight).mul_(1.5)


def test_float64_inputs_give_float64_log_softmax() -> None:
    x, weight, bias, targets = (t.double() if t.is_floating_point() else t for t in _inputs(rows=40))
    got = target_log_probs(x, weight, bias, targets, block=7)
    torch.testing.assert_close(got, _exact(x, weight, bias, targets), atol=1e-12, rtol=0)


def _lm(family: str):
    torch.manual_seed(0)
    small = dict(vocab_size=VOCAB, hidden_size=32, num_attention_heads=4, intermediate_size=64,
                 max_position_embeddings=64, num_hidden_layers=2)
    if family == "bert":
        model = transformers.BertForMaskedLM(transformers.BertConfig(**small))
    elif family == "roberta":
        model = transformers.RobertaForMaskedLM(transformers.RobertaConfig(pad_token_id=1, **small))
    elif family == "albert":
        model = transformers.AlbertForMaskedLM(transformers.AlbertConfig(embedding_size=16, **small))
    else:
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2,
                                                                     n_head=4, n_positions=64))
    with torch.no_grad():  # non-zero biases, so a path that drops one fails
        for name, param in model.named_parameters():
            if name.endswith("bias"):
                param.normal_(0, 0.1)
    return model.eval()


@pytest.mark.parametrize("family", ["bert", "roberta", "albert", "gpt2"])
def test_decoder_input_is_what_the_head_feeds_its_decoder(family) -> None:
    model = _lm(family)
    split = HeadSplit(model, probe_ids=PROBE)
    assert split.split and split.decoder is model.get_output_embeddings()
    assert (split.decoder is split.head) == (family == "gpt2")  # GPT-2's head is the bare decoder
    states = torch.randn(9, 32)
    with torch.inference_mode():
        torch.testing.assert_close(split.decoder(decoder_input(split.head, split.decoder, states)),
                                   split.head(states), atol=0, rtol=0)


@pytest.mark.parametrize("family", ["bert", "roberta", "albert", "gpt2"])
def test_head_split_runs_the_blocks_on_the_cpu(family) -> None:
    model = _lm(family)
    split = HeadSplit(model, probe_ids=PROBE)
    torch.manual_seed(1)
    states = torch.randn(700, 32)
    targets = torch.randint(0, VOCAB, (700,))
    with torch.inference_mode():
        assert split.vocab_blocks(states)
        assert not split.vocab_blocks(states.half())  # other precisions: the whole logits
        got = split.log_probs(states, targets)
        logits = split.head(states).double()
        want = logits.gather(1, targets[:, None])[:, 0] - torch.logsumexp(logits, dim=-1)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=0)


def test_a_head_that_changes_the_logits_after_its_decoder_is_not_blocked() -> None:
    """The one-time check compares with the head's own logits: here a temperature after the decoder."""
    model = _lm("bert")
    plain = model.cls.forward
    model.cls.forward = lambda states: plain(states) / 2.0
    split = HeadSplit(model, probe_ids=PROBE)
    assert split.split and split.decoder is not None
    states, targets = torch.randn(20, 32), torch.arange(20)
    with torch.inference_mode():
        assert not split.vocab_blocks(states)
        got = split.log_probs(states, targets)
        want = torch.log_softmax(model.cls(states).double(), dim=-1)[torch.arange(20), targets]
    torch.testing.assert_close(got, want, atol=1e-5, rtol=0)


def test_no_decoder_no_blocks() -> None:
    class Head(torch.nn.Module):
        def forward(self, states):
            return states

    assert output_decoder(_lm("bert"), Head()) is None  # the model's decoder is not inside this head
    assert output_decoder(torch.nn.Identity(), torch.nn.Identity()) is None


def test_the_queue_gathers_batches_without_changing_a_value() -> None:
    split = HeadSplit(_lm("bert"), probe_ids=PROBE)
    torch.manual_seed(2)
    batches = [(torch.randn(n, 32), torch.randint(0, VOCAB, (n,))) for n in (7, 30, 12, 41, 3)]
    calls: list[int] = []

    def counted(states, targets):
        calls.append(states.shape[0])
        return split.log_probs(states, targets)

    queue = HeadQueue(counted, rows=45)
    with torch.inference_mode():
        for b, (states, targets) in enumerate(batches):
            assert queue.add([(b, i) for i in range(len(states))], states, targets) is None
        assert calls == [49]  # the head ran once 45 rows waited; its values stay where they were computed
        done = queue.flush()  # the rest, and every value brought over in one copy
        assert queue.flush() == []
        alone = {(b, i): float(v) for b, (s, t) in enumerate(batches) for i, v in enumerate(split.log_probs(s, t))}
    assert calls == [49, 44]  # 7+30+12 >= 45, then 41+3 at the end
    assert len(done) == len(alone) and dict(done).keys() == alone.keys()
    for key, value in done:  # a row's value depends on its batch-mates only through the GEMM's rounding
        assert value == pytest.approx(alone[key], abs=1e-6, rel=0)


def test_the_scorer_runs_the_head_once_per_queue_not_per_batch(monkeypatch) -> None:
    from _tiny_families import wordpiece

    tokenizer = wordpiece()
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_attention_heads=4,
                                     intermediate_size=64, max_position_embeddings=64, num_hidden_layers=2)
    model = transformers.BertForMaskedLM(config).eval()
    sentences = ["A cat sat.", "The doctor said he was tired.", "Nurses are kind to the patients they meet."]
    calls: list[int] = []
    plain = HeadSplit.log_probs

    def counted(self, states, targets):
        calls.append(states.shape[0])
        return plain(self, states, targets)

    monkeypatch.setattr(HeadSplit, "log_probs", counted)
    queued = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    got = queued.score_sentences(sentences, "pll")
    assert queued.forward_passes == 3 and calls == [sum(len(r.tokenized) - 2 for r in got)]  # 3 lengths, 1 call
    each = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    each._head().chunk = 1  # the queue flushes after every batch
    calls.clear()
    for a, b in zip(got, each.score_sentences(sentences, "pll"), strict=True):
        np.testing.assert_allclose(a.log_probs, b.log_probs, atol=1e-6, rtol=0)
    assert len(calls) == 3


def test_row_tiles_change_no_value(monkeypatch) -> None:
    """The CPU path splits 500 rows into equal tiles of at most ROW_TILE (250 + 250): the same bits as one call of
    500 rows (so a row's value does not depend on the tiling)."""
    assert 250 <= vocab_blocks.ROW_TILE < 500
    x, weight, bias, targets = _inputs(rows=500)
    tiled = target_log_probs(x, weight, bias, targets, block=512)
    monkeypatch.setattr(vocab_blocks, "ROW_TILE", 10**6)
    whole = target_log_probs(x, weight, bias, targets, block=512)
    assert torch.equal(tiled, whole)
    torch.testing.assert_close(tiled, _exact(x, weight, bias, targets), atol=1e-5, rtol=0)
