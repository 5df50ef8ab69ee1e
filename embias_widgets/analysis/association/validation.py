"""What an association study accepts: its sets and options, checked before anything runs.

One error class for the whole study (:class:`AssociationInputError`, a ``ValueError``): the metric
core's option rules (:func:`embias_widgets.metrics.validation.check_options`) and the stimuli's set
rules (:func:`embias_widgets.stimuli.clean_items`), raised with the set and the fix named.
"""

from __future__ import annotations

from typing import Any

from ...metrics.bootstrap import check_interval_options
from ...metrics.samplers import DEFAULT_SAMPLER
from ...metrics.validation import check_options
from ...stimuli import clean_items

SET_ROLES = {"targ1": "X", "targ2": "Y", "attr1": "A", "attr2": "B"}


class AssociationInputError(ValueError):
    """A test that cannot run as given: names the set, the items and the fix."""


def check_study_options(*, interval_method: Any = "BCa", resample: Any = "all", **options: Any) -> None:
    """The metric core's checks of ``variant``, ``ddof``, ``n_samples``, ..., and of the interval's
    ``interval_method`` ("BCa" or "percentile") and ``resample`` ("all" or "targets"), raised as
    :class:`AssociationInputError` (a ``ValueError``)."""
    try:
        check_options(**options)
        check_interval_options(interval_method, resample)
    except ValueError as err:
        raise AssociationInputError(str(err)) from None


def clean_set(key: str, items: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """One set's items (stripped, deduplicated) and the duplicates removed; a bare string or a
    non-string item is an :class:`AssociationInputError` naming the set (see :func:`clean_items`)."""
    try:
        return clean_items(items, where=f"{key} ({SET_ROLES[key]})")
    except ValueError as err:
        raise AssociationInputError(str(err)) from None


def options_string(model: Any, options: dict[str, Any]) -> str:
    """The ``options`` column of May et al.'s results.tsv: the model's options, then the test's."""
    model_opts = getattr(model, "options", "")
    core = f"variant={options['variant']},ddof={options['ddof']}"
    if options.get("sampler", DEFAULT_SAMPLER) != DEFAULT_SAMPLER:  # other draws for the same seed: say so
        core += f",sampler={options['sampler']}"
    return f"{model_opts},{core}" if model_opts else core
