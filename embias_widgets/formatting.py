"""One number formatter for every surface: ``report.html``, the report viewer, the widgets and the CLI tables.

The rules live in ``formatting.json`` beside this module; the front end imports the same file
(``js/lib/format.js``), so a number reads the same everywhere (``tests/test_formatting.py`` runs both):

- effect sizes (WEAT/SEAT d, RIPA) with 2 decimals: ``1.71``;
- p-values with 3 decimals, below 0.001 with 4, below 0.0001 as ``< 0.0001``; a p-value shown beside a
  significance verdict is given the thresholds in force (``alpha``: the level, a Holm step's threshold) and
  gets the decimals it needs never to be rounded across one: at alpha 0.01, p = 0.0098 is ``0.0098``, never
  ``0.010`` (:func:`format_p`);
- percentages (CrowS-Pairs %, SS, LMS, ICAT, shares) with 1 decimal: ``58.3``;
- counts as whole numbers with thousands separators: ``10,000``;
- other measures (NN, FN) with 3 decimals;
- an interval ``{"low", "high", ...}`` as ``[low, high]`` in its value's kind;
- a whole number in a ``"number"`` column as a count (``0``, ``3``) only when every number of its column is
  whole: a column of measures writes ``0.000`` beside ``0.052`` (:func:`format_column`);
- ``None`` as an em dash, NaN as ``n/a``, booleans as ``yes``/``no``.

Rounding is half away from zero on the exact binary value of the float (what JavaScript's ``toFixed`` does),
so Python and JavaScript agree even on ties such as 0.125. Stored numbers (``report.json``, the CLI's JSON)
keep full precision; only what is displayed is rounded.

This module imports nothing from the package, so every layer can use it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from importlib import resources
from typing import Any

_DATA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("formatting.json").read_text(
    encoding="utf-8"))
DECIMALS: dict[str, int] = dict(_DATA["decimals"])
KINDS = ("effect", "p", "percent", "number", "count", "text")
MISSING: str = _DATA["missing"]
_COLUMNS = [(c["kind"], re.compile(c["match"])) for c in _DATA["columns"]]


def column_kind(name: str) -> str:
    """The kind of the numbers in a table column called ``name`` (``"p"``, ``"percent"``, ``"effect"``, ...)."""
    for kind, pattern in _COLUMNS:
        if pattern.search(str(name)):
            return kind
    return "number"


def fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, rounded half away from zero on its exact binary value (as JS
    ``Number.prototype.toFixed``); ``-0.00`` is written ``0.00``."""
    text = f"{Decimal(value).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP):f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def column_kinds(columns: list[str]) -> list[str]:
    """The kind of each column; an interval column (``"inherit"``) takes the kind of the column before it."""
    out: list[str] = []
    for name in columns:
        kind = column_kind(name)
        out.append((out[-1] if out else "number") if kind == "inherit" else kind)
    return out


Alpha = float | Iterable[float | None] | None
"""The significance thresholds a p-value is shown against: one level, several (a Holm step's threshold beside
the level), or None."""


READ_AT = (0.01, 0.05)
"""The thresholds a p-value in running text is kept on the right side of where no alpha is in force: the
library's default (0.01) and the one readers bring most often (0.05)."""


def thresholds(alpha: Alpha) -> tuple[float, ...]:
    """``alpha`` as a tuple of thresholds (None and missing entries left out)."""
    if alpha is None:
        return ()
    if isinstance(alpha, int | float):
        return (float(alpha),)
    return tuple(float(a) for a in alpha if a is not None)


def _side(x: float, t: float) -> int:
    """-1, 0 or 1: ``x`` below, at (within :data:`p_tolerance`, relative) or above the threshold ``t``."""
    if abs(x - t) <= _DATA["p_tolerance"] * abs(t):
        return 0
    return -1 if x < t else 1


def format_p(p: float, alpha: Alpha = None) -> str:
    """A p-value: ``< 0.0001``, ``0.0004``, ``0.023``, ``1.000``.

    With ``alpha`` (the thresholds in force), the shown number lies on the same side of every threshold as ``p``
    (below, at, above): decimals are added until it does (at most ``p_max_decimals``), so at alpha 0.01 the
    p-values 0.0098 and 0.0102 read ``0.0098`` and ``0.0102``, not ``0.010``; ``< 0.0001`` is written only
    when every threshold is at least 0.0001."""
    ts, floor, small = thresholds(alpha), _DATA["p_floor"], _DATA["p_small_decimals"]
    if p < floor and all(t >= floor for t in ts):
        return "< " + fixed(floor, small)
    most = _DATA["p_max_decimals"]
    for decimals in range(small if p < 0.001 else DECIMALS["p"], most + 1):
        text = fixed(p, decimals)
        shown = float(text)
        if (shown > 0 or p == 0) and all(_side(shown, t) == _side(p, t) for t in ts):
            return text
    return "< " + fixed(10.0 ** -most, most) if p < 10.0 ** -most else fixed(p, most)


def format_count(n: float) -> str:
    """A count with thousands separators (``10,000``)."""
    return f"{int(n):,}"


def format_value(value: Any, kind: str = "number", alpha: Alpha = None, *, whole_as_count: bool = True) -> str:
    """``value`` as text in the style of ``kind`` (see the module docstring); intervals as ``[low, high]``;
    a p-value against the thresholds ``alpha`` (:func:`format_p`).

    A whole number in a ``"number"`` column is written as a count unless ``whole_as_count`` is False (JSON does
    not keep ``1`` and ``1.0`` apart, so the JavaScript twin cannot either: :func:`format_column` decides it
    for a whole column)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and "low" in value and "high" in value:
        return format_interval(value, kind)
    if isinstance(value, int | float):
        return _number(float(value), kind, whole_as_count=whole_as_count, alpha=alpha)
    return str(value)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def whole_column(values: Iterable[Any]) -> bool:
    """Every finite number among ``values`` is whole (a column of counts), so whole numbers read as counts."""
    return all(float(v).is_integer() for v in values if _is_number(v) and math.isfinite(v))


def format_column(values: Sequence[Any], kind: str = "number", alphas: Sequence[Alpha] | None = None) -> list[str]:
    """Each of a table column's ``values`` as text in ``kind``: a whole number of a ``"number"`` column reads as a
    count only when every number of the column is whole (``0`` among ``3, 12``; ``0.000`` among ``0.052``);
    ``alphas`` gives each value's thresholds (a p column beside a verdict)."""
    counts = whole_column(values)
    alphas = alphas if alphas is not None else [None] * len(values)
    return [format_value(v, kind, a, whole_as_count=counts) for v, a in zip(values, alphas, strict=True)]


def _number(v: float, kind: str, *, whole_as_count: bool, alpha: Alpha = None) -> str:
    if math.isnan(v):
        return _DATA["not_a_number"]
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if kind == "count" or (whole_as_count and kind == "number" and v.is_integer()):
        return format_count(v) if v.is_integer() else fixed(v, DECIMALS["number"])
    if kind == "p":
        return format_p(v, alpha)
    return fixed(v, DECIMALS.get(kind, DECIMALS["number"]))


def format_interval(interval: dict[str, Any] | None, kind: str = "number") -> str:
    """``[low, high]`` in the style of ``kind``; an em dash for ``None``."""
    if not interval or interval.get("low") is None or interval.get("high") is None:
        return MISSING
    low, high = (_number(float(interval[k]), kind, whole_as_count=False) for k in ("low", "high"))
    return f"[{low}, {high}]"


def format_row(row: list[Any], columns: list[str], alpha: Alpha = None) -> list[str]:
    """A table row as text, each cell in its column's kind (:func:`column_kinds`), p-values against ``alpha``."""
    return [format_value(v, k, alpha) for v, k in zip(row, column_kinds(columns), strict=True)]


def format_table(rows: Sequence[Sequence[Any]], kinds: Sequence[str],
                 alphas: Sequence[Alpha] | None = None) -> list[list[str]]:
    """Every cell of ``rows`` as text, column by column (:func:`format_column`): ``kinds[j]`` is column j's kind,
    ``alphas[i]`` row i's thresholds for its p-values."""
    columns = [format_column([r[j] for r in rows], kind, alphas) for j, kind in enumerate(kinds)]
    return [[col[i] for col in columns] for i in range(len(rows))]
