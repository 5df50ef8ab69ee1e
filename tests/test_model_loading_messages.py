"""Loading language models: no transformers progress bar on stderr, and offline errors that offer models that fit."""

from __future__ import annotations

import pytest
from _tiny_lm import tiny_mlm_dir

from embias_widgets.models.errors import ModelNotFoundError
from embias_widgets.models.language_models.loading import load_likelihood_model
from embias_widgets.models.registry import BUILTIN_MODELS, load_model

pytest.importorskip("transformers")


@pytest.mark.parametrize("was_on", [True, False])
def test_no_loading_weights_bar_and_the_setting_is_restored(capfd, was_on) -> None:
    from transformers.utils import logging as hf_logging

    (hf_logging.enable_progress_bar if was_on else hf_logging.disable_progress_bar)()
    try:
        scorer = load_likelihood_model(str(tiny_mlm_dir()), device="cpu", progress=False)
        assert scorer.score_sentences(["a b"]) is not None
        assert "Loading weights" not in capfd.readouterr().err
        assert hf_logging.is_progress_bar_enabled() is was_on
    finally:
        hf_logging.enable_progress_bar()


def _names(kind: str) -> list[str]:
    return sorted(n for n, e in BUILTIN_MODELS.items() if e.kind == kind)


def test_offline_hub_error_for_pll_offers_language_models_only(monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ValueError, match="not-a-real-org/no-such-mlm") as err:
        load_likelihood_model("not-a-real-org/no-such-mlm")
    message = str(err.value)
    assert all(name in message for name in _names("language-model"))
    assert not [n for n in BUILTIN_MODELS if n in message and BUILTIN_MODELS[n].kind != "language-model"]


def test_offline_hub_error_for_embeddings_offers_embedding_models_only(monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFoundError, match="not-a-real-org/no-such-encoder") as err:
        load_model("not-a-real-org/no-such-encoder")
    message = str(err.value)
    fits = _names("static") + _names("sentence") + _names("sense")
    assert all(name in message for name in fits)
    assert "embias-demo-mlm" not in message and "embias-demo-nli" not in message
