"""CSV/TSV cells that open safely in a spreadsheet (CSV injection, OWASP).

A spreadsheet reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a
tab or carriage return before one) as a formula, so a word or sentence a user
typed, such as ``=HYPERLINK(...)``, would run when our CSV is opened. OWASP's
advice (https://owasp.org/www-community/attacks/CSV_Injection) is to prefix such
text cells with a single quote; this module does that, and only to text:

- numbers (``int``, ``float``, numpy scalars) are written as they are, and so is
  text that is a plain decimal number (``"-0.5"``, ``"+3"``, ``"1e-7"``), which a
  spreadsheet reads as that number, not as a formula;
- text whose first character is ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return, or whose first non-blank character is one of ``=+-@``, gets a leading
  ``'``; so does text that already starts with ``'`` followed by such text, which
  makes the guard reversible: :func:`unguard_cell` removes exactly the quotes
  :func:`safe_cell` added, so reading our own files back gives what was written
  (``safe_cell("'tis")`` is ``"'tis"``, unchanged, and ``unguard_cell`` keeps it).

Every CSV/TSV writer of the package goes through :func:`safe_writer` (a
``csv.writer`` whose rows are guarded cell by cell) or :func:`safe_cell`; the
widgets' CSV export does the same in ``js/lib/export.js`` (``csvCell``).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any

GUARD = "'"
"""The prefix that makes a spreadsheet read a cell as text."""
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a text cell as a formula (OWASP)."""
_BLANKS = " \n\t\r\x0b\x0c"
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def needs_guard(text: str) -> bool:
    """True when a spreadsheet could read ``text`` as a formula, or ``text`` already looks guarded."""
    if text[:1] in FORMULA_STARTS or text.lstrip(_BLANKS)[:1] in FORMULA_STARTS[:4]:
        return _NUMBER.fullmatch(text.strip(_BLANKS)) is None
    return text.startswith(GUARD) and needs_guard(text[1:])


def safe_cell(value: Any) -> Any:
    """``value`` as a spreadsheet-safe cell: text that could be read as a formula gets a leading ``'``.

    Anything that is not text (numbers, booleans, ``None``) is returned as is.
    """
    if isinstance(value, str) and needs_guard(value):
        return GUARD + value
    return value


def unguard_cell(text: str) -> str:
    """Undo :func:`safe_cell` on a cell read back from one of our files (exactly its one ``'``)."""
    if isinstance(text, str) and text.startswith(GUARD) and needs_guard(text[1:]):
        return text[1:]
    return text


def safe_row(values: Iterable[Any]) -> list[Any]:
    """:func:`safe_cell` over one row."""
    return [safe_cell(v) for v in values]


def unguard_row(values: Iterable[str]) -> list[str]:
    """:func:`unguard_cell` over one row read back with ``csv.reader``."""
    return [unguard_cell(v) for v in values]


class SafeWriter:
    """A ``csv.writer`` whose every row goes through :func:`safe_row` (same ``writerow``/``writerows``)."""

    def __init__(self, handle: Any, **fmtparams: Any) -> None:
        self._writer = csv.writer(handle, **fmtparams)

    @property
    def dialect(self) -> Any:
        return self._writer.dialect

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow(safe_row(row))

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def safe_writer(handle: Any, **fmtparams: Any) -> SafeWriter:
    """``csv.writer(handle, **fmtparams)`` with every text cell guarded; TSV: ``delimiter="\\t"``."""
    return SafeWriter(handle, **fmtparams)


def tsv_text(columns: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    """A header and rows as TSV text through :func:`safe_writer`: text cells guarded, and a cell holding a tab,
    a newline or a double quote quoted (``csv.QUOTE_MINIMAL``), so every row reads back as exactly its cells
    (``csv.reader(..., delimiter="\\t")``). ``None`` is an empty cell."""
    import io

    buffer = io.StringIO()
    writer = safe_writer(buffer, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(columns)
    writer.writerows(rows)
    return buffer.getvalue()


def is_number_text(text: str) -> bool:
    """True for a plain decimal number such as ``"-0.5"`` (left unguarded)."""
    return isinstance(text, str) and _NUMBER.fullmatch(text.strip(_BLANKS)) is not None


__all__ = ["FORMULA_STARTS", "GUARD", "SafeWriter", "is_number_text", "needs_guard", "safe_cell", "safe_row",
           "safe_writer", "tsv_text", "unguard_cell", "unguard_row"]
