"""Loading models by Hugging Face hub name or local directory (torch, lazily)."""

from __future__ import annotations

from typing import Any


def load_hub_model(name: str, **options: Any) -> Any:
    """Load a transformer model directory or hub name as a sentence encoder."""
    from .encoders import TransformerSentenceEncoder

    return TransformerSentenceEncoder.from_pretrained(name, **options)
