"""Arbitrary sentence pairs tokenised by the fast tokenizer's Rust backend (issue 29).

:func:`~embias_widgets.models.nli_classifiers.backend_pairs.backend_pair_encoding` must give the very ids and
token types of the tokenizer's own ``tokenizer(premises, hypotheses)`` (WordPiece with types 0 then 1, byte-level
BPE without), and a tokenizer whose own encoding differs from its backend's (Python-side preprocessing) must get
its own encoding back through ``encode_pairs``, and is not asked again.
"""

from __future__ import annotations

import numpy as np
import pytest
from _tiny_lm import one_thread
from _tiny_nli import build_tiny_nli, tiny_tokenizer

from embias_widgets.models.nli_classifiers import CrossEncoderNli, backend_pairs
from embias_widgets.models.nli_classifiers.backend_pairs import backend_pair_encoding
from embias_widgets.stimuli.nli_probes import load_probe

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
_single_thread = pytest.fixture(autouse=True)(one_thread)


def _pairs(n: int = 700) -> tuple[list[str], list[str]]:
    probe = load_probe("gender-occupation")
    rng = np.random.default_rng(0)
    pairs = [probe.pair(int(i)) for i in rng.choice(len(probe), size=n, replace=False)]
    odd = ["Naïve café owners — and 42 émigrés!", "A", "x " * 30]  # accents, one letter, a long text
    return [p.premise for p in pairs] + odd, [p.hypothesis for p in pairs] + odd[::-1]


def _own(tok, premises, hypotheses):
    enc = tok(premises, hypotheses, add_special_tokens=True, truncation=False, return_token_type_ids=True)
    return enc["input_ids"], enc.get("token_type_ids")


def test_wordpiece_pairs_match_the_tokenizers_own_encoding() -> None:
    tok = tiny_tokenizer()
    premises, hypotheses = _pairs()
    got = backend_pair_encoding(tok, premises, hypotheses)
    assert got is not None
    ids, types = _own(tok, premises, hypotheses)
    assert got[0] == ids and got[1] == types
    assert set(got[1][0]) == {0, 1}  # the hypothesis' tokens carry type 1


def test_byte_level_bpe_pairs_match_the_tokenizers_own_encoding() -> None:
    from _tiny_families import byte_level_bpe

    tok = byte_level_bpe()
    premises, hypotheses = _pairs(200)
    got = backend_pair_encoding(tok, premises, hypotheses)
    assert got is not None
    ids, types = _own(tok, premises, hypotheses)
    assert got[0] == ids and (got[1] == types or types is None)


def test_a_tokenizer_whose_backend_disagrees_gets_its_own_encoding(monkeypatch) -> None:
    class Shouts:  # Python-side preprocessing the backend does not do: "a" becomes "the" in hypotheses
        def __init__(self, tokenizer):
            self.inner = tokenizer
            self.backend_tokenizer = tokenizer.backend_tokenizer
            self.calls = 0

        def __call__(self, first, second=None, **kw):
            self.calls += 1
            return self.inner(first, None if second is None else [_the(s) for s in second], **kw)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    clf = CrossEncoderNli(build_tiny_nli(tiny_tokenizer()), tiny_tokenizer(), device="cpu", token_budget=512)
    shouting = Shouts(clf.tokenizer)
    premises, hypotheses = _pairs(100)
    assert backend_pair_encoding(shouting, premises, hypotheses) is None
    assert shouting in backend_pairs._DISAGREES
    clf.tokenizer = shouting
    calls = shouting.calls
    ids, types = clf.encode_pairs(premises, hypotheses)
    assert shouting.calls == calls + 1  # not checked again: one call of its own, the whole batch
    want = _own(shouting.inner, premises, [_the(h) for h in hypotheses])
    assert (ids, types) == want


def test_a_tokenizer_without_a_backend_is_not_touched() -> None:
    class Slow:  # a slow (pure Python) tokenizer has no backend_tokenizer
        def __call__(self, *a, **kw):
            raise AssertionError("not called")

    assert backend_pair_encoding(Slow(), ["A man."], ["A woman."]) is None


def _the(text: str) -> str:
    return text.replace("A ", "The ").replace(" a ", " the ")


def test_predict_is_unchanged_bit_for_bit(monkeypatch) -> None:
    """The probabilities of predict() through the backend equal those through the tokenizer's own call."""
    clf = CrossEncoderNli(build_tiny_nli(tiny_tokenizer()), tiny_tokenizer(), device="cpu", token_budget=512)
    premises, hypotheses = _pairs(300)
    fast = clf.predict(premises, hypotheses)
    monkeypatch.setattr("embias_widgets.models.nli_classifiers.cross_encoder.backend_pair_encoding",
                        lambda *a: None)
    np.testing.assert_array_equal(fast, clf.predict(premises, hypotheses))


def test_padding_and_the_cls_row_shortcut_key_an_objects_fingerprint() -> None:
    """Saved and resumed results are keyed by the object's content fingerprint: pad_to and cls_row change
    probabilities (by rounding), so they change the fingerprint; the same settings give the same one."""
    from embias_widgets.models.fingerprints import object_fingerprint

    model, tok = build_tiny_nli(tiny_tokenizer()), tiny_tokenizer()
    prints = {(pad, row): object_fingerprint(CrossEncoderNli(model, tok, device="cpu", pad_to=pad, cls_row=row))
              for pad in (None, 8) for row in (True, False)}
    assert len(set(prints.values())) == 4
    assert object_fingerprint(CrossEncoderNli(model, tok, device="cpu", pad_to=8)) == prints[(8, True)]
