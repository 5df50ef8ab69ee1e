"""A template probe's pairs as indices into sentence parts, tokenised once per part (issue 29, section 1).

``TemplateProbe.pair_parts`` must give the very sentences of ``iter_pairs``; the cross-encoder's
``predict_parts`` the very token ids (and so bit for bit the probabilities) of ``predict`` on those sentences,
for WordPiece (BERT: token types 0 then 1) and byte-level BPE (RoBERTa: ``<s> a </s></s> b </s>``); a
SentencePiece tokenizer whose pieces do not compose falls back to whole pairs. ``pack_lengths`` gives
``pack_by_length``'s batches.
"""

from __future__ import annotations

import numpy as np
import pytest
from _tiny_lm import one_thread
from _tiny_nli import build_tiny_nli, tiny_tokenizer

from embias_widgets.analysis.nli.chunks import score_chunk
from embias_widgets.models.language_models.batching import pack_by_length, pack_lengths
from embias_widgets.models.nli_classifiers import CrossEncoderNli
from embias_widgets.models.nli_classifiers.pair_tokens import PairTokens
from embias_widgets.stimuli.nli_probes import load_probe, user_probe

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
_single_thread = pytest.fixture(autouse=True)(one_thread)


@pytest.mark.parametrize("style", ["authors", "paper"])
@pytest.mark.parametrize("person", [False, True])
def test_pair_parts_are_the_sentences_of_iter_pairs(style, person) -> None:
    probe = user_probe(["nurse", "old doctor", "evil"], ["man", "woman"], style=style, person=person)
    for start, stop in ((0, len(probe)), (1000, 5000), (7, 8)):
        parts = probe.pair_parts(start, stop)
        pairs = list(probe.iter_pairs(start, stop))
        assert parts.premises() == [p.premise for p in pairs]
        assert parts.hypotheses() == [p.hypothesis for p in pairs]
        assert parts.pair_premise_words() == [p.premise_word for p in pairs]
        assert parts.pair_hypothesis_words() == [p.hypothesis_word for p in pairs]
    with pytest.raises(IndexError):
        probe.pair_parts(0, len(probe) + 1)


def test_pack_lengths_gives_the_batches_of_pack_by_length() -> None:
    rng = np.random.default_rng(0)
    for n in (0, 1, 5, 300, 3000):
        for budget in (1, 7, 50, 8192):
            lengths = rng.integers(1, 40, n)
            assert [b.tolist() for b in pack_lengths(lengths, budget)] == pack_by_length(lengths.tolist(), budget)


def _bert() -> CrossEncoderNli:
    return CrossEncoderNli(build_tiny_nli(tiny_tokenizer()), tiny_tokenizer(), device="cpu", token_budget=512)


def test_predict_parts_equals_predict_bit_for_bit_on_a_named_probe() -> None:
    clf = _bert()
    probe = load_probe("gender-occupation")
    pieces = PairTokens(clf.tokenizer)
    for start, stop in ((0, 300), (1_000_000, 1_000_300)):
        parts = probe.pair_parts(start, stop)
        ids, types = clf.encode_pairs(parts.premises(), parts.hypotheses())
        lengths, rows_of = pieces.assemble(parts)
        assert lengths.tolist() == [len(row) for row in ids]
        for i in range(0, len(parts), 37):  # each pair's assembled ids and types are the tokenizer's
            row_ids, row_types = rows_of(np.array([i]))
            assert row_ids[0].tolist() == ids[i] and row_types[0].tolist() == types[i]
        np.testing.assert_array_equal(clf.predict_parts(parts), clf.predict(parts.premises(), parts.hypotheses()))


def test_score_chunk_of_a_template_probe_equals_the_pairs_path() -> None:
    clf, probe = _bert(), user_probe(["nurse", "pilot"], ["man", "woman"])
    fast = score_chunk(clf, probe, 100, 1300, taus=(0.5,), top_k=3, per_pair=True)

    class Strings:  # the same source without pair_parts: the pair objects' path
        name = probe.name

        def chunk(self, a, b):
            return probe.chunk(a, b)

    slow = score_chunk(clf, Strings(), 100, 1300, taus=(0.5,), top_k=3, per_pair=True)
    np.testing.assert_array_equal(fast.probs, slow.probs)
    assert fast.stats.keys == slow.stats.keys
    np.testing.assert_array_equal(fast.stats.sums, slow.stats.sums)


def test_byte_level_bpe_pieces_compose_into_robertas_pair_encoding() -> None:
    from _tiny_families import SMALL, byte_level_bpe

    tok = byte_level_bpe()
    torch.manual_seed(0)
    config = transformers.RobertaConfig(vocab_size=len(tok), max_position_embeddings=66, pad_token_id=1,
                                        id2label={0: "entailment", 1: "neutral", 2: "contradiction"}, **SMALL)
    clf = CrossEncoderNli(transformers.RobertaForSequenceClassification(config).eval(), tok, device="cpu")
    parts = user_probe(["nurse", "pilot"], ["man", "woman"]).pair_parts(0, 600)
    pieces = PairTokens(tok)
    assert pieces.assemble(parts) is not None  # composes
    np.testing.assert_array_equal(clf.predict_parts(parts), clf.predict(parts.premises(), parts.hypotheses()))


def test_a_tokenizer_whose_pieces_do_not_compose_gets_whole_pairs() -> None:
    class Marks:  # marks the start of a text: "bought" at the start differs from "bought" inside a sentence
        def __init__(self, tokenizer):
            self.inner = tokenizer

        def __call__(self, first, second=None, **kw):
            if second is None and not kw.get("add_special_tokens", True):
                out = self.inner(first, **kw)
                out["input_ids"] = [[7, *row] for row in out["input_ids"]]
                return out
            return self.inner(first, second, **kw)

    parts = user_probe(["nurse"], ["man", "woman"]).pair_parts(0, 50)
    assert PairTokens(Marks(tiny_tokenizer())).assemble(parts) is None
    clf = _bert()
    clf.tokenizer = Marks(clf.tokenizer)
    plain = _bert()
    np.testing.assert_array_equal(clf.predict_parts(parts), plain.predict(parts.premises(), parts.hypotheses()))


def test_a_pair_too_long_is_named_on_the_parts_path() -> None:
    clf = _bert()
    clf.max_length = 12
    parts = user_probe(["nurse"], ["man"]).pair_parts(0, 10)
    with pytest.raises(ValueError, match=r"pair 0 \('A nurse bought .* takes at most 12"):
        clf.predict_parts(parts)


def _recording(logits_function, shapes):
    def function():
        inner = logits_function()
        return lambda input_ids, **kw: shapes.append(tuple(input_ids.shape)) or inner(input_ids, **kw)

    return function


def test_padded_length_buckets_agree_with_exact_length_batches() -> None:
    """``pad_to``: fewer, padded batches (an attention mask over the padding), the [CLS]-row shortcut and the
    full pass alike; float32 probabilities within 1e-5 of exact-length batches, the parts path equal to the
    string path bit for bit."""
    parts = load_probe("gender-occupation").pair_parts(0, 1200)
    exact = _bert()
    want = exact.predict_parts(parts)
    for cls_row in (True, False):
        padded = CrossEncoderNli(build_tiny_nli(tiny_tokenizer()), tiny_tokenizer(), device="cpu", token_budget=512,
                                 pad_to=8, cls_row=cls_row)
        shapes: list[tuple[int, int]] = []
        padded._logits_function = _recording(padded._logits_function, shapes)
        got = padded.predict_parts(parts)
        assert shapes and all(width % 8 == 0 for _, width in shapes)
        exact_lengths = {len(row) for row in exact.encode_pairs(parts.premises(), parts.hypotheses())[0]}
        assert len({width for _, width in shapes}) < len(exact_lengths)  # fewer distinct shapes
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)
        assert np.abs(got - want).max() > 0  # padding did change the arithmetic
        np.testing.assert_array_equal(padded.predict(parts.premises(), parts.hypotheses()), got)
    with pytest.raises(ValueError, match="pad_to"):
        CrossEncoderNli(build_tiny_nli(tiny_tokenizer()), tiny_tokenizer(), device="cpu", pad_to=0)
