"""How a sentence-transformers model directory says it is pooled (Reimers & Gurevych 2019, section 3).

A model saved by sentence-transformers lists its modules in ``modules.json``: a ``Transformer``, then a
``Pooling`` whose ``1_Pooling/config.json`` names the pooling (``pooling_mode``, or the older booleans
``pooling_mode_cls_token``, ``pooling_mode_mean_tokens``, ...), then optionally ``Normalize`` (unit-length
vectors); ``sentence_bert_config.json`` gives the token limit (``max_seq_length``) and whether the text is
lowercased (``do_lower_case``). :func:`read_pooling_config` reads them; a module we do not reproduce (a
``Dense`` projection, say) is named, so vectors that would differ from ``SentenceTransformer.encode`` are
never silent. Hub names are read from the Hugging Face cache (``hf_hub_download``: offline, only what is
cached).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import EmbiasWarning
from ..json_files import read_json_file
from .pooling import SENTENCE_TRANSFORMERS_POOLINGS

MODULES_FILE = "modules.json"
SENTENCE_BERT_FILE = "sentence_bert_config.json"
#: Where sentence-transformers looks for the Transformer module's options, in its order.
TRANSFORMER_CONFIG_FILES = (SENTENCE_BERT_FILE, *(f"sentence_{kind}_config.json" for kind in (
    "roberta", "distilbert", "camembert", "albert", "xlm-roberta", "xlnet")))
#: Modules whose effect we reproduce: the encoder itself, the pooling, the L2 normalisation.
KNOWN_MODULES = ("Transformer", "Pooling", "Normalize")
#: sentence-transformers < 5's boolean keys of ``1_Pooling/config.json``, in its order of concatenation.
LEGACY_KEYS = {
    "cls": "pooling_mode_cls_token",
    "max": "pooling_mode_max_tokens",
    "mean": "pooling_mode_mean_tokens",
    "mean_sqrt_len_tokens": "pooling_mode_mean_sqrt_len_tokens",
    "weightedmean": "pooling_mode_weightedmean_tokens",
    "lasttoken": "pooling_mode_lasttoken",
}


@dataclass(frozen=True)
class PoolingConfig:
    """What a sentence-transformers directory says: each value with the file it came from.

    ``pooling`` uses our names (:data:`~.pooling.POOLINGS`, several joined by ``+``); ``sources`` maps an
    option (``pooling``, ``normalize``, ``max_length``, ``lowercase``) to the file that set it;
    ``unsupported`` names the modules (``"2_Dense (Dense)"``) that sentence-transformers would apply and we do not.
    """

    pooling: str
    normalize: bool
    max_length: int | None = None
    lowercase: bool = False
    sources: dict[str, str] = field(default_factory=dict)
    unsupported: tuple[str, ...] = ()


def pooling_from_config(config: dict[str, Any]) -> str:
    """Our pooling name from a ``1_Pooling/config.json`` dict (``pooling_mode`` or the legacy booleans).

    Several modes are concatenated by sentence-transformers in its legacy order (cls, max, mean,
    mean_sqrt_len_tokens, weightedmean, lasttoken); none at all means ``mean``, as there.
    """
    mode = config.get("pooling_mode")
    if mode is None:
        modes = [m for m, key in LEGACY_KEYS.items() if config.get(key, False)] or ["mean"]
    else:
        modes = [mode] if isinstance(mode, str) else list(mode)
    unknown = [m for m in modes if m not in SENTENCE_TRANSFORMERS_POOLINGS]
    if unknown:
        raise ValueError(f"unknown sentence-transformers pooling mode(s) {unknown} in 1_Pooling/config.json: "
                         f"known are {', '.join(SENTENCE_TRANSFORMERS_POOLINGS)}; pass pooling=... to choose one")
    return "+".join(SENTENCE_TRANSFORMERS_POOLINGS[m] for m in modes)


def read_pooling_config(name_or_path: str | Path) -> PoolingConfig | None:
    """The pooling a sentence-transformers directory (or cached hub model) is saved with, or ``None`` when
    it has no ``modules.json`` with a ``Pooling`` module (a plain transformers model)."""
    modules = _read_json(name_or_path, MODULES_FILE)
    if not isinstance(modules, list):
        return None
    kinds = [(str(m.get("path", "")), str(m.get("type", "")).rsplit(".", 1)[-1]) for m in modules]
    pooling_dir = next((path for path, kind in kinds if kind == "Pooling"), None)
    if pooling_dir is None:
        return None
    config = _read_json(name_or_path, f"{pooling_dir}/config.json" if pooling_dir else "config.json")
    if not isinstance(config, dict):
        raise ValueError(f"{name_or_path}: modules.json names a Pooling module but {pooling_dir}/config.json is "
                         "missing or not JSON; save the model again with SentenceTransformer.save(...)")
    pooling_file = f"{pooling_dir}/config.json"
    sources = {"pooling": pooling_file}
    normalize = any(kind == "Normalize" for _, kind in kinds)
    if normalize:
        sources["normalize"] = MODULES_FILE
    bert_file, bert = next(((f, c) for f in TRANSFORMER_CONFIG_FILES
                            if isinstance(c := _read_json(name_or_path, f), dict)), (SENTENCE_BERT_FILE, {}))
    max_length = bert.get("max_seq_length")
    if isinstance(max_length, int) and max_length > 0:
        sources["max_length"] = bert_file
    else:
        max_length = None
    lowercase = bool(bert.get("do_lower_case", False))  # sentence-transformers >= 5 writes it into the tokenizer
    if lowercase:
        sources["lowercase"] = bert_file
    unsupported = tuple(f"{path or '.'} ({kind})" for path, kind in kinds if kind not in KNOWN_MODULES)
    return PoolingConfig(pooling_from_config(config), normalize, max_length, lowercase, sources, unsupported)


def _read_json(name_or_path: str | Path, filename: str) -> Any:
    """A JSON file of a local directory, or of a hub model in the Hugging Face cache; ``None`` if absent."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        file = path / filename
        return read_json_file(file) if file.is_file() else None
    try:
        from huggingface_hub import hf_hub_download

        cached = hf_hub_download(str(name_or_path), filename)
    except Exception:  # not on the hub, not cached while offline, no such file: a plain transformers model
        return None
    return read_json_file(cached)


def configured_options(config: PoolingConfig | None, options: dict[str, Any], name: str) -> dict[str, Any]:
    """The encoder's options: ``options`` as given, the rest from a sentence-transformers ``config``, and
    ``option_sources`` saying which came from where. A module we do not reproduce is warned about."""
    out = dict(options)
    if config is None:
        if "pooling" not in options:
            out["option_sources"] = {"pooling": "default: no sentence-transformers 1_Pooling/config.json"}
        return out
    if config.unsupported:
        warnings.warn(
            f"{name} is a sentence-transformers model with module(s) {', '.join(config.unsupported)} after the "
            "pooling that embias-widgets does not apply: its vectors are the pooled ones, not those of "
            "SentenceTransformer.encode",
            EmbiasWarning,
            stacklevel=4,
        )
    configured = {"pooling": config.pooling, "normalize": config.normalize, "max_length": config.max_length}
    sources = {}
    for option, value in configured.items():
        if option not in options and value is not None:
            out[option] = value
            if option in config.sources:
                sources[option] = f"from {config.sources[option]}"
    if "normalize" not in options and not config.normalize:
        sources["normalize"] = "no Normalize module in modules.json"
    if config.lowercase:
        out["lowercase"] = True
        sources["lowercase"] = f"from {config.sources['lowercase']}"
    out["option_sources"] = sources
    return out
