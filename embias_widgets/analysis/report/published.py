"""Published figures beside ours, from one data file (``stimuli/data/published_figures.json``).

An entry applies to a section when its ``method`` is the section's and the section's model name is one of its
``models``; ``ours`` names the row and column of our table holding the comparable number (or is null when our
section measures it another way). Every entry carries ``source``: ``paper``, ``table``, ``row``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

PUBLISHED = Path(__file__).resolve().parents[2] / "stimuli" / "data" / "published_figures.json"
NO_FIGURE = "no published figure"


@cache
def published_figures() -> tuple[dict[str, Any], ...]:
    """Every entry of the data file."""
    return tuple(json.loads(PUBLISHED.read_text(encoding="utf-8"))["figures"])


def _ours(table: dict[str, Any], where: dict[str, str] | None) -> Any:
    if not where or where["column"] not in table["columns"]:
        return None
    col = table["columns"].index(where["column"])
    return next((row[col] for row in table["rows"] if row[0] == where["row"]), None)


def figures_for(method: str, model: str, table: dict[str, Any]) -> list[dict[str, Any]]:
    """The published figures of ``method`` on ``model``, each with our comparable number (``ours``) or None."""
    return [{"label": f["label"] + (f" ({f['note']})" if f.get("note") else ""), "value": f["value"],
             "ours": _ours(table, f.get("ours")), "source": dict(f["source"])}
            for f in published_figures() if f["method"] == method and model in f["models"]]
