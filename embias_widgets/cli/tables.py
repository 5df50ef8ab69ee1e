"""Plain-text tables for the terminal, every cell through the one number formatter (:mod:`embias_widgets.formatting`).

A column's kind (effect size, p-value, percentage, count, other measure) comes from its name as report.html's
tables take theirs (:func:`~embias_widgets.formatting.column_kind`, underscores read as spaces), so ``1.71``,
``< 0.0001`` and ``58.3`` read the same in ``embias weat``, ``report.html``, the viewer and the widgets. An
interval cell (``{"low", "high", ...}``) is written ``[low, high]`` in its column's kind (a column named
``..._interval`` or ``interval`` takes the kind of the column before it). A column is formatted as a whole
(:func:`~embias_widgets.formatting.format_column`: ``0.000`` beside ``0.052``, ``0`` among counts), and a p-value
beside a significance verdict is given the thresholds in force, so it is never rounded across one (``0.0098`` at
alpha 0.01, not ``0.010``). The JSON outputs keep full precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..formatting import Alpha, column_kinds, format_column


def _column(values: list[Any], kind: str, alphas: Sequence[Alpha] | None) -> list[str]:
    """A column's cells: its numbers and intervals formatted together (:func:`format_column`), its lists joined
    by commas (``-`` if empty)."""
    text = format_column([None if isinstance(v, list | tuple) else v for v in values], kind, alphas)
    return [(",".join(str(x) for x in v) or "-") if isinstance(v, list | tuple) else t
            for v, t in zip(values, text, strict=True)]


def print_table(rows: list[dict[str, Any]], columns: Sequence[str], out: Any,
                alphas: Sequence[Alpha] | None = None) -> None:
    """``rows`` (dicts) under ``columns``, left-aligned, two spaces apart; ``alphas[i]``: the significance
    thresholds row i's p-values are shown against (see the module docstring)."""
    kinds = column_kinds([c.replace("_", " ") for c in columns])
    by_column = [_column([r.get(c) for r in rows], k, alphas) for c, k in zip(columns, kinds, strict=True)]
    cells = [[col[i] for col in by_column] for i in range(len(rows))]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() + "\n")
