"""``load_nli_model``: an NLI classifier from a registered name, a hub name or path, or an object."""

from __future__ import annotations

from typing import Any

from ..errors import ModelNotFoundError
from ..sentence_encoders.hub import quiet_loading
from .protocol import is_nli_classifier


def load_nli_model(model: Any, **options: Any) -> Any:
    """An :class:`~.protocol.NliClassifier`.

    - an object with ``predict`` and ``name`` is returned as is;
    - ``(model, tokenizer)`` becomes a :class:`~.cross_encoder.CrossEncoderNli`;
    - a name registered with kind ``"nli"`` (``embias-demo-nli``) goes through
      the registry's loader, which gets ``options``;
    - any other string is a hub name or local directory of an
      ``AutoModelForSequenceClassification`` (``options`` go to
      :class:`~.cross_encoder.CrossEncoderNli`: ``device``, ``token_budget``, ``labels``, ``progress``).
    """
    from .cross_encoder import CrossEncoderNli

    if is_nli_classifier(model):
        return model
    if isinstance(model, tuple) and len(model) == 2:
        return CrossEncoderNli(model[0], model[1], **options)
    if not isinstance(model, str):
        raise TypeError(f"cannot use {type(model).__name__} as an NLI model: give a name, a path, "
                        "(model, tokenizer) or an object with predict(premises, hypotheses)")
    from ..registry import available_models, registered_kind, resolve_loader

    kind = registered_kind(model)
    if kind is not None and kind != "nli":
        nli = sorted(available_models("nli"))
        raise ModelNotFoundError(f"{model!r} is a registered {kind} model, not an NLI classifier; NLI models: "
                                 f"{', '.join(nli) or 'none registered'}, or a hub name / model directory")
    loader = resolve_loader(model) if kind == "nli" else None
    if loader is not None:
        with quiet_loading():  # transformers' 'Loading weights' bar is noise above a table or widget
            obj = loader(**options)
        return load_nli_model(obj) if not is_nli_classifier(obj) else obj
    from pathlib import Path

    from ..names import check_name, locate_hub_model, looks_like_file, missing_path_error

    nli = sorted(available_models("nli"))
    check_name(model, what="NLI model", registered=nli)
    if not Path(model).expanduser().exists():  # not a local path: say so at once, not after the hub's retries
        if looks_like_file(model):
            raise missing_path_error(model, "NLI model", nli)
        locate_hub_model(model, what="NLI model", registered=nli)
    try:
        with quiet_loading():
            return CrossEncoderNli.from_pretrained(model, **options)
    except ModelNotFoundError as err:
        nli = sorted(available_models("nli"))
        raise ModelNotFoundError(f"unknown NLI model {model!r}: registered NLI models are "
                                 f"{', '.join(nli) or 'none'}. {err}") from None
