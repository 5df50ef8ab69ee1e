"""PLL-word-l2r (Kauf & Ivanova 2023) against a line-by-line re-implementation of its definition.

For each scored token t of a sentence, one copy of the sentence with t and the later tokens of t's
word masked (words from the tokenizer's ``word_ids()``, as minicons' ``within_word_l2r``), the whole
model run on it, ``log_softmax`` over the vocabulary at t: the sentence score is the sum. Tiny random
models with real tokenizers trained offline (WordPiece, byte-level BPE, SentencePiece).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from _tiny_families import CORPUS, SENTENCES, family_model  # noqa: E402
from _tiny_lm import one_thread  # noqa: E402

from embias_widgets.models.language_models.masked_lm import MaskedLMScorer  # noqa: E402
from embias_widgets.models.language_models.scoring import MASKED_METRICS, PLL_WORD_L2R  # noqa: E402
from embias_widgets.models.language_models.word_l2r import (  # noqa: E402
    l2r_masks,
    tokenizer_family,
    words_from_tokens,
)

FAMILIES = ("distilbert", "roberta", "deberta-v3")
_single_thread = pytest.fixture(autouse=True)(one_thread)


def reference_pll_word_l2r(model, tokenizer, sentence: str) -> float:
    """The definition, one masked copy and one full forward pass per scored token."""
    enc = tokenizer(sentence, return_special_tokens_mask=True)
    ids = enc["input_ids"]
    word_ids = enc.word_ids()
    targets = [i for i, special in enumerate(enc["special_tokens_mask"]) if not special]
    total = 0.0
    for t in targets:
        masked = list(ids)
        masked[t] = tokenizer.mask_token_id
        for j in range(t + 1, targets[-1] + 1):
            if word_ids[j] is not None and word_ids[j] == word_ids[t]:
                masked[j] = tokenizer.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([masked])).logits[0, t]
        total += float(torch.log_softmax(logits.double(), dim=-1)[ids[t]])
    return total


@pytest.mark.parametrize("family", FAMILIES)
def test_scores_match_the_definition(family: str) -> None:
    model, tokenizer = family_model(family)
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False, token_budget=64)
    ours = scorer.score_sentences(SENTENCES, metric=PLL_WORD_L2R)
    for sentence, scores in zip(SENTENCES, ours, strict=True):
        assert scores.metric == PLL_WORD_L2R
        assert scores.score == pytest.approx(reference_pll_word_l2r(model, tokenizer, sentence), abs=1e-5)
    original = scorer.score_sentences(SENTENCES, metric="pll")
    # every test sentence has a word of several tokens, so the two metrics differ
    assert all(abs(a.score - b.score) > 1e-4 for a, b in zip(ours, original, strict=True))


def test_one_token_words_give_the_original_pll() -> None:
    """With no word split into pieces, nothing more is masked: PLL-word-l2r is PLL, bit for bit."""
    model, tokenizer = family_model("distilbert")
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    sentence = "she is a nurse."
    assert all(w is not None for w, sp in zip(scorer.tokenize(sentence).word_ids, scorer.tokenize(sentence).special,
                                               strict=True) if not sp)
    assert len(set(w for w in scorer.tokenize(sentence).word_ids if w is not None)) == 5  # 5 words, 5 tokens
    l2r, pll = (scorer.score_sentences([sentence], metric=m)[0].score for m in (PLL_WORD_L2R, "pll"))
    assert l2r == pll


def test_pairs_and_the_metric_list() -> None:
    model, tokenizer = family_model("roberta")
    scorer = MaskedLMScorer(model, tokenizer, device="cpu", progress=False)
    assert PLL_WORD_L2R in scorer.metrics == MASKED_METRICS
    pair = (SENTENCES[0], "The souvenir shop was open.")
    scored = scorer.score_pairs([pair], metric=PLL_WORD_L2R)[0]
    assert scored.stereo.score == pytest.approx(reference_pll_word_l2r(model, tokenizer, pair[0]), abs=1e-5)
    assert scored.anti.score == pytest.approx(reference_pll_word_l2r(model, tokenizer, pair[1]), abs=1e-5)
    assert scored.anti.modified.any() and not scored.stereo.modified[1]


def test_masks_of_a_three_piece_word() -> None:
    """"souvenir" -> so ##uven ##ir: so masks ##uven and ##ir; ##uven masks ##ir; ##ir only itself."""
    word_ids = (None, 0, 1, 1, 1, 2, None)  # [CLS] the so ##uven ##ir shop [SEP]
    assert l2r_masks(word_ids, [1, 2, 3, 4, 5]) == [(), (3, 4), (4,), (), ()]


@pytest.mark.parametrize("family", FAMILIES)
def test_token_string_fallback_agrees_with_word_ids(family: str) -> None:
    """Without word ids (slow tokenizers), the ``##`` / ``Ġ`` / ``▁`` rules give the same words here."""
    _, tokenizer = family_model(family)
    kind = tokenizer_family([], tokenizer.get_vocab())
    assert kind == {"distilbert": "wordpiece", "roberta": "bpe", "deberta-v3": "sentencepiece"}[family]
    for sentence in SENTENCES + CORPUS:
        enc = tokenizer(sentence, return_special_tokens_mask=True)
        tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"])
        special = [bool(s) for s in enc["special_tokens_mask"]]
        assert list(words_from_tokens(tokens, special, kind)) == enc.word_ids(), sentence


def test_causal_models_refuse_it_with_the_reason() -> None:
    from embias_widgets.models.language_models.causal_lm import CausalLMScorer

    model, tokenizer = family_model("llama")
    scorer = CausalLMScorer(model, tokenizer, device="cpu", progress=False)
    with pytest.raises(ValueError, match=r"PLL-word-l2r is for masked LMs.*use metric 'pll'"):
        scorer.score_sentences(SENTENCES, metric=PLL_WORD_L2R)
    with pytest.raises(ValueError, match="PLL-word-l2r is for masked LMs"):
        scorer.score_pairs([("a b", "a c")], metric=PLL_WORD_L2R)


def test_embias_pll_metric_and_the_study(tmp_path) -> None:
    """``embias pll --metric pll-word-l2r`` and ``PairedLikelihood(metric=...)`` give the definition's scores."""
    import csv
    import io
    import json

    from _tiny_lm import tiny_mlm_dir

    from embias_widgets.analysis.likelihood import PairedLikelihood
    from embias_widgets.cli import main

    path = tmp_path / "pairs.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["", "sent_more", "sent_less", "stereo_antistereo", "bias_type"])
        writer.writerow([0, "The souvenir shop was closed.", "The souvenir shop was open.", "stereo", "gender"])
    out = io.StringIO()
    code = main(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path), "--metric", PLL_WORD_L2R,
                 "--format", "json", "--no-progress"], out=out)
    assert code == 0
    record = json.loads(out.getvalue())
    assert record["metric"] == PLL_WORD_L2R
    import transformers

    model = transformers.AutoModelForMaskedLM.from_pretrained(str(tiny_mlm_dir())).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(tiny_mlm_dir()))
    item = record["items"][0]
    assert item["sent_more_score"] == pytest.approx(reference_pll_word_l2r(model, tokenizer, item["sent_more"]),
                                                    abs=1e-5)
    study = PairedLikelihood([("The souvenir shop was closed.", "The souvenir shop was open.")],
                             model=str(tiny_mlm_dir()), metric=PLL_WORD_L2R, device="cpu", progress=False)
    result = study.run()
    assert result.metric == PLL_WORD_L2R and "PLL-word-l2r" in result.to_dict()["metric_label"]
    assert result.rows[0].scores.stereo.score == pytest.approx(item["sent_more_score"], abs=1e-9)


def test_the_widget_names_every_metric_of_the_scorer() -> None:
    """The score picker's JS name map lists exactly the scorer's metrics, in order (one list, two languages)."""
    import re
    from pathlib import Path

    source = (Path(__file__).resolve().parent.parent / "js" / "lib" / "likelihood.js").read_text()
    names = re.search(r"METRIC_NAMES = \{(.*?)\};", source).group(1)
    assert tuple(re.findall(r'"?([\w-]+)"?:\s*"', names)) == MASKED_METRICS
