"""Plain-text tables for the terminal: one formatter for the ``table`` output of every command."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def print_table(rows: list[dict[str, Any]], columns: Sequence[str], out: Any) -> None:
    def fmt(v: Any) -> str:
        if v is None:
            return "undefined"
        if isinstance(v, float):
            return f"{v:.4g}" if not math.isnan(v) else "nan"
        if isinstance(v, list | tuple):
            return ",".join(str(x) for x in v) or "-"
        return str(v)

    cells = [[fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() + "\n")
