"""Load a likelihood scorer (masked or causal LM) from a name, a path or objects.

``load_likelihood_model("bert-base-uncased")`` gives a
:class:`~embias_widgets.models.language_models.masked_lm.MaskedLMScorer`; ``"gpt2"`` a
:class:`~embias_widgets.models.language_models.causal_lm.CausalLMScorer` (the kind is read
from the model's config); a name registered in the model registry (such as
the offline demo MLM) is loaded through the registry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import ModelNotFoundError
from ..sentence_encoders.hub import quiet_loading
from .causal_lm import CausalLMScorer
from .masked_lm import MaskedLMScorer
from .text_checks import check_tokenizer

KINDS = ("auto", "masked", "causal")
LikelihoodScorer = MaskedLMScorer | CausalLMScorer


def is_scorer(obj: Any) -> bool:
    return hasattr(obj, "score_pairs") and hasattr(obj, "score_sentences") and hasattr(obj, "tokenize")


def _kind_from_config(name_or_path: str) -> str:
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(name_or_path)
    architectures = [a.lower() for a in (getattr(config, "architectures", None) or [])]
    if any(a.endswith("formaskedlm") for a in architectures):
        return "masked"
    if any(a.endswith(("forcausallm", "lmheadmodel")) for a in architectures):
        return "causal"
    if "electraforpretraining" in architectures:
        raise ValueError(
            f"{name_or_path} is an ELECTRA discriminator (ElectraForPreTraining): it tells replaced tokens from "
            "original ones and has no masked-LM head to score with. Use the ELECTRA generator of the same model "
            "(e.g. google/electra-base-generator)"
        )
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    return "masked" if config.model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES else "causal"


def _wrap(obj: Any, name: str, options: dict[str, Any]) -> LikelihoodScorer:
    """A registry loader may return a scorer, or a (model, tokenizer) pair."""
    if is_scorer(obj):
        for key in ("token_budget", "progress"):
            if key in options:
                setattr(obj, key, options[key])
        if options.get("device") or options.get("dtype"):  # moved and checked as every loader does
            from ..runtime import place_model

            obj.model, obj.device, obj.dtype = place_model(obj.model, options.get("device") or obj.device,
                                                           options.get("dtype"))
        return obj
    if isinstance(obj, tuple) and len(obj) == 2:
        model, tokenizer = obj
        check_tokenizer(tokenizer, name)
        cls = MaskedLMScorer if getattr(tokenizer, "mask_token_id", None) is not None else CausalLMScorer
        return cls(model, tokenizer, name=name, **options)
    raise ValueError(
        f"{name!r} is a {type(obj).__name__} (word vectors or a sentence encoder), not a language model: "
        "likelihood scores need a masked or causal LM, e.g. embias-demo-mlm or bert-base-uncased"
    )


def load_likelihood_model(model: Any, *, kind: str = "auto", **options: Any) -> LikelihoodScorer:
    """A scorer from a registered name, a hub name or path, a scorer, or ``(model, tokenizer)``.

    ``kind`` forces ``"masked"`` or ``"causal"``; ``options`` go to the scorer
    (``device``, ``dtype``, ``token_budget``, ``lowercase``, ``progress``, ...).
    """
    if kind not in KINDS:
        raise ValueError(f"`kind` must be one of {KINDS}, got {kind!r}")
    from ..runtime import check_device
    from ..sentence_encoders.hub import check_model_dir

    check_device(options.get("device"))
    if not isinstance(model, str):
        return _wrap(model, getattr(model, "name", type(model).__name__), options)
    from ..names import check_name, locate_hub_model, looks_like_file, missing_path_error, require_models_extra
    from ..registry import BUILTIN_MODELS, available_models, resolve_loader

    language_models = list(available_models("language-model"))
    check_name(model, what="language model", registered=language_models)
    registered = BUILTIN_MODELS.get(model)
    if registered is not None and registered.kind != "language-model":
        raise ValueError(
            f"{model!r} is {registered.description.split(',')[0]} ({registered.kind} model), not a language model: "
            "likelihood scores need a masked or causal LM, e.g. embias-demo-mlm or bert-base-uncased"
        )
    if model in BUILTIN_MODELS:
        require_models_extra(f"the language model {model!r}")
    loader = resolve_loader(model)
    if loader is not None:
        description = available_models()[model]
        with quiet_loading():
            scorer = _wrap(loader(), model, options)
        scorer.description = scorer.description or description
        return scorer
    if Path(model).expanduser().suffix in (".txt", ".bin", ".vec") and Path(model).expanduser().is_file():
        raise ValueError(
            f"{model} is a word-vector file, not a language model: likelihood scores need a masked or causal "
            "LM directory or hub name (e.g. embias-demo-mlm, bert-base-uncased)"
        )
    if Path(model).expanduser().is_dir():
        require_models_extra(f"the language model directory {model!r}")
    elif looks_like_file(model):
        raise missing_path_error(model, "language model", language_models)
    else:  # a hub name: the local cache, then one online lookup (not transformers' retries)
        locate_hub_model(model, what="language model", registered=language_models)
    check_model_dir(model, what="language model")
    try:
        chosen = _kind_from_config(model) if kind == "auto" else kind
    except OSError as err:
        raise ModelNotFoundError(
            f"cannot load {model!r} as a language model ({err}). Give a local model directory, a hub "
            f"name (needs the internet, or the model in the local cache), or a registered language model: "
            f"{', '.join(available_models('language-model'))}"
        ) from err
    cls = MaskedLMScorer if chosen == "masked" else CausalLMScorer
    with quiet_loading():  # our own bar shows the scoring; transformers' 'Loading weights' bar is noise
        scorer = cls.from_pretrained(model, **options)
    check_tokenizer(scorer.tokenizer, model, model)  # a missing vocab.txt loads as a 5-token tokenizer
    return scorer
