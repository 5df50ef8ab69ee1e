"""embias-widgets: measure social bias in embeddings and language models, and see it."""

__version__ = "0.1.0"


class EmbiasWarning(UserWarning):
    """Warnings raised by embias-widgets (dropped words, truncated sentences, ...)."""


__all__ = ["EmbiasWarning", "__version__"]
