"""Errors of the models layer, one class per meaning, importable without importing any model."""


class ModelNotFoundError(ValueError):
    """No registered name, file, directory or hub model by that name."""


class MissingSenseError(KeyError):
    """Sense keys a sense-vector model has no vector for (never replaced by a zero vector)."""

    def __init__(self, message: str, keys: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.keys = tuple(keys)

    def __str__(self) -> str:
        return self.message


class ModelFileError(ValueError):
    """A model folder's file that cannot be read as it must be, e.g. a ``config.json`` that is not UTF-8 JSON
    (the message names the file, the problem and the fix)."""


class SenseFileError(ValueError):
    """A malformed sense-vector file (the message names the line)."""


class FingerprintError(ValueError):
    """A model whose content cannot be fingerprinted (so no cache or resume may trust it)."""


class NliLabelError(ValueError):
    """An NLI model whose labels are not (entailment, neutral, contradiction)."""


class MissingExtrasError(ValueError):
    """An optional dependency (torch, transformers, ...) is not installed: the message names the pip extra."""
