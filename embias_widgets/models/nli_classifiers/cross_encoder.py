"""Any ``transformers`` sequence-classification NLI model as an :class:`NliClassifier`.

A cross-encoder reads ``[CLS] premise [SEP] hypothesis [SEP]`` and outputs one
logit per label; ``softmax`` gives (e, n, c) in the order of ``config.id2label``,
which differs between models (many SNLI models: 0 = entailment; MNLI RoBERTa:
CONTRADICTION, NEUTRAL, ENTAILMENT), so the label order is always read from
``config.id2label`` and matched case-insensitively to entailment / neutral /
contradiction (:func:`label_columns`).

Batching: pairs are grouped by exact token length and packed so that
``rows * length <= token_budget`` (:func:`~..language_models.batching.pack_by_length`);
equal lengths need no padding, so a pair's probabilities do not depend on the
pairs that share its batch, and no compute is spent on padding. Logits are
turned into probabilities in float64.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ModelNotFoundError, NliLabelError
from ..language_models.batching import pack_by_length
from ..runtime import default_device, input_length
from .protocol import LABELS, check_pair_lists

_ALIASES = {"entailment": "entailment", "entails": "entailment", "entail": "entailment",
            "neutral": "neutral",
            "contradiction": "contradiction", "contradicts": "contradiction", "contradict": "contradiction"}


def label_columns(id2label: Mapping[Any, str]) -> np.ndarray:
    """Logit index of entailment, neutral, contradiction, from ``config.id2label``.

    ``{0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}`` gives ``[0, 1, 2]``;
    ``{0: "contradiction", 1: "neutral", 2: "entailment"}`` gives ``[2, 1, 0]``.
    """
    found = {int(i): str(label) for i, label in dict(id2label).items()}
    where: dict[str, int] = {}
    for i, label in found.items():
        name = _ALIASES.get(label.strip().lower())
        if name is not None:
            where.setdefault(name, i)
    if len(found) != 3 or set(where) != set(LABELS):
        labels = ", ".join(f"{i}={found[i]!r}" for i in sorted(found))
        raise NliLabelError(
            f"the model's labels are {labels}; an NLI model needs exactly entailment, neutral and contradiction "
            "(matched case-insensitively). If you know the order, pass labels=('entailment', 'neutral', "
            "'contradiction') in the model's logit order"
        )
    return np.array([where[name] for name in LABELS], dtype=np.int64)


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
    token_budget
        At most this many tokens (rows x length) per forward pass.
    progress
        Show a tqdm bar over batches.
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
        token_budget: int = 8192,
        progress: bool = False,
    ) -> None:
        if not _is_sequence_classifier(model):
            raise TypeError(
                f"{type(model).__name__} is not a sequence classifier: an NLI model must be an "
                "AutoModelForSequenceClassification (e.g. a *ForSequenceClassification fine-tuned on SNLI/MNLI)"
            )
        id2label = dict(enumerate(labels)) if labels is not None else model.config.id2label
        self.columns = label_columns(id2label)
        self.device = default_device(device)
        self.model = model.to(self.device).eval()
        self.tokenizer = tokenizer
        self.name = name or getattr(model.config, "name_or_path", "") or type(model).__name__
        self.description = description or f"cross-encoder NLI model {self.name}"
        self.token_budget = int(token_budget)
        pack_by_length([1], self.token_budget)
        self.progress = progress
        self.max_length = input_length(model, tokenizer)
        self.forward_passes = 0

    @classmethod
    def from_pretrained(cls, name_or_path: str, **options: Any) -> CrossEncoderNli:
        """Load model and tokenizer by hub name or local path; errors name what is wrong."""
        import transformers

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
        tokenizer = transformers.AutoTokenizer.from_pretrained(name_or_path)
        model = transformers.AutoModelForSequenceClassification.from_pretrained(name_or_path)
        return cls(model, tokenizer, name=options.pop("name", str(name_or_path)), **options)

    def __repr__(self) -> str:
        order = dict(zip(LABELS, self.columns.tolist(), strict=True))
        return f"CrossEncoderNli({self.name!r}, device={self.device!r}, logit columns {order})"

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (e.g. to Dask workers) on the CPU; the live model stays on its device."""
        state = dict(self.__dict__)
        if self.device != "cpu":
            state["model"] = copy.deepcopy(self.model).to("cpu")
            state["device"] = "cpu"
        return state

    # -- scoring ------------------------------------------------------------------------------------
    def encode_pairs(
        self, premises: Sequence[str], hypotheses: Sequence[str]
    ) -> tuple[list[list[int]], list[list[int]] | None]:
        """Token ids and token-type ids of every ``[CLS] premise [SEP] hypothesis [SEP]``;
        a pair too long for the model is named."""
        premises, hypotheses = check_pair_lists(premises, hypotheses)
        if not premises:
            return [], None
        enc = self.tokenizer(premises, hypotheses, add_special_tokens=True, truncation=False,
                             return_token_type_ids=True)
        ids = enc["input_ids"]
        if self.max_length is not None:
            for i, row in enumerate(ids):
                if len(row) > self.max_length:
                    raise ValueError(
                        f"pair {i} ({premises[i][:50]!r} / {hypotheses[i][:50]!r}) has {len(row)} tokens but "
                        f"{self.name} takes at most {self.max_length}: shorten the sentences"
                    )
        return ids, enc.get("token_type_ids")

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """``(n, 3)`` float64 probabilities (entailment, neutral, contradiction), one row per pair."""
        import torch

        ids, types = self.encode_pairs(premises, hypotheses)
        out = np.zeros((len(ids), 3))
        batches = pack_by_length([len(r) for r in ids], self.token_budget)
        iterator: Any = batches
        if self.progress:
            from tqdm.auto import tqdm

            iterator = tqdm(batches, desc=f"NLI {self.name}", unit="batch")
        with torch.inference_mode():
            for batch in iterator:
                input_ids = torch.tensor([ids[i] for i in batch], dtype=torch.long, device=self.device)
                kwargs: dict[str, Any] = {"attention_mask": torch.ones_like(input_ids)}
                if types is not None and getattr(self.model.config, "type_vocab_size", 0) > 1:
                    kwargs["token_type_ids"] = torch.tensor([types[i] for i in batch], dtype=torch.long,
                                                            device=self.device)
                logits = self.model(input_ids=input_ids, **kwargs).logits.double().cpu().numpy()
                self.forward_passes += 1
                logits = logits[:, self.columns]
                logits -= logits.max(axis=1, keepdims=True)
                p = np.exp(logits)
                out[batch] = p / p.sum(axis=1, keepdims=True)
        return out

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
        return clone
