"""The blocks a published page is built of: plain dicts that the HTML writer and the report viewer draw.

``{"t": "h", "level", "text"}`` a heading, ``{"t": "p", "text", "cls"}`` a paragraph (``cls`` e.g. ``"muted"``),
``{"t": "ul", "items", "cls"}`` a list, ``{"t": "table", "columns", "kinds", "rows", ...}`` a table whose ``kinds``
say how each column is formatted. Text is always text: the writers never read it as markup.
"""

from __future__ import annotations

from typing import Any


def h(level: int, text: str) -> dict[str, Any]:
    """A heading block of ``level`` (2 a section, 3-4 below it)."""
    return {"t": "h", "level": level, "text": text}


def p(text: str, cls: str | None = None) -> dict[str, Any]:
    """A paragraph block (``cls``: its style, e.g. ``"muted"``)."""
    return {"t": "p", "text": text, "cls": cls}


def ul(items: list[str], cls: str | None = None) -> dict[str, Any]:
    """A bulleted list block."""
    return {"t": "ul", "items": list(items), "cls": cls}


def table(columns: list[str], rows: list[list[Any]], kinds: list[str], **extra: Any) -> dict[str, Any]:
    """A table block: ``kinds`` names each column's format; ``extra`` keys follow the rows (e.g. ``alphas``)."""
    return {"t": "table", "columns": list(columns), "kinds": kinds, "rows": rows, **extra}
