"""Errors of the models layer, importable without importing any model."""


class ModelNotFoundError(ValueError):
    """No registered name, file, directory or hub model by that name."""
