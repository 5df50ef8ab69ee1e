"""DeBERTa-v3, XLM-R, DistilBERT, ELECTRA (generator), Llama and Mistral scorers against the reference loops.

Each family: a tiny random model with a tokenizer trained offline (:mod:`_tiny_families`), saved to a
directory and loaded by path through ``load_likelihood_model`` (what a hub name resolves to). Masked LMs:
CrowS-Pairs' ``metric.py`` (``mask_unigram`` + ``get_log_prob_unigram``), re-implemented line by line, for
CPS on pairs and, with every non-special position masked, for PLL. Causal LMs: lm-evaluation-harness's
``loglikelihood`` with an empty context (``prefix_token_id`` + the sentence's tokens without special
tokens, one pass, ``log_softmax``, the continuation's rows). Per sentence within 1e-5.
"""

from __future__ import annotations

import difflib

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from _tiny_families import CAUSAL_FAMILIES, MASKED_FAMILIES, PAIRS, SENTENCES, family_dir, family_model  # noqa: E402
from _tiny_lm import one_thread  # noqa: E402

from embias_widgets.models.language_models.causal_lm import CausalLMScorer  # noqa: E402
from embias_widgets.models.language_models.loading import load_likelihood_model  # noqa: E402
from embias_widgets.models.language_models.masked_lm import MaskedLMScorer  # noqa: E402

_single_thread = pytest.fixture(autouse=True)(one_thread)
#: The most tokens each family's tiny config takes (RoBERTa-style models reserve padding_idx + 1 positions).
LIMITS = {"deberta-v3": 64, "xlm-roberta": 64, "distilbert": 64, "electra-generator": 64, "llama": 48,
          "mistral": 48}


# -- CrowS-Pairs' metric.py, line by line ------------------------------------------------------------------
def get_log_prob_unigram(masked_token_ids, token_ids, mask_idx, model):
    output = model(masked_token_ids)
    hidden_states = output[0].squeeze(0)
    hs = hidden_states[mask_idx]
    target_id = token_ids[0][mask_idx]
    return torch.nn.LogSoftmax(dim=0)(hs.double())[target_id]


def get_span(seq1, seq2):
    seq1 = [str(x) for x in seq1.tolist()]
    seq2 = [str(x) for x in seq2.tolist()]
    matcher = difflib.SequenceMatcher(None, seq1, seq2)
    template1, template2 = [], []
    for op in matcher.get_opcodes():
        if op[0] == "equal":
            template1 += [x for x in range(op[1], op[2], 1)]
            template2 += [x for x in range(op[3], op[4], 1)]
    return template1, template2


def mask_unigram(sent1, sent2, model, tokenizer):
    sent1_token_ids = tokenizer.encode(sent1, return_tensors="pt")
    sent2_token_ids = tokenizer.encode(sent2, return_tensors="pt")
    template1, template2 = get_span(sent1_token_ids[0], sent2_token_ids[0])
    N = len(template1)
    mask_id = tokenizer.mask_token_id
    sent1_log_probs, sent2_log_probs = 0.0, 0.0
    with torch.no_grad():
        for i in range(1, N - 1):  # skipping CLS and SEP tokens, they'll never be masked
            sent1_masked_token_ids = sent1_token_ids.clone().detach()
            sent2_masked_token_ids = sent2_token_ids.clone().detach()
            sent1_masked_token_ids[0][template1[i]] = mask_id
            sent2_masked_token_ids[0][template2[i]] = mask_id
            sent1_log_probs += get_log_prob_unigram(sent1_masked_token_ids, sent1_token_ids, template1[i], model).item()
            sent2_log_probs += get_log_prob_unigram(sent2_masked_token_ids, sent2_token_ids, template2[i], model).item()
    return sent1_log_probs, sent2_log_probs


def crows_pll(sentence, model, tokenizer):
    """metric.py's loop with every position between [CLS] and [SEP] masked (a sentence against itself)."""
    token_ids = tokenizer.encode(sentence, return_tensors="pt")
    total = 0.0
    with torch.no_grad():
        for i in range(1, token_ids.shape[1] - 1):
            masked = token_ids.clone().detach()
            masked[0][i] = tokenizer.mask_token_id
            total += get_log_prob_unigram(masked, token_ids, i, model).item()
    return total


# -- lm-evaluation-harness's loglikelihood (HFLM._loglikelihood_tokens), line by line ----------------------
def harness_loglikelihood(context, continuation, model, tokenizer, max_length):
    prefix_token_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    if context == "":
        context_enc, continuation_enc = [prefix_token_id], tokenizer(continuation, add_special_tokens=False).input_ids
    else:
        raise NotImplementedError
    inp = torch.tensor((context_enc + continuation_enc)[-(max_length + 1) :][:-1], dtype=torch.long)
    (inplen,) = inp.shape
    contlen = len(continuation_enc)
    with torch.no_grad():
        logits = torch.nn.functional.log_softmax(model(inp[None]).logits.double(), dim=-1)[0]
    logits = logits[inplen - contlen : inplen].unsqueeze(0)
    cont_toks = torch.tensor(continuation_enc, dtype=torch.long).unsqueeze(0)
    return float(torch.gather(logits, 2, cont_toks.unsqueeze(-1)).squeeze(-1).sum())


@pytest.mark.parametrize("family", MASKED_FAMILIES)
def test_masked_families_match_crows_pairs(family: str) -> None:
    scorer = load_likelihood_model(str(family_dir(family)), device="cpu", progress=False)
    assert isinstance(scorer, MaskedLMScorer)
    model, tokenizer = family_model(family)
    if family in LIMITS:
        assert scorer.max_length == LIMITS[family]  # from the config, through models.runtime.input_length
    for scored, (more, less) in zip(scorer.score_pairs(PAIRS, metric="cps"), PAIRS, strict=True):
        ref_more, ref_less = mask_unigram(more, less, model, tokenizer)
        assert scored.stereo.score == pytest.approx(ref_more, abs=1e-5)
        assert scored.anti.score == pytest.approx(ref_less, abs=1e-5)
    for scored, sentence in zip(scorer.score_sentences(SENTENCES, metric="pll"), SENTENCES, strict=True):
        assert scored.score == pytest.approx(crows_pll(sentence, model, tokenizer), abs=1e-5)
        # the special tokens (first and last) are never scored
        assert not scored.counted[0] and not scored.counted[-1] and scored.counted[1:-1].all()


@pytest.mark.parametrize("family", CAUSAL_FAMILIES)
def test_causal_families_match_lm_evaluation_harness(family: str) -> None:
    scorer = load_likelihood_model(str(family_dir(family)), device="cpu", progress=False)
    assert isinstance(scorer, CausalLMScorer)
    model, tokenizer = family_model(family)
    assert tokenizer.pad_token_id is None  # Llama/Mistral ship none: scoring must not pad
    assert scorer.max_length == LIMITS[family]
    ours = scorer.score_sentences(SENTENCES, metric="pll")  # three lengths in one call
    for scored, sentence in zip(ours, SENTENCES, strict=True):
        assert scored.tokenized.ids[0] == tokenizer.bos_token_id  # the tokenizer's own <s>, not a second one
        assert scored.tokenized.ids.count(tokenizer.bos_token_id) == 1
        ref = harness_loglikelihood("", sentence, model, tokenizer, scorer.max_length)
        assert scored.score == pytest.approx(ref, abs=1e-5)
    pair = scorer.score_pairs(PAIRS[:1], metric="pll")[0]
    assert pair.stereo.score == pytest.approx(harness_loglikelihood("", PAIRS[0][0], model, tokenizer, 48), abs=1e-5)


def test_without_bos_the_sentence_starts_from_eos_as_the_harness() -> None:
    """A tokenizer with no begin-of-sequence token (GPT-2-like byte-level BPE): the end-of-sequence token is
    the context of the first token, as lm-evaluation-harness's ``prefix_token_id``."""
    import transformers
    from _tiny_families import byte_level_bpe

    tokenizer = byte_level_bpe()
    tokenizer._tokenizer.post_processor = None  # GPT-2 adds no special tokens
    tokenizer.bos_token = None
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                                      max_position_embeddings=48, bos_token_id=None,
                                      eos_token_id=tokenizer.eos_token_id)
    model = transformers.LlamaForCausalLM(config).eval()
    scorer = CausalLMScorer(model, tokenizer, device="cpu", progress=False)
    scored = scorer.score_sentences(SENTENCES[:1])[0]
    assert scored.tokenized.ids[0] == tokenizer.eos_token_id and scored.counted[1:].all()
    assert scored.score == pytest.approx(harness_loglikelihood("", SENTENCES[0], model, tokenizer, 48), abs=1e-5)


@pytest.mark.parametrize("family", ["deberta-v3", "llama"])
def test_too_long_sentences_name_the_config_limit(family: str) -> None:
    scorer = load_likelihood_model(str(family_dir(family)), device="cpu", progress=False)
    with pytest.raises(ValueError, match=f"the model takes at most {LIMITS[family]}"):
        scorer.tokenize(" ".join(["the souvenir shop"] * 30))


def test_from_pretrained_by_path_is_the_same_scorer() -> None:
    path = str(family_dir("xlm-roberta"))
    direct = MaskedLMScorer.from_pretrained(path, device="cpu", progress=False)
    loaded = load_likelihood_model(path, device="cpu", progress=False)
    assert direct.name == loaded.name == path
    a, b = (s.score_sentences(SENTENCES[:1], metric="pll")[0].score for s in (direct, loaded))
    assert a == b


def test_an_electra_discriminator_is_refused_with_the_generator_named(tmp_path) -> None:
    """A discriminator has no MLM head: loading it as a masked LM would score with a random head."""
    import transformers

    config = transformers.ElectraConfig(vocab_size=100, embedding_size=16, hidden_size=32, num_hidden_layers=1,
                                        num_attention_heads=2, intermediate_size=64)
    transformers.ElectraForPreTraining(config).save_pretrained(tmp_path)
    family_model("electra-generator")[1].save_pretrained(tmp_path)
    with pytest.raises(ValueError, match=r"ELECTRA discriminator .* no masked-LM head.*electra-base-generator"):
        load_likelihood_model(str(tmp_path), device="cpu", progress=False)
