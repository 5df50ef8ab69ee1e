"""Models given as objects (a debiased copy made in a notebook) saved where a report can load them by path.

A report runs its sections by model name, resumes them by the model's content fingerprint and may run them in
other processes, so an object is first written to ``DIR/models/`` under a name made of its content hash:

- static word vectors (:class:`~embias_widgets.models.StaticVectors`, e.g.
  ``RelationProjection(...).debiased_model()``): a word2vec binary file (float32 vectors, exact) or, for
  float64 vectors, a word2vec text file with every digit;
- a Hugging Face model with its tokenizer: ``(model, tokenizer)``, the demo MLM's ``DemoMLM`` pair, or an NLI
  cross-encoder (``.model`` and ``.tokenizer``, e.g. ``debias_input_embeddings(...)``): ``save_pretrained`` of
  both into a folder, which the report reads as a masked LM, causal LM or NLI model from its ``config.json``.

Anything else is refused with a message naming what to give.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

__all__ = ["save_model", "saved_model_name"]


def _hf_parts(model: Any) -> tuple[Any, Any] | None:
    if isinstance(model, tuple) and len(model) == 2 and hasattr(model[0], "save_pretrained"):
        return model[0], model[1]
    inner, tok = getattr(model, "model", None), getattr(model, "tokenizer", None)
    if hasattr(inner, "save_pretrained") and hasattr(tok, "save_pretrained"):
        return inner, tok
    return None


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")[:40] or "model"


def save_model(model: Any, folder: str | Path) -> str:
    """Write ``model`` under ``folder`` (see the module docstring) and return its path, named by its content."""
    from ...models.static_vectors.vectors import StaticVectors

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    name = _slug(str(getattr(model, "name", type(model).__name__)))
    if isinstance(model, StaticVectors):
        vectors = model.vectors
        h = hashlib.sha256("\n".join(model.words).encode("utf-8"))
        h.update(vectors.tobytes())
        binary = vectors.dtype == "float32"
        path = folder / f"{name}-{h.hexdigest()[:12]}.{'bin' if binary else 'txt'}"
        if not path.is_file():
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as handle:
                handle.write(f"{len(model.words)} {vectors.shape[1]}\n".encode())
                for w, v in zip(model.words, vectors, strict=True):
                    if binary:
                        handle.write(w.encode("utf-8") + b" " + v.astype("<f4").tobytes() + b"\n")
                    else:
                        handle.write((w + " " + " ".join(repr(float(x)) for x in v) + "\n").encode("utf-8"))
            os.replace(tmp, path)
        return str(path)
    parts = _hf_parts(model)
    if parts is None:
        raise ValueError(f"cannot save a {type(model).__name__} for a comparison: give a model name or path, static "
                         "word vectors (StaticVectors), a (model, tokenizer) pair of Hugging Face objects, or an "
                         "NLI cross-encoder")
    h = hashlib.sha256()
    for key, tensor in sorted(parts[0].state_dict().items()):
        h.update(key.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    path = folder / f"{name}-{h.hexdigest()[:12]}"
    if not (path / "config.json").is_file():
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        parts[0].save_pretrained(tmp)
        parts[1].save_pretrained(tmp)
        os.replace(tmp, path)
    return str(path)


def saved_model_name(model: Any, folder: str | Path) -> str:
    """``model`` itself when it is a name or path, else :func:`save_model` of it under ``folder``."""
    if isinstance(model, str | os.PathLike):
        return str(model)
    return save_model(model, folder)
