"""Any ``transformers`` sequence-classification NLI model as an :class:`NliClassifier`.

A cross-encoder reads ``[CLS] premise [SEP] hypothesis [SEP]`` and outputs one
logit per label; ``softmax`` gives (e, n, c) in the order of ``config.id2label``,
which differs between models (many SNLI models: 0 = entailment; MNLI RoBERTa:
CONTRADICTION, NEUTRAL, ENTAILMENT), so the label order is always read from
``config.id2label`` and matched case-insensitively to entailment / neutral /
contradiction in any spelling (:func:`label_columns`; a two-class entailment model is refused).

Batching: pairs are grouped by exact token length and packed so that
``rows * length <= token_budget`` (:func:`~..language_models.batching.pack_by_length`);
equal lengths need no padding, so a pair's probabilities do not depend on the
pairs that share its batch, and no compute is spent on padding. Logits are
turned into probabilities in float64.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ModelNotFoundError, NliLabelError
from ..json_files import check_model_json
from ..language_models.batching import pack_by_length, pack_lengths
from ..runtime import check_device, check_dtype, default_device, inference, input_length, place_model, precision_note
from ..runtime import token_budget as token_budget_for
from .backend_pairs import backend_pair_encoding
from .cls_row import cls_row_logits
from .pair_tokens import PairTokens, pad_rows
from .protocol import LABELS, check_pair_lists

#: Spellings of the three NLI labels in hub configs, after :func:`_spelling` (lowercase, letters only):
#: ``ENTAILMENT``, ``entailment``, ``Entailment``, ``entails``; ``contradiction``, ``CONTRADICTORY``, ...
_ALIASES = {
    **dict.fromkeys(("entailment", "entails", "entail", "entailed"), "entailment"),
    **dict.fromkeys(("neutral", "neutrality", "neither"), "neutral"),
    **dict.fromkeys(("contradiction", "contradicts", "contradict", "contradictory", "contradicted"), "contradiction"),
}
#: Second labels of two-class (RTE / HANS / WNLI-style) entailment models.
_NOT_ENTAILMENT = ("notentailment", "nonentailment", "notentailed", "noentailment")


def _spelling(label: Any) -> str:
    """A label as compared: lowercase letters only (``"NOT_ENTAILMENT"`` -> ``"notentailment"``)."""
    return re.sub(r"[^a-z]", "", str(label).lower())


def label_columns(id2label: Mapping[Any, str]) -> np.ndarray:
    """Logit index of entailment, neutral, contradiction, from ``config.id2label``.

    Any spelling of the three names is read (case, ``_``/``-``/spaces and the forms in
    :data:`_ALIASES`): ``{0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}`` gives ``[0, 1, 2]``;
    ``{0: "contradiction", 1: "entailment", 2: "neutral"}`` (sentence-transformers' DeBERTa-v3
    cross-encoders) gives ``[1, 2, 0]``. Refused with :class:`~..errors.NliLabelError`: a two-class
    (entailment / not entailment) model, which cannot tell neutral from contradiction; ``LABEL_0``-style
    names, whose order the config does not say; any other name.
    """
    found = {int(i): str(label) for i, label in dict(id2label).items()}
    labels = ", ".join(f"{i}={found[i]!r}" for i in sorted(found))
    spelled = {i: _spelling(label) for i, label in found.items()}
    if len(found) == 2 and any(sp in _NOT_ENTAILMENT or _ALIASES.get(sp) for sp in spelled.values()):
        raise NliLabelError(
            f"the model's labels are {labels}: a two-class (entailment / not entailment) model cannot say neutral "
            "from contradiction, and the NLI study needs all three probabilities. Use a three-class NLI model "
            "(fine-tuned on MNLI or SNLI, e.g. a DeBERTa-v3 or RoBERTa MNLI cross-encoder)"
        )
    where: dict[str, int] = {}
    for i, sp in spelled.items():
        name = _ALIASES.get(sp)
        if name is not None and name in where:
            raise NliLabelError(f"the model's labels are {labels}: two of them mean {name}; pass labels=(...) "
                                "with one name per logit, in the model's logit order")
        if name is not None:
            where[name] = i
    if len(found) != 3 or set(where) != set(LABELS):
        generic = all(re.fullmatch(r"label_?\d+", label.strip().lower()) for label in found.values())
        why = ("names such as LABEL_0 do not say which logit is which (read the model card)" if generic
               else "an NLI model needs exactly entailment, neutral and contradiction (in any spelling)")
        raise NliLabelError(
            f"the model's labels are {labels}; {why}. If you know the order, pass labels=('entailment', "
            "'neutral', 'contradiction') in the model's logit order"
        )
    return np.array([where[name] for name in LABELS], dtype=np.int64)


def _to_device(array: np.ndarray, device: str, cuda: bool) -> Any:
    """An int64 host array as a tensor on ``device``: on CUDA through pinned memory with a non-blocking copy
    (the host goes on to the next batch), elsewhere the array's own memory."""
    import torch

    tensor = torch.from_numpy(np.ascontiguousarray(array, dtype=np.int64))
    return tensor.pin_memory().to(device, non_blocking=True) if cuda else tensor


def _is_sequence_classifier(model: Any) -> bool:
    return type(model).__name__.endswith("ForSequenceClassification")


class CrossEncoderNli:
    """An NLI cross-encoder (``AutoModelForSequenceClassification``) with length-bucketed batches.

    Parameters
    ----------
    model, tokenizer
        A ``*ForSequenceClassification`` model and its tokenizer.
    labels
        Label names in the model's logit order, overriding ``config.id2label``
        (for models saved with ``LABEL_0``-style names).
    device
        ``"cpu"``, ``"cuda"``, ...; default CUDA when torch sees a GPU, else CPU.
    dtype
        ``"float32"`` (default), ``"bfloat16"`` or ``"float16"``; a half precision's tolerance is
        :attr:`precision_note` (see :mod:`embias_widgets.models.runtime`).
    token_budget
        At most this many tokens (rows x length) per forward pass; default 8192 on the CPU, sized from
        free GPU memory on CUDA.
    progress
        Show a tqdm bar over batches.
    cls_row
        Run the last encoder layer at the ``[CLS]`` row only, the one row the
        classification head reads (:mod:`.cls_row`; BERT-, RoBERTa- and
        ALBERT-shaped models, after a check against the full pass); logits
        differ from the full pass by float rounding only.
    pad_to
        Batch pairs in length buckets of this many tokens, padded (with an attention mask) to the bucket's
        top, instead of exact-length batches without padding (the default): fewer, larger batches and
        fewer distinct shapes, which can pay on a GPU in half precision (``bench/bench_gpu_scale.py``
        measures both); a pair's probabilities then depend on its padding by float rounding (float32:
        within 1e-5, tested).
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        name: str | None = None,
        description: str = "",
        labels: Sequence[str] | None = None,
        device: str | None = None,
        dtype: str | None = None,
        token_budget: int | None = None,
        progress: bool = False,
        cls_row: bool = True,
        pad_to: int | None = None,
    ) -> None:
        if not _is_sequence_classifier(model):
            raise TypeError(
                f"{type(model).__name__} is not a sequence classifier: an NLI model must be an "
                "AutoModelForSequenceClassification (e.g. a *ForSequenceClassification fine-tuned on SNLI/MNLI)"
            )
        id2label = dict(enumerate(labels)) if labels is not None else model.config.id2label
        self.columns = label_columns(id2label)
        self.model, self.device, self.dtype = place_model(model, device, dtype)  # checked and moved (runtime)
        self.tokenizer = tokenizer
        self.name = name or getattr(model.config, "name_or_path", "") or type(model).__name__
        self.description = description or f"cross-encoder NLI model {self.name}"
        self._budget_asked = token_budget
        self.token_budget = token_budget_for(token_budget, self.model, self.device, self.dtype)
        pack_by_length([1], self.token_budget)
        self.progress = progress
        self.max_length = input_length(model, tokenizer)
        self.forward_passes = 0
        self.cls_row = bool(cls_row)
        if pad_to is not None and int(pad_to) < 1:
            raise ValueError(f"`pad_to` must be a positive number of tokens, got {pad_to}")
        self.pad_to = None if pad_to in (None, 1) else int(pad_to)
        self._fast: Any = None  # the [CLS]-row logits function once checked; False where it does not apply
        self._pieces: PairTokens | None = None  # sentence parts tokenised once (predict_parts)

    @classmethod
    def from_pretrained(cls, name_or_path: str, **options: Any) -> CrossEncoderNli:
        """Load model and tokenizer by hub name or local path; errors name what is wrong."""
        import transformers

        check_model_json(name_or_path)  # a local config.json that is not UTF-8 JSON, named with line and column
        try:
            config = transformers.AutoConfig.from_pretrained(name_or_path)
        except (OSError, ValueError) as err:
            raise ModelNotFoundError(
                f"cannot load {name_or_path!r} as an NLI model ({err}). Give a local model directory or a hub "
                "name (needs the internet or the local cache)"
            ) from err
        architectures = list(getattr(config, "architectures", None) or [])
        if architectures and not any(a.endswith("ForSequenceClassification") for a in architectures):
            raise TypeError(
                f"{name_or_path!r} is a {', '.join(architectures)}, not a sequence classifier: an NLI model must be "
                "an AutoModelForSequenceClassification fine-tuned on NLI (SNLI, MNLI)"
            )
        check_device(options.get("device"))  # before the weights load
        check_dtype(options.get("dtype"), default_device(options.get("device")))
        if options.get("labels") is None:
            label_columns(config.id2label)  # refuse a model with unreadable labels before loading its weights
        tokenizer = transformers.AutoTokenizer.from_pretrained(name_or_path)
        model = transformers.AutoModelForSequenceClassification.from_pretrained(name_or_path)
        return cls(model, tokenizer, name=options.pop("name", str(name_or_path)), **options)

    @property
    def precision_note(self) -> str:
        """``dtype=bfloat16 (probabilities agree with float32 to about ...)`` for a half precision, else ``""``."""
        return precision_note(self.dtype, "probabilities")

    def __repr__(self) -> str:
        order = dict(zip(LABELS, self.columns.tolist(), strict=True))
        return f"CrossEncoderNli({self.name!r}, device={self.device!r}, logit columns {order})"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (e.g. to Dask workers) on the CPU; the live model stays on its device."""
        state = dict(self.__dict__)
        if self.device != "cpu":
            state["model"] = copy.deepcopy(self.model).to("cpu")
            state["device"] = "cpu"
        state["_fast"] = None  # a closure over the live model: checked again where it lands
        state["_pieces"] = None  # a cache, rebuilt where it lands
        return state

    def to_device(self, device: str) -> CrossEncoderNli:
        """A copy on ``device`` (same weights and options; a Dask worker's own GPU): the model placed and the
        token budget sized for it again unless one was given."""
        clone = copy.copy(self)
        clone.model, clone.device, clone.dtype = place_model(copy.deepcopy(self.model), device, self.dtype)
        clone.token_budget = token_budget_for(self._budget_asked, clone.model, clone.device, clone.dtype)
        clone._fast, clone._pieces, clone.forward_passes = None, None, 0
        return clone

    # -- scoring ------------------------------------------------------------------------------------
    def encode_pairs(
        self, premises: Sequence[str], hypotheses: Sequence[str]
    ) -> tuple[list[list[int]], list[list[int]] | None]:
        """Token ids and token-type ids of every ``[CLS] premise [SEP] hypothesis [SEP]``;
        a pair too long for the model is named."""
        premises, hypotheses = check_pair_lists(premises, hypotheses)
        if not premises:
            return [], None
        fast = backend_pair_encoding(self.tokenizer, premises, hypotheses)
        if fast is None:
            enc = self.tokenizer(premises, hypotheses, add_special_tokens=True, truncation=False,
                                 return_token_type_ids=True)
            fast = enc["input_ids"], enc.get("token_type_ids")
        ids, types = fast
        if self.max_length is not None:
            for i, row in enumerate(ids):
                if len(row) > self.max_length:
                    raise ValueError(
                        f"pair {i} ({premises[i][:50]!r} / {hypotheses[i][:50]!r}) has {len(row)} tokens but "
                        f"{self.name} takes at most {self.max_length}: shorten the sentences"
                    )
        return ids, types

    def _logits_function(self) -> Any:
        """The [CLS]-row shortcut (:func:`.cls_row.cls_row_logits`) or the whole model."""
        if self._fast is None:
            fast = None
            if self.cls_row:
                ids, types = self.encode_pairs(["A man is playing a guitar on stage."] * 2,
                                               ["A person plays music."] * 2)  # rows of one length
                fast = cls_row_logits(self.model, ids, types if self._uses_types else None)
            self._fast = fast or False
        if self._fast:
            return self._fast
        return lambda input_ids, **kwargs: self.model(input_ids=input_ids, **kwargs).logits

    @property
    def options(self) -> str:
        """What besides the weights, tokenizer and label order changes its probabilities (by float rounding):
        an object's content fingerprint, which keys saved and resumed results, includes it."""
        return f"cls_row={self.cls_row},pad_to={self.pad_to}"

    @property
    def _uses_types(self) -> bool:
        return getattr(self.model.config, "type_vocab_size", 0) > 1

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """``(n, 3)`` float64 probabilities (entailment, neutral, contradiction), one row per pair."""
        return self.predict_encoded(*self.encode_pairs(premises, hypotheses))

    def predict_encoded(self, ids: Sequence[Sequence[int]], types: Sequence[Sequence[int]] | None) -> np.ndarray:
        """:meth:`predict` for pairs already through :meth:`encode_pairs` (an engine tokenises the next chunk
        while this one runs)."""
        if not len(ids):
            return np.zeros((0, 3))
        lengths = np.array([len(r) for r in ids], dtype=np.int64)
        pad = int(getattr(self.tokenizer, "pad_token_id", None) or 0)

        def rows_of(batch: np.ndarray, width: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
            picked = batch.tolist()
            flat = np.fromiter((t for i in picked for t in ids[i]), dtype=np.int64)
            flat_types = (np.zeros_like(flat) if types is None else
                          np.fromiter((t for i in picked for t in types[i]), dtype=np.int64))
            out_ids, out_types = pad_rows(flat, flat_types, lengths[batch], width or int(lengths[batch[0]]), pad)
            return out_ids, None if types is None else out_types

        return self._predict_rows(lengths, rows_of)

    def predict_parts(self, parts: Any) -> np.ndarray:
        """:meth:`predict` for the pairs of a template probe's chunk given as
        :class:`~embias_widgets.stimuli.nli_probes.PairParts`: each subject part and template tail tokenised
        once per classifier and the pairs' ids assembled from the pieces (:mod:`.pair_tokens`), the same ids
        as :meth:`encode_pairs` gives (checked once per probe); a tokenizer whose pieces do not compose gets
        whole pairs (:meth:`predict`)."""
        if self._pieces is None:
            self._pieces = PairTokens(self.tokenizer)
        built = self._pieces.assemble(parts) if len(parts) else None
        if built is None:
            return self.predict(parts.premises(), parts.hypotheses())
        lengths, rows_of = built
        if self.max_length is not None and int(lengths.max()) > self.max_length:
            i = int(np.argmax(lengths > self.max_length))
            premise, hypothesis = parts.premises()[i], parts.hypotheses()[i]
            raise ValueError(f"pair {i} ({premise[:50]!r} / {hypothesis[:50]!r}) has {int(lengths[i])} tokens but "
                             f"{self.name} takes at most {self.max_length}: shorten the sentences")
        return self._predict_rows(lengths, rows_of)

    def _predict_rows(self, lengths: np.ndarray, rows_of: Any) -> np.ndarray:
        """Probabilities of pairs of ``lengths`` whose ``(ids, types)`` rows ``rows_of(index array)`` gives, in
        equal-length batches under the token budget.

        The logits stay on the model's device until the last batch: one device-to-host copy per call
        (per chunk), so on CUDA no batch waits for the previous one and the next batch is assembled while one
        runs; a batch's ids go through pinned memory with a non-blocking copy there. On the CPU the same
        code runs without either (nothing to copy)."""
        import torch

        logits_of = self._logits_function()
        widths = lengths if not self.pad_to else -(-lengths // self.pad_to) * self.pad_to
        batches = pack_lengths(widths, self.token_budget)
        iterator: Any = batches
        if self.progress:
            from tqdm.auto import tqdm

            iterator = tqdm(batches, desc=f"NLI {self.name}", unit="batch")
        cuda = torch.device(self.device).type == "cuda"
        uses_types = self._uses_types
        collected: Any = None
        with inference(self.device, self.dtype):  # runtime: no cuDNN attention in half precision
            for batch in iterator:
                width = int(widths[batch[0]])
                ids, types = rows_of(batch, width)
                kwargs: dict[str, Any] = {}  # no attention mask where a batch of one length has no padding
                input_ids = _to_device(ids, self.device, cuda)
                if self.pad_to and bool((lengths[batch] < width).any()):
                    mask = np.arange(width)[None, :] < lengths[batch][:, None]
                    kwargs["attention_mask"] = _to_device(mask.astype(np.int64), self.device, cuda)
                if types is not None and uses_types:
                    kwargs["token_type_ids"] = _to_device(types, self.device, cuda)
                logits = logits_of(input_ids, **kwargs)
                self.forward_passes += 1
                if collected is None:
                    collected = torch.empty((len(lengths), logits.shape[1]), dtype=logits.dtype, device=logits.device)
                collected[_to_device(batch, self.device, cuda)] = logits
        logits = collected.cpu().double().numpy()[:, self.columns]  # one copy to the host
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    # -- debiasing (Dev et al. 2020, section 4) ----------------------------------------------------------
    def input_embeddings(self) -> np.ndarray:
        """The input word-embedding matrix (vocabulary x dim) as float64."""
        return self.model.get_input_embeddings().weight.detach().cpu().double().numpy()

    def token_id(self, word: str) -> int:
        """The vocabulary id of a word that is one token, else ValueError."""
        pieces = self.tokenizer.tokenize(word)
        if len(pieces) != 1:
            raise ValueError(f"{word!r} is {len(pieces)} tokens {pieces} in {self.name}'s vocabulary, not one")
        return int(self.tokenizer.convert_tokens_to_ids(pieces[0]))

    def with_input_embeddings(self, W: np.ndarray, *, suffix: str) -> CrossEncoderNli:
        """A copy whose input word embeddings are ``W`` (position and type embeddings unchanged)."""
        import torch

        clone = copy.copy(self)
        clone.model = copy.deepcopy(self.model)
        weight = clone.model.get_input_embeddings().weight
        if tuple(weight.shape) != tuple(np.shape(W)):
            raise ValueError(f"new embeddings have shape {np.shape(W)}, the model's are {tuple(weight.shape)}")
        with torch.no_grad():
            weight.copy_(torch.as_tensor(np.asarray(W), dtype=weight.dtype))
        clone.name = f"{self.name} ({suffix})"
        clone.description = f"{self.description}; {suffix}"
        clone.forward_passes = 0
        clone._fast = None  # the shortcut closes over the model it was made for
        clone._pieces = None
        return clone
