"""Which errors mean "this model's files could not be read": a section whose model fails to load fails with the
reason (:class:`ModelLoadError`), and the report's other sections go on."""

from __future__ import annotations

import traceback


class ModelLoadError(ValueError):
    """A model whose files could not be loaded in a section (the message names the model and the reason)."""


_LOADING = frozenset({"from_pretrained", "load_state_dict", "_load_pretrained_model", "load_file", "safe_open"})


def load_failure(err: BaseException) -> str | None:
    """The reason when ``err`` was raised by a library (transformers, safetensors, tokenizers, torch) while it
    read a model's files: a damaged safetensors file (``SafetensorError``), weights that do not fit the config
    (transformers' size-mismatch ``RuntimeError``), a tokenizer file that cannot be parsed. None for an error
    raised in this package: its own refusal already says what to fix, and anything else is a bug."""
    frames = [frame for frame, _ in traceback.walk_tb(err.__traceback__)]
    ours = not frames or frames[-1].f_globals.get("__name__", "").startswith("embias_widgets")
    loading = not ours and bool({f.f_code.co_name for f in frames} & _LOADING)
    if not (type(err).__module__.startswith("safetensors") or loading):
        return None
    first = (str(err).strip().splitlines() or [""])[0]
    if "ignore_mismatched_sizes" in first:  # transformers logs the list of mismatched weights, then raises this
        first = "weights whose shapes differ from what config.json gives (transformers lists them on stderr)"
    return f"{type(err).__name__}: {first}"[:500]
