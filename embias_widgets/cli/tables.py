"""Plain-text tables for the terminal, every cell through the one number formatter (:mod:`embias_widgets.formatting`).

A column's kind (effect size, p-value, percentage, count, other measure) comes from its name as report.html's
tables take theirs (:func:`~embias_widgets.formatting.column_kind`, underscores read as spaces), so ``1.71``,
``< 0.0001`` and ``58.3`` read the same in ``embias weat``, ``report.html``, the viewer and the widgets. An
interval cell (``{"low", "high", ...}``) is written ``[low, high]`` in its column's kind (a column named
``..._interval`` or ``interval`` takes the kind of the column before it). The JSON outputs keep full precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..formatting import column_kinds, format_value


def table_cell(value: Any, kind: str) -> str:
    """One cell as text: numbers and intervals by :func:`format_value`, lists joined by commas (``-`` if empty)."""
    if isinstance(value, list | tuple):
        return ",".join(str(x) for x in value) or "-"
    return format_value(value, kind)


def print_table(rows: list[dict[str, Any]], columns: Sequence[str], out: Any) -> None:
    """``rows`` (dicts) under ``columns``, left-aligned, two spaces apart."""
    kinds = column_kinds([c.replace("_", " ") for c in columns])
    cells = [[table_cell(r.get(c), k) for c, k in zip(columns, kinds, strict=True)] for r in rows]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() + "\n")
