"""Contextual sense prototypes: the mean of a word's token vectors over sentences labelled with a sense.

For a sense key ``k`` with labelled sentences ``S_k`` (SSSB lines, WordNet's own
examples, or sentences a user types), the prototype is

    v_k = (1/|S_k|) sum_{S in S_k} mean_{t in target tokens of S} h_l(t)

with ``h_l`` the encoder's hidden states at its ``layer`` (``"last"``, an index, or
``"sum"``/``"mean"`` over layers), the supervised step of LMMS (Loureiro & Jorge 2019)
on whatever sentences are given. The target is the key's lemma (or any word starting
with it, so "nursed" counts for ``nurse``), or the ``target`` passed with the sentences.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..sentence_encoders.pooling import combined_layers
from .base import SenseVectors, lemma_of


def target_span(sentence: str, target: str) -> tuple[int, int] | None:
    """Character span of the first word of ``sentence`` that starts with ``target`` (case-insensitive)."""
    words = r"\s+".join(re.escape(w) for w in target.replace("_", " ").split())
    match = re.search(rf"\b{words}\w*", sentence, flags=re.IGNORECASE)
    return None if match is None else match.span()


class ContextualSenseVectors(SenseVectors):
    """Sense prototypes from a transformer sentence encoder's token vectors.

    Parameters
    ----------
    encoder
        A :class:`~embias_widgets.models.sentence_encoders.TransformerSentenceEncoder`
        (its ``model``, ``tokenizer`` and ``layer`` are used; pooling is over the target's tokens).
    """

    def __init__(self, encoder: Any) -> None:
        if not hasattr(encoder, "tokenizer") or not hasattr(encoder, "model"):
            raise ValueError(f"contextual prototypes need a transformer encoder with token vectors, got {encoder!r}")
        self.encoder = encoder
        self.name = f"prototypes:{encoder.name}"
        self.options = f"layer={encoder.layer}"
        self._sentences: dict[str, list[tuple[str, str]]] = {}
        self._token_cache: dict[tuple[str, str], np.ndarray] = {}
        self.skipped: list[str] = []
        self.version = 0  # bumped when sentences are added, so studies know cached results are stale

    def __repr__(self) -> str:
        return f"ContextualSenseVectors({self.name!r}, {len(self._sentences)} senses)"

    @property
    def dim(self) -> int:
        return int(self.encoder.model.config.hidden_size)

    def add(self, key: str, sentences: Iterable[str], *, target: str | None = None) -> int:
        """Label ``sentences`` with sense ``key``; returns how many were kept.

        A sentence without the target word is skipped and listed in ``skipped``.
        """
        word = target or lemma_of(key)
        kept = 0
        for sentence in sentences:
            if target_span(sentence, word) is None:
                self.skipped.append(f"{key}: {sentence!r} does not contain {word!r}")
                continue
            self._sentences.setdefault(key, []).append((sentence, word))
            kept += 1
        self.version += 1
        return kept

    def add_labelled(self, labelled: Iterable[Any]) -> None:
        """Add SSSB sentences (objects with ``sentence`` and ``sense_key``)."""
        for item in labelled:
            self.add(item.sense_key, [item.sentence])

    def add_wordnet_examples(self, keys: Iterable[str], wordnet: Any = None) -> None:
        """Add WordNet's own example sentences of each key's synset."""
        from ...stimuli.wordnet import load_wordnet

        wn = wordnet if wordnet is not None else load_wordnet()
        for key in keys:
            self.add(key, wn.sense(key).examples)

    def keys_of(self, lemma: str) -> list[str]:
        name = "_".join(lemma.strip().lower().split())
        return [k for k in self._sentences if lemma_of(k) == name]

    def _lookup(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        wanted = [item for k in dict.fromkeys(keys) for item in self._sentences.get(k, ())]
        todo = list(dict.fromkeys(i for i in wanted if i not in self._token_cache))
        if todo:
            for item, vector in zip(todo, self._target_vectors(todo), strict=True):
                self._token_cache[item] = vector
        out: list[np.ndarray | None] = []
        for k in keys:
            items = self._sentences.get(k)
            out.append(None if not items else np.mean([self._token_cache[i] for i in items], axis=0))
        return out

    def _target_vectors(self, items: list[tuple[str, str]]) -> list[np.ndarray]:
        import torch

        enc = self.encoder
        out = []
        with torch.inference_mode():
            for start in range(0, len(items), enc.batch_size):
                batch = items[start : start + enc.batch_size]
                tok = enc.tokenizer(
                    [s for s, _ in batch], padding=True, truncation=True, max_length=enc.max_length,
                    return_offsets_mapping=True, return_tensors="pt",
                )  # fmt: skip
                offsets = tok.pop("offset_mapping")
                output = enc.model(**tok.to(enc.device), output_hidden_states=enc.layer != "last")
                if enc.layer == "last":
                    hidden = output.last_hidden_state
                elif isinstance(enc.layer, int):
                    hidden = output.hidden_states[enc.layer]
                else:
                    stacked = torch.stack(list(combined_layers(output.hidden_states, enc.layer)))
                    hidden = stacked.mean(0) if enc.layer == "mean" else stacked.sum(0)
                for row, (sentence, word) in enumerate(batch):
                    lo, hi = target_span(sentence, word)
                    spans = offsets[row].tolist()
                    chosen = [i for i, (a, b) in enumerate(spans) if b > a and a < hi and b > lo]
                    if not chosen:
                        raise ValueError(f"the target {word!r} of {sentence!r} was truncated away")
                    out.append(hidden[row, chosen].float().mean(0).cpu().numpy().astype(np.float64))
        return out
