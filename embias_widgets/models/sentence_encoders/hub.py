"""Loading models by Hugging Face hub name or local directory (torch, lazily).

Shared by sentence encoders and language-model scorers (the device is checked by
:func:`embias_widgets.models.runtime.check_device`):

- A local directory is checked before transformers sees it: a file, a folder
  without ``config.json`` or without tokenizer files is named as such (instead
  of, e.g., a message about sentencepiece when only the vocabulary is missing).
- Weights load with ``use_safetensors=True`` whenever a ``.safetensors`` file
  is there (no pickle is unpickled); when only a pickle-based file
  (``pytorch_model.bin``) exists it is loaded with an
  :class:`~embias_widgets.EmbiasWarning` saying so.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ... import EmbiasWarning
from ..errors import ModelNotFoundError
from ..json_files import check_model_json

TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json", "spiece.model",
    "sentencepiece.bpe.model", "tokenizer.model", "merges.txt",
)
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt")


def check_model_dir(name_or_path: str | Path, *, what: str = "model") -> Path | None:
    """The local directory ``name_or_path`` (checked), or ``None`` when it is not a local path (a hub name)."""
    path = Path(name_or_path).expanduser()
    if not path.exists():
        if str(name_or_path).startswith((".", "/", "~")) or "\\" in str(name_or_path):
            raise ModelNotFoundError(f"no {what} at {path}: give an existing model directory or a hub name")
        return None
    if path.is_file():
        raise ModelNotFoundError(
            f"{path} is a file, not a {what} directory: give the folder that holds config.json, the weights "
            "and the tokenizer files (model.save_pretrained(...) and tokenizer.save_pretrained(...) write them)"
        )
    if not (path / "config.json").is_file():
        raise ModelNotFoundError(
            f"{path} has no config.json, so it is not a transformers {what} directory: save the model there "
            "with model.save_pretrained(...), or give a hub name"
        )
    if not any((path / name).is_file() for name in TOKENIZER_FILES):
        raise ModelNotFoundError(
            f"{path} has no tokenizer files ({', '.join(TOKENIZER_FILES[:4])}, ...): save the tokenizer there "
            "too with tokenizer.save_pretrained(...)"
        )
    check_model_json(path)
    return path


def weight_options(path: Path | None) -> dict[str, Any]:
    """``use_safetensors`` for ``from_pretrained``: True when a safetensors file exists."""
    if path is None:
        return {}
    if any(path.glob("*.safetensors")):
        return {"use_safetensors": True}
    pickles = sorted(p.name for p in path.iterdir() if p.suffix in PICKLE_SUFFIXES)
    if pickles:
        warnings.warn(
            f"{path} has only pickle-based weights ({', '.join(pickles)}), no .safetensors file: loading a "
            "pickle can run code from the file; load only models you trust, or convert them to safetensors",
            EmbiasWarning,
            stacklevel=3,
        )
        return {"use_safetensors": False}
    return {}


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """transformers' "Loading weights" progress bar off while we load (it printed above a notebook's widget;
    our own progress lines say what takes time), restored afterwards to what it was."""
    from transformers.utils import logging as hf_logging

    was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_on:
            hf_logging.enable_progress_bar()


def from_pretrained(auto_class: Any, name_or_path: str | Path, path: Path | None, **kwargs: Any) -> Any:
    """``auto_class.from_pretrained`` preferring safetensors (hub names: tried first, pickle after a warning),
    without transformers' loading progress bar (:func:`quiet_loading`)."""
    with quiet_loading():
        return _from_pretrained(auto_class, name_or_path, path, **kwargs)


def _from_pretrained(auto_class: Any, name_or_path: str | Path, path: Path | None, **kwargs: Any) -> Any:
    if path is not None:
        return auto_class.from_pretrained(str(name_or_path), **weight_options(path), **kwargs)
    try:
        return auto_class.from_pretrained(str(name_or_path), use_safetensors=True, **kwargs)
    except OSError as err:
        if "safetensors" not in str(err).lower():
            raise
    warnings.warn(
        f"{name_or_path} has no safetensors weights; loading its pickle-based file (this can run code from "
        "the file; load only models you trust)",
        EmbiasWarning,
        stacklevel=3,
    )
    return auto_class.from_pretrained(str(name_or_path), use_safetensors=False, **kwargs)
