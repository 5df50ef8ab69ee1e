"""CEAT end to end on a tiny masked LM built here: contextual vectors against a direct reading of the model,
the study against the authors' estimator (re-implemented in test_ceat.py), contexts, missing words, tests 11-14."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _result_protocol import assert_study_result
from _tiny_lm import tiny_scorer
from test_ceat import ref_ceat, ref_meta

from embias_widgets.analysis.ceat import CeatInputError, ContextualAssociationTest
from embias_widgets.metrics import ceat_test
from embias_widgets.metrics.ceat import ceat_samples, random_effects
from embias_widgets.models.sentence_encoders.contextual import word_vectors_in_context
from embias_widgets.stimuli import AssociationTestSpec, WordSet
from embias_widgets.stimuli.ceat_contexts import (
    bundled_contexts,
    ceat_test_names,
    contexts_from_sentences,
    resolve_ceat_test,
)

SENTENCES = """John went to the office early.
Paul asked about his salary today.
John and Paul met at the wedding.
Amy stayed home with the children.
Joan planned the wedding for June.
Amy talked about her salary.
The office was quiet while Joan worked.
home is where the heart is.
Her salary grew every year, said Amy.

Paul walked home after the wedding.
johnny is not John.
The office manager called Joan at home.
""".splitlines()


def small_spec(**extra_words):
    sets = {"targ1": ["John", "Paul"], "targ2": ["Amy", "Joan"], "attr1": ["office", "salary"],
            "attr2": ["home", "wedding"]}
    for key, words in extra_words.items():
        sets[key] = sets[key] + words
    return AssociationTestSpec("small", *(WordSet.of(k, v) for k, v in sets.items()))


@pytest.fixture(scope="module")
def scorer():
    return tiny_scorer()


# -- contexts ---------------------------------------------------------------------------------------------------
def test_whole_word_match_and_case():
    found = contexts_from_sentences(SENTENCES, ["John", "home", "office"])
    assert [s for s, _ in found.contexts["John"]] == [
        "John went to the office early.", "John and Paul met at the wedding.", "johnny is not John."]
    assert found.contexts["John"][2][1] == (14, 18)  # the first whole-word occurrence, not "johnny"
    assert "The office manager called Joan at home." in [s for s, _ in found.contexts["home"]]
    assert "as written" in found.source
    loose = contexts_from_sentences(SENTENCES, ["Home"], case_sensitive=False)
    assert loose.count("Home") == 4 and "ignoring case" in loose.source
    assert contexts_from_sentences(SENTENCES, ["Home"]).count("Home") == 0


def test_bundled_templates_hold_every_word_of_weat6_and_ceat11_14():
    for name in ("weat6", *ceat_test_names()):
        spec = resolve_ceat_test(name)
        found = bundled_contexts(spec, "templates")
        for word_set in spec.sets().values():
            for word in word_set.examples:
                assert found.count(word) >= 3, (name, word)
                for sentence, (lo, hi) in found.contexts[word]:
                    assert sentence[lo:hi].lower() == word.lower()
    with pytest.raises(ValueError, match="no template kinds"):
        bundled_contexts(small_spec(), "templates")


def test_tests_11_14_are_the_authors_lists():
    assert ceat_test_names() == ["ceat11", "ceat12", "ceat13", "ceat14"]
    sizes = {"ceat11": (12, 12, 13, 13), "ceat12": (12, 12, 8, 8), "ceat13": (12, 12, 12, 12),
             "ceat14": (12, 12, 6, 6)}
    for name, expected in sizes.items():
        spec = resolve_ceat_test(name)
        assert tuple(len(s.examples) for s in spec.sets().values()) == expected
        assert "Guo & Caliskan" in spec.citation and "weiguowilliam/CEAT" in spec.citation
    assert resolve_ceat_test("ceat11").targ1.examples[:3] == ("Yvette", "Aisha", "Malika")
    assert resolve_ceat_test("ceat14").attr2.examples == ("rich", "tall", "intelligent", "assertive", "arrogant",
                                                          "successful")
    assert resolve_ceat_test("ceat13").targ2.examples == resolve_ceat_test("ceat11").targ2.examples


# -- contextual vectors -----------------------------------------------------------------------------------------
def direct_vectors(scorer, sentence, word):
    """The authors' way: find the word's token ids in the sentence's ids, read the last layer there."""
    import torch

    tok = scorer.tokenizer
    ids = tok(sentence)["input_ids"]
    target = tok(word, add_special_tokens=False)["input_ids"]
    start = next(i for i in range(len(ids)) if ids[i : i + len(target)] == target)
    with torch.inference_mode():
        hidden = scorer.model(torch.tensor([ids]), output_hidden_states=True).hidden_states[-1][0].double().numpy()
    rows = hidden[start : start + len(target)]
    return rows.mean(axis=0), rows[-1]


def test_contextual_vectors_read_the_last_layer_at_the_word(scorer):
    sentences = ["The office manager called Joan at home.", "Her salary grew every year, said Amy."]
    words = [["office", "Joan", "home"], ["salary", "Amy"]]
    spans = [[contexts_from_sentences([s], [w]).contexts[w][0][1] for w in ws]
             for s, ws in zip(sentences, words, strict=True)]
    mean = word_vectors_in_context(scorer, sentences, spans)
    last = word_vectors_in_context(scorer, sentences, spans, subwords="last")
    for i, ws in enumerate(words):
        for k, w in enumerate(ws):
            want_mean, want_last = direct_vectors(scorer, sentences[i], w.lower())
            np.testing.assert_allclose(mean[i][k], want_mean, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(last[i][k], want_last, rtol=1e-5, atol=1e-6)
    # batching does not change a vector: one sentence alone gives the same
    alone = word_vectors_in_context(scorer, sentences[:1], spans[:1])
    np.testing.assert_allclose(alone[0][0], mean[0][0], rtol=1e-5, atol=1e-6)


def test_a_multi_token_word_is_the_mean_of_its_tokens(scorer):
    sentence = "Joan liked the hyacinth best."
    span = contexts_from_sentences([sentence], ["hyacinth"]).contexts["hyacinth"][0][1]
    assert len(scorer.tokenizer("hyacinth", add_special_tokens=False)["input_ids"]) > 1
    got = word_vectors_in_context(scorer, [sentence], [[span]])[0][0]
    np.testing.assert_allclose(got, direct_vectors(scorer, sentence, "hyacinth")[0], rtol=1e-5, atol=1e-6)


# -- the study against the authors' estimator -------------------------------------------------------------------
def test_study_matches_the_authors_estimator_on_the_tiny_model(scorer, tmp_path):
    path = tmp_path / "contexts.txt"
    path.write_text("\n".join(SENTENCES), encoding="utf-8")
    study = ContextualAssociationTest(small_spec(), model=scorer, contexts=str(path))
    vectors = study.vectors()
    assert {w: len(v) for w, v in vectors.items()} == {"John": 3, "Paul": 3, "Amy": 3, "Joan": 3, "office": 3,
                                                       "salary": 3, "home": 4, "wedding": 3}
    groups = [[vectors[w] for w in ws.examples] for ws in study.spec.sets().values()]
    e_ref, v_ref, draws = ref_ceat(groups, 200, np.random.RandomState(0))
    replayed = ceat_samples(*groups, n_samples=200, indices=draws)
    np.testing.assert_allclose(replayed.effect_sizes, e_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(replayed.variances, v_ref, rtol=1e-9, atol=1e-15)
    pes, p, _, _, _ = ref_meta(e_ref, v_ref)
    meta = random_effects(replayed.effect_sizes, replayed.variances)
    assert meta.combined_effect_size == pytest.approx(pes, rel=1e-9)
    assert meta.p_value == pytest.approx(p, rel=1e-6, abs=1e-300)

    result = study.run(300, seed=3)
    again = ceat_samples(*groups, n_samples=300, rng=3)
    np.testing.assert_array_equal(result.effect_sizes, again.effect_sizes)
    assert_study_result(result)
    data = json.loads(json.dumps(result.to_dict()))
    # the headline: the mean of the samples' d, its bootstrap interval and permutation p (ceat_test, same seed)
    direct = ceat_test(*groups, n_samples=300, rng=3)
    assert data["effect_size"] == pytest.approx(np.mean(again.effect_sizes), rel=1e-12) == direct.effect_size
    assert (data["effect_size_interval"]["low"], data["effect_size_interval"]["high"]) == direct.interval
    assert "two-stage bootstrap" in data["effect_size_interval"]["method"] and data["p_value"] == direct.p_value
    assert data["estimand"] == direct.estimand and data["n_resamples"] == 1_000
    # the paper's random effects, kept as a labelled reproduction that recombines from the samples
    paper = data["guo_caliskan_random_effects"]
    recombined = random_effects([s["effect_size"] for s in data["samples"]], [s["variance"] for s in data["samples"]])
    assert recombined.combined_effect_size == pytest.approx(paper["combined_effect_size"], rel=1e-12)
    interval = paper["combined_effect_size_interval"]
    assert (interval["low"], interval["high"]) == pytest.approx(recombined.interval)
    assert interval["level"] == 0.95 and "DerSimonian-Laird" in interval["method"]
    assert "not valid inference" in paper["caveat"] and "combined_effect_size" not in data
    assert data["n"] == 300 == len(data["samples"])
    for key in ("q", "i_squared", "tau_squared", "p_value", "standard_error"):
        assert paper[key] == pytest.approx(getattr(recombined, key))
    assert "ddof=1 variance" in paper["variance_convention"]
    assert "Reproduction of Guo & Caliskan" in result.summary() and "permutation p" in result.summary()


def test_missing_words_are_dropped_with_a_note_or_an_error(scorer):
    study = ContextualAssociationTest(small_spec(attr2=["honeymoon"]), model=scorer, contexts=SENTENCES)
    result = study.run(50, seed=0, level=0.9)
    assert result.missing["attr2"] == ("honeymoon",) and "honeymoon" not in result.words["attr2"]
    assert any("honeymoon" in n for n in result.notes)
    assert any(n.startswith("fewer than 8 words in X (2), Y (2), A (2), B (2)") for n in result.notes)
    assert result.to_dict()["sets"]["attr2"]["missing_contexts"] == ["honeymoon"]
    assert result.to_dict()["effect_size_interval"]["level"] == 0.9
    strict = ContextualAssociationTest(small_spec(attr2=["honeymoon"]), model=scorer, contexts=SENTENCES,
                                       missing="error")
    with pytest.raises(CeatInputError, match=r"B \(attr2\): honeymoon.*--contexts FILE"):
        strict.run(10)
    only_one = AssociationTestSpec("few", WordSet.of("X", ["John"]), WordSet.of("Y", ["Zed"]),
                                   WordSet.of("A", ["office"]), WordSet.of("B", ["home"]))
    with pytest.raises(CeatInputError, match="too few words with contexts in set Y"):
        ContextualAssociationTest(only_one, model=scorer, contexts=SENTENCES).run(10)


def test_bad_input_is_named(scorer, tmp_path):
    with pytest.raises(CeatInputError, match="neither a file nor a bundled source"):
        ContextualAssociationTest(small_spec(), model=scorer, contexts=str(tmp_path / "none.txt")).contexts()
    with pytest.raises(CeatInputError, match="'glove-6b-50d' is a static model: CEAT needs a contextual encoder"):
        ContextualAssociationTest("weat6", model="glove-6b-50d")
    with pytest.raises(CeatInputError, match="'embias-demo-nli' is a nli model"):
        ContextualAssociationTest("weat6", model="embias-demo-nli")
    with pytest.raises(KeyError, match="ceat11"):
        ContextualAssociationTest("weat99", model=scorer)


def test_wordnet_source_merges_with_the_templates(monkeypatch):
    import embias_widgets.stimuli.ceat_contexts as contexts

    glosses = ("a person who holds an executive office", "Amy and John went home", "the Executive branch")
    monkeypatch.setattr(contexts, "wordnet_sentences", lambda: glosses)
    spec = resolve_ceat_test("weat6")
    wordnet = bundled_contexts(spec, "wordnet")
    assert [s for s, _ in wordnet.contexts["executive"]] == [glosses[0]]  # as written: not "Executive"
    assert wordnet.count("Lisa") == 0 and "WordNet 3.0" in wordnet.source
    both = bundled_contexts(spec, "templates+wordnet")
    assert both.count("executive") == bundled_contexts(spec, "templates").count("executive") + 1
    assert both.count("Amy") == 9 and " + " in both.source
    with pytest.raises(ValueError, match="unknown context source 'reddit'"):
        bundled_contexts(spec, "reddit")


def test_a_word_beyond_the_token_limit_loses_that_context(scorer):
    far = " ".join(["word"] * 200) + " John ended it at the office."
    study = ContextualAssociationTest(small_spec(), model=scorer, contexts=[*SENTENCES, far])
    result = study.run(20)
    assert result.contexts_per_word["John"] == 3  # the far sentence's John is cut off, its office too
    assert result.contexts_per_word["office"] == 3
    assert any("2 context(s) left out: the word lay beyond the model's token limit" in n for n in result.notes)


def test_studies_of_one_model_share_their_vectors(scorer, monkeypatch):
    import embias_widgets.models.sentence_encoders.contextual as contextual

    first = ContextualAssociationTest(small_spec(), model=scorer, contexts=SENTENCES)
    alone = first.vectors()
    encoded = []
    real = contextual.word_vectors_in_context
    monkeypatch.setattr(contextual, "word_vectors_in_context",
                        lambda model, sentences, spans, **kw: encoded.extend(sentences) or real(model, sentences,
                                                                                               spans, **kw))
    second = ContextualAssociationTest(small_spec(attr2=["children"]), model=scorer, contexts=SENTENCES,
                                       shared=first.shared)
    vectors = second.vectors()
    assert encoded == ["Amy stayed home with the children."]  # only the one new (sentence, span)
    np.testing.assert_array_equal(vectors["John"], alone["John"])
    assert len(vectors["children"]) == 1 and len(second.shared) == len(first.shared)


@pytest.mark.parametrize("family", ["roberta", "deberta-v3", "xlm-roberta", "distilbert"])
def test_contextual_vectors_on_other_tokenizer_families(family):
    """Byte-level BPE (a word's token carries its space), SentencePiece and WordPiece: the word's tokens found
    through character offsets are those ``char_to_token`` names for its first and last character."""
    from types import SimpleNamespace

    import torch
    from _tiny_families import family_model

    model, tokenizer = family_model(family)
    adapter = SimpleNamespace(model=model, tokenizer=tokenizer, device="cpu", dtype=None, name=family)
    sentence = "The office manager called Joan at home."
    spans = [contexts_from_sentences([sentence], [w]).contexts[w][0][1] for w in ("office", "Joan", "home")]
    got = word_vectors_in_context(adapter, [sentence], [spans])[0]
    enc = tokenizer(sentence, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**enc, output_hidden_states=True).hidden_states[-1][0].double().numpy()
    for (lo, hi), vector in zip(spans, got, strict=True):
        first, last = enc.char_to_token(0, lo), enc.char_to_token(0, hi - 1)
        np.testing.assert_allclose(vector, hidden[first : last + 1].mean(axis=0), rtol=1e-5, atol=1e-6)
