"""The offline DEMO masked LM ``"embias-demo-mlm"``: loads without network, tied,
small shipped weights, and it behaves like a (weak) language model.

PLL here is computed with explicit masked forward passes, independent of the
scorer in ``masked_lm.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch  # test extra: a missing install fails, never skips
import transformers  # noqa: F401
from _missing import skip_unless_ci
from _tiny_lm import one_thread

from embias_widgets.models import available_models, load_model
from embias_widgets.models.language_models.demo_mlm import (
    DEMO_NAME,
    HEAD_WEIGHTS,
    MASK_ROW_KEY,
    WORDNET_DIR,
    DemoMLM,
    encoder_dir,
    head_metadata,
    load_demo_mlm,
    split_wordnet_sentences,
    wordnet_sentences,
)

ROOT = Path(__file__).resolve().parent.parent
HELD_OUT_SENTENCES = 40
TOP5_FLOOR = 0.20  # the fitting script measured 0.40 on all 2,000 held-out sentences (single-token masking)


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Iterator[None]:
    yield from one_thread()


@pytest.fixture(scope="module")
def demo() -> DemoMLM:
    return load_demo_mlm()


@pytest.fixture(scope="module")
def wordnet() -> Path:
    if not all((WORDNET_DIR / f"data.{pos}").is_file() for pos in ("noun", "verb", "adj", "adv")):
        message = f"WordNet 3.0 not found in {WORDNET_DIR}: apt-get install wordnet-base"
        skip_unless_ci(message)
    return WORDNET_DIR


def masked_copies(tokenizer, sentence: str) -> tuple[list[int], list[list[int]]]:
    ids = tokenizer(sentence)["input_ids"]
    copies = []
    for position in range(1, len(ids) - 1):
        copy = list(ids)
        copy[position] = tokenizer.mask_token_id
        copies.append(copy)
    return ids, copies


@torch.inference_mode()
def pll(demo: DemoMLM, sentence: str) -> float:
    """Sum over tokens of log P(token | sentence with that token masked)."""
    ids, copies = masked_copies(demo.tokenizer, sentence)
    logits = demo.model(input_ids=torch.tensor(copies)).logits
    logp = logits.log_softmax(-1)
    return sum(float(logp[k, k + 1, ids[k + 1]]) for k in range(len(copies)))


def test_registered_and_labelled_as_demo() -> None:
    models = available_models()
    assert DEMO_NAME in models
    assert models[DEMO_NAME].startswith("DEMO")
    assert "bert-base-uncased" in models[DEMO_NAME]  # the real model is one name away


def test_import_is_light() -> None:
    code = ("import sys, embias_widgets.models.language_models.demo_mlm; "
            "print(sorted({'torch', 'transformers'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_loads_offline_as_hf_objects(demo: DemoMLM) -> None:
    from transformers import BertForMaskedLM

    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    model, tokenizer = demo
    assert isinstance(model, BertForMaskedLM)
    assert not model.training
    assert tokenizer.mask_token == "[MASK]"
    assert tokenizer.vocab_size == model.config.vocab_size == 30522
    assert demo.name == DEMO_NAME == model.config.name_or_path
    assert Path(tokenizer.name_or_path) == encoder_dir()  # MiniLM's tokenizer, from the installed package


def test_registry_returns_the_pair() -> None:
    from embias_widgets.models.registry import resolve_loader

    loaded = resolve_loader(DEMO_NAME)()
    assert isinstance(loaded, DemoMLM)
    model, tokenizer = loaded
    assert loaded.model is model
    assert loaded.tokenizer is tokenizer
    assert loaded.name == DEMO_NAME
    with pytest.raises(TypeError, match="takes no options"):
        resolve_loader(DEMO_NAME)(device="cpu")
    with pytest.raises(ValueError, match="is a masked language model, not a word-vector model"):
        load_model(DEMO_NAME)  # load_model gives embeddings; the demo MLM loads through load_likelihood_model


def test_decoder_tied_and_mask_row_shipped(demo: DemoMLM) -> None:
    from safetensors.torch import load_file

    model, tokenizer = demo
    embeddings = model.bert.embeddings.word_embeddings.weight
    assert model.cls.predictions.decoder.weight is embeddings
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
    head = load_file(HEAD_WEIGHTS)
    torch.testing.assert_close(embeddings[tokenizer.mask_token_id], head[MASK_ROW_KEY], rtol=0, atol=0)
    original = load_file(encoder_dir() / "model.safetensors")["embeddings.word_embeddings.weight"]
    changed = (embeddings != original).any(dim=1).nonzero().flatten().tolist()
    assert changed == [tokenizer.mask_token_id]  # the encoder is the package's, [MASK] row aside


def test_weights_file_is_small_and_documented() -> None:
    from safetensors.torch import load_file

    assert HEAD_WEIGHTS.stat().st_size < 1_000_000
    head = load_file(HEAD_WEIGHTS)
    assert not any(key.startswith(("bert.encoder", "cls.predictions.decoder")) for key in head)
    meta = head_metadata()
    assert "DEMO" in meta["what"]
    assert meta["script"].startswith("scripts/fit_demo_mlm.py")
    assert 0 < float(meta["heldout_single_token_top1"]) < float(meta["heldout_single_token_top5"]) < 1


def test_prefers_car_to_banana(demo: DemoMLM) -> None:
    assert pll(demo, "He drove his car to work.") > pll(demo, "He drove his banana to work.")


@pytest.mark.parametrize(
    ("sentence", "scrambled"),
    [
        ("He drove his car to work.", "car his to work drove He."),
        ("The children played in the park.", "park the The in played children."),
    ],
)
def test_prefers_sentence_to_scrambled_words(demo: DemoMLM, sentence: str, scrambled: str) -> None:
    assert sorted(re.findall(r"\w+", sentence.lower())) == sorted(re.findall(r"\w+", scrambled.lower()))
    assert pll(demo, sentence) > pll(demo, scrambled)


@torch.inference_mode()
def test_predicts_held_out_wordnet_glosses(demo: DemoMLM, wordnet: Path) -> None:
    held_out, train = split_wordnet_sentences(wordnet_sentences(wordnet))
    assert len(held_out) == 2000
    assert not set(held_out) & set(train)
    hits = total = 0
    for sentence in held_out[:HELD_OUT_SENTENCES]:
        ids, copies = masked_copies(demo.tokenizer, sentence)
        logits = demo.model(input_ids=torch.tensor(copies)).logits
        for k in range(len(copies)):
            hits += ids[k + 1] in logits[k, k + 1].topk(5).indices.tolist()
            total += 1
    assert total > 300
    print(f"held-out top-5 {hits / total:.1%} on {total} tokens")
    assert hits / total > TOP5_FLOOR, f"top-5 {hits / total:.1%} on {total} held-out tokens"


@torch.inference_mode()
def test_saved_directory_loads_with_auto_classes(demo: DemoMLM, tmp_path: Path) -> None:
    """``save_demo_mlm`` gives path-only code (``from_pretrained(path)``) the same model."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    from embias_widgets.models.language_models.demo_mlm import save_demo_mlm

    path = save_demo_mlm(tmp_path / "demo")
    model = AutoModelForMaskedLM.from_pretrained(path).eval()
    tokenizer = AutoTokenizer.from_pretrained(path)
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
    _, copies = masked_copies(tokenizer, "He drove his car to work.")
    torch.testing.assert_close(
        model(input_ids=torch.tensor(copies)).logits, demo.model(input_ids=torch.tensor(copies)).logits
    )
