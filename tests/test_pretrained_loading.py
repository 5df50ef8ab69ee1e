"""Model directories are checked before transformers sees them, and weights load from safetensors
(issue 13, classes 3 and 5)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _tiny_lm import tiny_mlm_dir

from embias_widgets import EmbiasWarning
from embias_widgets.models import ModelNotFoundError
from embias_widgets.models.language_models.loading import load_likelihood_model
from embias_widgets.models.runtime import check_device
from embias_widgets.models.sentence_encoders.hub import check_model_dir, weight_options


def test_safetensors_are_used_when_present() -> None:
    folder = tiny_mlm_dir()
    assert any(folder.glob("*.safetensors"))
    assert weight_options(check_model_dir(folder)) == {"use_safetensors": True}


def test_a_pickle_only_model_loads_with_a_warning_saying_so(tmp_path: Path) -> None:
    import torch
    import transformers

    folder = tmp_path / "pickled"
    shutil.copytree(tiny_mlm_dir(), folder)
    model = transformers.BertForMaskedLM.from_pretrained(folder)
    for f in folder.glob("*.safetensors"):
        f.unlink()
    torch.save(model.state_dict(), folder / "pytorch_model.bin")  # the legacy pickle layout
    assert (folder / "pytorch_model.bin").is_file() and not any(folder.glob("*.safetensors"))
    with pytest.warns(EmbiasWarning, match=r"only pickle-based weights \(pytorch_model.bin\)"):
        scorer = load_likelihood_model(str(folder), device="cpu", progress=False)
    assert scorer.score_pairs([("She cooks.", "He cooks.")], "cps")[0].stereo.score < 0


def test_model_directory_checks(tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ModelNotFoundError, match="is a file, not a model directory"):
        check_model_dir(tmp_path / "file.txt")
    with pytest.raises(ModelNotFoundError, match=r"has no config\.json"):
        check_model_dir(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelNotFoundError, match="has no tokenizer files"):
        check_model_dir(tmp_path)
    assert check_model_dir("bert-base-uncased") is None  # a hub name: left to transformers


def test_device_checks() -> None:
    import torch

    check_device("cpu")
    check_device(None)
    with pytest.raises(ValueError, match="not a device torch knows"):
        check_device("gpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            check_device("cuda:0")
