"""One number formatter for every surface: ``report.html``, the report viewer, the widgets and the CLI tables.

The rules live in ``formatting.json`` beside this module; the front end imports the same file
(``js/lib/format.js``), so a number reads the same everywhere (``tests/test_formatting.py`` runs both):

- effect sizes (WEAT/SEAT d, RIPA) with 2 decimals: ``1.71``;
- p-values with 3 decimals, below 0.001 with 4, below 0.0001 as ``< 0.0001``;
- percentages (CrowS-Pairs %, SS, LMS, ICAT, shares) with 1 decimal: ``58.3``;
- counts as whole numbers with thousands separators: ``10,000``;
- other measures (NN, FN) with 3 decimals;
- an interval ``{"low", "high", ...}`` as ``[low, high]`` in its value's kind;
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


def format_p(p: float) -> str:
    """A p-value: ``< 0.0001``, ``0.0004``, ``0.023``, ``1.000``."""
    if p < _DATA["p_floor"]:
        return "< " + fixed(_DATA["p_floor"], _DATA["p_small_decimals"])
    return fixed(p, _DATA["p_small_decimals"] if p < 0.001 else DECIMALS["p"])


def format_count(n: float) -> str:
    """A count with thousands separators (``10,000``)."""
    return f"{int(n):,}"


def format_value(value: Any, kind: str = "number") -> str:
    """``value`` as text in the style of ``kind`` (see the module docstring); intervals as ``[low, high]``.

    A whole number in a ``"number"`` column is written as a count (JSON does not keep ``1`` and ``1.0`` apart,
    so the JavaScript twin cannot either)."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict) and "low" in value and "high" in value:
        return format_interval(value, kind)
    if isinstance(value, int | float):
        return _number(float(value), kind, whole_as_count=True)
    return str(value)


def _number(v: float, kind: str, *, whole_as_count: bool) -> str:
    if math.isnan(v):
        return _DATA["not_a_number"]
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if kind == "count" or (whole_as_count and kind == "number" and v.is_integer()):
        return format_count(v) if v.is_integer() else fixed(v, DECIMALS["number"])
    if kind == "p":
        return format_p(v)
    return fixed(v, DECIMALS.get(kind, DECIMALS["number"]))


def format_interval(interval: dict[str, Any] | None, kind: str = "number") -> str:
    """``[low, high]`` in the style of ``kind``; an em dash for ``None``."""
    if not interval or interval.get("low") is None or interval.get("high") is None:
        return MISSING
    low, high = (_number(float(interval[k]), kind, whole_as_count=False) for k in ("low", "high"))
    return f"[{low}, {high}]"


def format_row(row: list[Any], columns: list[str]) -> list[str]:
    """A table row as text, each cell in its column's kind (:func:`column_kinds`)."""
    return [format_value(v, k) for v, k in zip(row, column_kinds(columns), strict=True)]
