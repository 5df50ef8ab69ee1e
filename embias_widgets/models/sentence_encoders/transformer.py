"""A Hugging Face encoder as a sentence encoder: pooled hidden states (see :mod:`.pooling`), cached per
sentence, loaded lazily (torch and transformers are imported only when a model is loaded or run)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ... import EmbiasWarning
from ..errors import ModelNotFoundError
from ..fingerprints import fingerprint_or_none, object_fingerprint
from ..runtime import (
    check_device,
    check_dtype,
    default_device,
    inference,
    input_length,
    place_model,
    precision_note,
    token_budget,
)
from ..static_vectors import Encoding, OutOfVocabulary
from .hub import check_model_dir, from_pretrained
from .pooling import check_layer, check_pooling, combined_layers, pool_hidden_states
from .st_config import configured_options, read_pooling_config

_PROGRESS_MIN_SENTENCES = 512
_ENCODER_OPTIONS = {"pooling", "layer", "normalize", "batch_size", "max_length", "device", "dtype", "token_budget",
                    "progress"}

# (model identity, options) -> sentence -> vector: re-runs and edits encode only new sentences
_ENCODING_CACHE: dict[tuple[str, str], dict[str, np.ndarray]] = {}


def clear_encoding_cache() -> None:
    """Forget every cached sentence vector (all models)."""
    _ENCODING_CACHE.clear()


class TransformerSentenceEncoder:
    """A Hugging Face encoder as a sentence encoder: pooled hidden states.

    Parameters
    ----------
    model, tokenizer
        A transformers model (``AutoModel``) and its tokenizer. The tokenizer
        decides casing: cased models see the sentence as written (sent-bias
        lowercased input to cased BERT; its issue #1).
    name
        Shown in results (May et al.'s ``model`` column).
    pooling
        ``"mean"`` (default), ``"max"``, ``"first"``, ``"last"``, ``"weighted_mean"``, ``"mean_sqrt_len"``, or
        several joined by ``+`` (see :mod:`.pooling`). :meth:`from_pretrained` defaults to what a
        sentence-transformers directory is saved with (:mod:`.st_config`).
    layer
        ``"last"`` (default), an int index into ``hidden_states``, ``"sum"`` or ``"mean"``.
    normalize
        L2-normalise each sentence vector (sentence-transformers' ``Normalize``).
    batch_size
        Sentences per forward pass.
    max_length
        Token limit; default the smaller of the tokenizer's and the model's
        position limit. Longer sentences are truncated with an
        :class:`~embias_widgets.EmbiasWarning` naming them.
    device
        ``"cpu"``, ``"cuda"``, ...; default CUDA when available, else CPU.
    dtype
        ``"float32"``, ``"bfloat16"`` or ``"float16"`` (:data:`~embias_widgets.models.runtime.DTYPES`); default:
        float32 (half-precision weights are brought to float32). A half precision is stated, with its
        tolerance, in :attr:`options`; pooling and normalisation run in float32 either way.
    token_budget
        Most tokens (rows x padded length) per forward pass on top of ``batch_size``; default none on the
        CPU, and on CUDA sized from free GPU memory (:func:`~embias_widgets.models.runtime.token_budget`).
    lowercase, option_sources
        Set by :meth:`from_pretrained` from a sentence-transformers directory: lowercase the text
        (``do_lower_case``), and where each option came from (shown in :attr:`options`).
    progress
        Show a tqdm bar; ``None`` (default) shows one for long encodes only.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str,
        pooling: str = "mean",
        layer: int | str = "last",
        normalize: bool = False,
        batch_size: int = 64,
        max_length: int | None = None,
        device: str | None = None,
        dtype: str | None = None,
        token_budget: int | None = None,
        progress: bool | None = None,
        cache_key: str | None = None,
        lowercase: bool = False,
        option_sources: dict[str, str] | None = None,
    ) -> None:
        check_pooling(pooling)
        n_states = int(getattr(model.config, "num_hidden_layers", 0)) + 1
        self.layer = check_layer(layer, n_states)
        if batch_size < 1:
            raise ValueError(f"`batch_size` must be at least 1, got {batch_size}")
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.pooling = pooling
        self.normalize = normalize
        self.batch_size = batch_size
        self.max_length = max_length or input_length(model, tokenizer) or 512
        self.model, self.device, self.dtype = place_model(model, device, dtype)
        self.lowercase = bool(lowercase)
        self.option_sources = dict(option_sources or {})
        self.token_budget = _token_cap(token_budget, self.model, self.device, self.dtype)
        self.progress = progress
        if cache_key is None:  # a hash of the weights and tokenizer, never id(model) (a later model may reuse it)
            cache_key = "weights:" + object_fingerprint(self)
        key = (cache_key, f"{self.options},max_length={self.max_length}")
        self._cache = _ENCODING_CACHE.setdefault(key, {})
        self._unknown_only: set[str] = set()  # sentences seen only as unknown tokens
        self._unknown_checked: set[str] = set()
        self.n_encoded = 0  # sentences that went through the model (not the cache)

    @property
    def options(self) -> str:
        """Options string for result tables (May et al.'s ``options`` column): each option, with where it
        came from when :meth:`from_pretrained` chose it (``pooling=mean (from 1_Pooling/config.json)``), and a
        half precision with its tolerance."""

        def why(option: str) -> str:
            return f" ({self.option_sources[option]})" if option in self.option_sources else ""

        parts = [f"pooling={self.pooling}{why('pooling')}", f"layer={self.layer}",
                 f"normalize={self.normalize}{why('normalize')}"]
        if self.lowercase:
            parts.append(f"lowercase=True{why('lowercase')}")
        return ",".join([*parts, *filter(None, [precision_note(self.dtype, "vectors")])])

    @classmethod
    def from_pretrained(
        cls, name_or_path: str | Path, *, name: str | None = None, **options: Any
    ) -> TransformerSentenceEncoder:
        """Load ``AutoModel`` + ``AutoTokenizer`` from a hub name or a local directory.

        A sentence-transformers directory is pooled as it is saved (``modules.json``,
        ``1_Pooling/config.json``, ``sentence_bert_config.json``: pooling, normalisation, token limit,
        lowercasing), so vectors equal ``SentenceTransformer(...).encode``; ``pooling``, ``normalize`` and
        ``max_length`` given here override it. :attr:`options` says which was used and why.
        """
        unknown = sorted(set(options) - _ENCODER_OPTIONS)
        if unknown:
            raise ValueError(
                f"unknown option(s) {', '.join(unknown)} for sentence encoder "
                f"{name or str(name_or_path)!r}: "
                f"use {', '.join(sorted(_ENCODER_OPTIONS))} (casing follows the model's tokenizer)"
            )
        device, dtype = default_device(options.pop("device", None) or None), options.pop("dtype", None)
        fingerprint = fingerprint_or_none(name_or_path)  # content, not the path: a retrained folder is another model
        model, tokenizer = _load_pretrained(str(name_or_path), device, dtype, fingerprint)
        configured = configured_options(read_pooling_config(name_or_path), options, str(name_or_path))
        return cls(
            model,
            tokenizer,
            name=name or str(name_or_path),
            device=device,
            dtype=dtype,
            cache_key=None if fingerprint is None else f"{fingerprint}@{device}",
            **configured,
        )

    def __repr__(self) -> str:
        return f"TransformerSentenceEncoder({self.name!r}, {self.options})"

    def encode(self, items: Iterable[str]) -> Encoding:
        """Vectors for ``items`` (sentences), from the cache where possible.

        Every item is encoded (a sentence encoder has no out-of-vocabulary
        items); an empty string is reported as unusable.
        """
        items = list(items)
        empty = [s for s in items if not s.strip()]
        todo = list(dict.fromkeys(s for s in items if s.strip() and s not in self._cache))
        if todo:
            for sentence, vector in zip(todo, self._encode_new(todo), strict=True):
                self._cache[sentence] = vector
        kept = tuple(s for s in items if s.strip())
        vectors = np.vstack([self._cache[s] for s in kept]) if kept else np.zeros((0, 1))
        oov = tuple(OutOfVocabulary(s, (s,), ()) for s in empty)
        unchecked = list(dict.fromkeys(s for s in kept if s not in self._unknown_checked))
        if unchecked:
            self._unknown_only.update(self._only_unknown_tokens(unchecked))
            self._unknown_checked.update(unchecked)
        unk = getattr(self.tokenizer, "unk_token", None) or "unknown"
        item_notes = tuple(
            (s, f"{self.name} sees it only as unknown tokens ({unk}), so its vector says nothing about its words")
            for s in dict.fromkeys(kept)
            if s in self._unknown_only
        )
        return Encoding(kept, vectors, oov, item_notes=item_notes)

    def _only_unknown_tokens(self, sentences: Sequence[str]) -> set[str]:
        """The sentences whose every non-special token is the tokenizer's unknown token."""
        unk_id = getattr(self.tokenizer, "unk_token_id", None)
        if unk_id is None:
            return set()
        special = set(getattr(self.tokenizer, "all_special_ids", ()) or ()) - {unk_id}
        out = set()
        for sentence, ids in zip(
            sentences, self.tokenizer(list(sentences), truncation=False, verbose=False)["input_ids"], strict=True
        ):
            content = [i for i in ids if i not in special]
            if content and all(i == unk_id for i in content):
                out.add(sentence)
        return out

    # -- internals -----------------------------------------------------------
    def _warn_truncated(self, sentences: Sequence[str]) -> list[int]:
        """Each sentence's length in tokens, as the model reads it (truncated); a warning names each longer one."""
        lengths = [len(ids) for ids in self.tokenizer(list(sentences), truncation=False, verbose=False)["input_ids"]]
        for sentence, n in zip(sentences, lengths, strict=True):
            if n > self.max_length:
                shown = sentence if len(sentence) <= 80 else sentence[:77] + "..."
                warnings.warn(
                    f"sentence {shown!r} has {n} tokens; it was truncated to the model's limit of "
                    f"{self.max_length} (shorten it, or pass a larger max_length "
                    "if the model allows)",
                    EmbiasWarning,
                    stacklevel=4,
                )
        return [min(n, self.max_length) for n in lengths]

    def _encode_new(self, sentences: list[str]) -> list[np.ndarray]:
        from tqdm.auto import tqdm

        texts_in = [s.lower() for s in sentences] if self.lowercase else list(sentences)
        lengths = self._warn_truncated(texts_in)
        batches = padded_batches(lengths, [len(s) for s in sentences], self.batch_size, self.token_budget)
        show = self.progress if self.progress is not None else len(sentences) >= _PROGRESS_MIN_SENTENCES
        out: list[np.ndarray | None] = [None] * len(sentences)
        with inference(self.device, self.dtype):
            for batch in tqdm(batches, desc=f"encoding with {self.name}", unit="batch", disable=not show):
                texts = [texts_in[i] for i in batch]
                enc = self.tokenizer(
                    texts,
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self.device)
                vectors = self._pool(enc).float().cpu().numpy().astype(np.float64)
                for i, vec in zip(batch, vectors, strict=True):
                    out[i] = vec
        self.n_encoded += len(sentences)
        return out  # type: ignore[return-value]

    def _pool(self, enc: Any) -> Any:
        import torch

        wants_all = self.layer != "last"
        output = self.model(**enc, output_hidden_states=wants_all)
        mask = enc["attention_mask"]
        if self.layer == "last":
            pooled = pool_hidden_states(output.last_hidden_state.float(), mask, self.pooling)
        elif isinstance(self.layer, int):
            pooled = pool_hidden_states(output.hidden_states[self.layer].float(), mask, self.pooling)
        else:
            per_layer = torch.stack([pool_hidden_states(h.float(), mask, self.pooling)
                                     for h in combined_layers(output.hidden_states, self.layer)])
            pooled = per_layer.mean(dim=0) if self.layer == "mean" else per_layer.sum(dim=0)
        if self.normalize:
            pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
        return pooled


@functools.lru_cache(maxsize=4)
def _load_pretrained(name_or_path: str, device: str | None, dtype: str | None,
                     fingerprint: str | None = None) -> tuple[Any, Any]:
    """One ``(model, tokenizer)`` per name, device, dtype and content fingerprint, shared by every encoder
    (``fingerprint`` is part of the key only: a model retrained in the same folder is loaded again)."""
    from transformers import AutoModel, AutoTokenizer

    check_device(device)  # before the weights load: a machine without CUDA is told at once
    check_dtype(dtype, device)
    path = check_model_dir(name_or_path, what="sentence encoder")
    try:
        tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        model = from_pretrained(AutoModel, name_or_path, path)
    except OSError as err:
        raise ModelNotFoundError(
            f"cannot load {name_or_path!r} as a transformer model ({err}); give a local model "
            "directory, or a hub name while online"
        ) from None
    return place_model(model, device, dtype)[0], tokenizer


def _token_cap(requested: int | None, model: Any, device: str, dtype: str) -> int | None:
    """Tokens per padded batch: as given; none on the CPU (``batch_size`` alone, as before); on CUDA sized
    from free GPU memory (:func:`~embias_widgets.models.runtime.token_budget`)."""
    if requested is None and not str(device).startswith("cuda"):
        return None
    return token_budget(requested, model, device, dtype)


def padded_batches(lengths: Sequence[int], sort_keys: Sequence[int], batch_size: int,
                   cap: int | None) -> list[list[int]]:
    """Sentence indices in batches of at most ``batch_size`` rows, in order of ``sort_keys`` (less padding).

    With a token ``cap`` the order is by token length and a batch also stops before its rows times its
    longest sentence pass ``cap`` (a sentence longer than ``cap`` gets a batch of its own), so a long
    sentence shares its batch with fewer others instead of running out of memory.
    """
    if cap is None:
        order = sorted(range(len(lengths)), key=lambda i: sort_keys[i])
        return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if batches and len(batches[-1]) < batch_size and (len(batches[-1]) + 1) * lengths[i] <= cap:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches
