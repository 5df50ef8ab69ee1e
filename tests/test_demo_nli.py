"""The offline DEMO NLI model ``"embias-demo-nli"``: loads without network, labelled DEMO,
probabilities in (entailment, neutral, contradiction) order, sees hypernymy on held-out
WordNet synsets, encodes each distinct sentence once, and was fitted without person nouns."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch  # test extra: a missing install fails, never skips
from _missing import skip_unless_ci
from _tiny_lm import one_thread

from embias_widgets.models import available_models, load_model
from embias_widgets.models.nli_classifiers import LABELS, check_probabilities, is_nli_classifier, load_nli_model
from embias_widgets.models.nli_classifiers.debias import debias_input_embeddings, random_control
from embias_widgets.models.nli_classifiers.demo_nli import (
    DEMO_NAME,
    HEAD_WEIGHTS,
    DemoNli,
    head_metadata,
    load_demo_nli,
    pair_features,
)
from embias_widgets.models.nli_classifiers.demo_nli_training import (
    TEMPLATE_OBJECTS,
    TEMPLATE_VERBS,
    WORDNET_DIR,
    excluded_words,
    is_held_out_synset,
    read_noun_synsets,
    synthetic_pairs,
    training_words,
)
from embias_widgets.stimuli.nli_probes import load_probe, word_lists

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Iterator[None]:
    yield from one_thread()


@pytest.fixture(scope="module")
def wordnet() -> Path:
    if not (WORDNET_DIR / "data.noun").is_file():
        message = f"WordNet 3.0 not found in {WORDNET_DIR}: apt-get install wordnet-base"
        skip_unless_ci(message)
    return WORDNET_DIR


@pytest.fixture(scope="module")
def demo() -> DemoNli:
    return load_demo_nli()


@pytest.fixture(scope="module")
def pairs(wordnet: Path):
    return synthetic_pairs(wordnet)


def test_registered_as_nli_and_labelled_demo() -> None:
    models = available_models(kind="nli")
    assert DEMO_NAME in models
    assert models[DEMO_NAME].startswith("DEMO")
    assert "real studies" in models[DEMO_NAME]


def test_import_is_light() -> None:
    code = ("import sys, embias_widgets.models.nli_classifiers.demo_nli; "
            "print(sorted({'torch', 'transformers'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_loads_offline_through_registry_and_nli_loader(demo: DemoNli) -> None:
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert is_nli_classifier(demo)
    assert demo.name == DEMO_NAME and demo.description.startswith("DEMO") and demo.labels == LABELS
    from embias_widgets.models.registry import resolve_loader

    assert isinstance(resolve_loader(DEMO_NAME)(), DemoNli)
    assert isinstance(load_nli_model(DEMO_NAME, batch_size=16), DemoNli)
    with pytest.raises(TypeError, match="batch_size and cache_size"):
        resolve_loader(DEMO_NAME)(device="cuda")
    with pytest.raises(ValueError, match="is an NLI classifier, not a word-vector model"):
        load_model(DEMO_NAME)  # load_model gives embeddings; the demo NLI loads through load_nli_model


def test_weights_are_small_with_provenance() -> None:
    assert HEAD_WEIGHTS.stat().st_size < 2_000_000
    meta = head_metadata()
    assert meta["what"].startswith("DEMO")
    assert 0.4 < float(meta["heldout_accuracy"]) <= 1
    assert float(meta["heldout_accuracy"]) > float(meta["heldout_majority_baseline"]) + 0.1


def test_probabilities_are_rows_summing_to_one_and_match_the_head_by_hand(demo: DemoNli) -> None:
    premises = ["The accountant ate a bagel.", "A nurse bought a car .", "The dog is near a crate."]
    hypotheses = ["The man ate a bagel.", "A woman bought a car .", "The animal is near a crate."]
    P = check_probabilities(demo.predict(premises, hypotheses), 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    # by hand: mean-pooled, normalised MiniLM vectors -> [u, v, |u-v|, u*v] -> relu MLP -> softmax
    from transformers import AutoModel, AutoTokenizer

    from embias_widgets.models.nli_classifiers.demo_nli import encoder_dir

    tok, enc = AutoTokenizer.from_pretrained(encoder_dir()), AutoModel.from_pretrained(encoder_dir()).eval()
    with torch.inference_mode():
        vecs = []
        for s in premises + hypotheses:
            h = enc(**tok(s, return_tensors="pt")).last_hidden_state[0].mean(0)
            vecs.append((h / h.norm()).numpy())
    u, v = np.array(vecs[:3]), np.array(vecs[3:])
    x = np.concatenate([u, v, np.abs(u - v), u * v], axis=1)
    np.testing.assert_allclose(pair_features(u, v), x)
    hid = np.maximum(x @ demo.head["hidden.weight"].T + demo.head["hidden.bias"], 0)
    z = hid @ demo.head["out.weight"].T + demo.head["out.bias"]
    expected = np.exp(z - z.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(P, expected, atol=1e-5)


def test_bad_input_is_named(demo: DemoNli) -> None:
    with pytest.raises(ValueError, match="2 premises but 1 hypotheses"):
        demo.predict(["a b.", "c d."], ["e f."])
    with pytest.raises(ValueError, match="hypothesis 0"):
        demo.predict(["a b."], ["  "])
    with pytest.raises(TypeError, match="not one string"):
        demo.predict("a b.", "c d.")
    assert demo.predict([], []).shape == (0, 3)


def test_each_distinct_sentence_is_encoded_once(demo: DemoNli) -> None:
    demo.clear_cache()
    probe = load_probe("gender-occupation")
    n_templates = len(probe) // (162 * 6)  # pairs run occupation x gendered word x template
    chunks = [probe.chunk(g * n_templates, g * n_templates + 40) for g in range(6)]  # 1 occupation x 6 words
    premises = [s for c in chunks for s in c.premises]
    hypotheses = [s for c in chunks for s in c.hypotheses]
    distinct = len(set(premises) | set(hypotheses))
    assert distinct == 40 + 6 * 40 < 2 * len(premises)
    before = demo.n_encoded
    first = demo.predict(premises, hypotheses)
    assert demo.n_encoded - before == distinct
    again = demo.predict(premises[::-1], hypotheses[::-1])  # all cached
    assert demo.n_encoded - before == distinct
    np.testing.assert_allclose(again[::-1], first, atol=1e-6)
    one = demo.predict(premises[5:6], hypotheses[5:6])  # batch-independent
    np.testing.assert_allclose(one[0], first[5], atol=1e-6)


def test_hypernyms_entail_more_than_co_hyponyms_on_held_out_synsets(demo: DemoNli, pairs) -> None:
    _, held_out = pairs
    assert held_out and all(is_held_out_synset(o) for p in held_out for o in p.synsets)
    hyper = [p for p in held_out if p.relation == "hypernym"][:60]
    cohypo = [p for p in held_out if p.relation == "co-hyponym"][:60]
    hypo = [p for p in held_out if p.relation == "hyponym"][:60]
    e = {name: demo.predict([p.premise for p in ps], [p.hypothesis for p in ps])
         for name, ps in (("hyper", hyper), ("cohypo", cohypo), ("hypo", hypo))}
    assert e["hyper"][:, 0].mean() > e["cohypo"][:, 0].mean() + 0.05
    assert e["hyper"][:, 0].mean() > e["hypo"][:, 0].mean() + 0.05  # direction matters
    assert e["hypo"][:, 1].mean() > e["hyper"][:, 1].mean()  # the reverse is neutral
    assert e["cohypo"][:, 2].mean() > e["hyper"][:, 2].mean()


def test_no_person_noun_and_no_probe_word_in_training_data(pairs, wordnet: Path) -> None:
    train, held_out = pairs
    words = training_words(train + held_out)
    probe_words = {w.lower() for entries in word_lists().values() for e in entries for w in e.split()}
    assert words & probe_words == set()
    synsets = read_noun_synsets(wordnet)
    excluded = excluded_words(synsets)
    assert {"person", "nurse", "man", "woman", "neighbor", "accountant", "king"} <= excluded
    template_words = {"the", "a", "an"} | {w for t in TEMPLATE_VERBS + TEMPLATE_OBJECTS for w in t.split()}
    assert (words - template_words) & excluded == set()  # no subject is (part of) a person noun
    person_lemmas = {lemma for s in synsets.values() if s.lexfile == 18 for lemma in s.lemmas}
    assert set(TEMPLATE_OBJECTS) & person_lemmas == set()
    assert len(train) > 10_000 and len(held_out) > 500
    seen = {o for p in train for o in p.synsets}
    assert not seen & {o for p in held_out for o in p.synsets}  # no held-out synset in fitting


def test_debiasing_the_input_embeddings_changes_the_encoder_and_drops_the_cache(demo: DemoNli) -> None:
    premise, hypothesis = ["The nurse bought a car."], ["The man bought a car."]
    before = demo.predict(premise, hypothesis)
    debiased = debias_input_embeddings(demo)
    assert isinstance(debiased, DemoNli) and "debiased" in debiased.name and debiased.description.startswith("DEMO")
    he, she = debiased.token_id("he"), debiased.token_id("she")
    W = debiased.input_embeddings()
    b = demo.input_embeddings()[he] / np.linalg.norm(demo.input_embeddings()[he])
    b -= demo.input_embeddings()[she] / np.linalg.norm(demo.input_embeddings()[she])
    b /= np.linalg.norm(b)
    assert abs(W[he] @ b) < 1e-5 and abs(W[she] @ b) < 1e-5
    after = debiased.predict(premise, hypothesis)
    assert not np.allclose(after, before)
    np.testing.assert_allclose(demo.predict(premise, hypothesis), before)  # the original is untouched
    control = random_control(demo, 1, seed=0)
    assert "random" in control.name
    # editing the encoder in place invalidates cached vectors
    weight = debiased.get_input_embeddings().weight
    with torch.no_grad():
        weight.mul_(1.0)
    n = debiased.n_encoded
    debiased.predict(premise, hypothesis)
    assert debiased.n_encoded == n + 2


def test_pickles_without_its_cache_for_dask_workers(demo: DemoNli) -> None:
    import pickle

    premise, hypothesis = ["The cook ate a bagel."], ["The woman ate a bagel."]
    before = demo.predict(premise, hypothesis)
    clone = pickle.loads(pickle.dumps(demo))
    assert len(clone._cache) == 0 and clone.name == DEMO_NAME
    encoded = clone.n_encoded
    np.testing.assert_allclose(clone.predict(premise, hypothesis), before, atol=1e-6)
    assert clone.n_encoded == encoded + 2  # encoded afresh in the new process


def test_probe_words_come_from_the_bundled_lists_only() -> None:
    """Dev et al.'s lists live in stimuli data once; the demo's training data reads them from there."""
    from embias_widgets.models.nli_classifiers import demo_nli_training

    lists = word_lists()
    assert {w.lower() for e in lists["occupations"] for w in e.split()} <= demo_nli_training.PROBE_WORDS
    assert len(demo_nli_training.PROBE_WORDS) == 437 and len(demo_nli_training.PROBE_VERB_WORDS) == 30
    folder = Path(demo_nli_training.__file__).parent
    for module in ("demo_nli.py", "demo_nli_training.py"):
        assert "accountant" not in (folder / module).read_text(encoding="utf-8")
