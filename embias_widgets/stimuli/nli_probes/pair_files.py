"""The authors' CSV layout of NLI pairs: :class:`CsvPairs` reads it lazily, :func:`write_pairs_csv` writes it.

Both use the ``csv`` module; what we write is spreadsheet-safe (:mod:`embias_widgets.stimuli.spreadsheet_safe`)
and read back unchanged.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..pairs import PairFileError  # the one error of an unreadable pairs file in the stimuli layer
from ..spreadsheet_safe import safe_writer, unguard_row
from ..text_files import not_utf8
from .pair_sources import CSV_COLUMNS, NliPair, PairSource, pair_id

__all__ = ["CsvPairs", "PairFileError", "write_pairs_csv"]


_REQUIRED = ("premise", "hypothesis", "premise_filler_word", "hypothesis_filler_word")


class _LineFeed:
    """Lines of a binary file decoded one at a time, with the byte offset of the next line."""

    def __init__(self, handle: Any, offset: int, line: int) -> None:
        self.handle, self.offset, self.line = handle, offset, line
        self.path = getattr(handle, "name", "the pairs file")

    def __iter__(self) -> _LineFeed:
        return self

    def __next__(self) -> str:
        raw = self.handle.readline()
        if not raw:
            raise StopIteration
        start = self.offset
        self.offset += len(raw)
        self.line += 1
        try:
            return raw.decode("utf-8-sig" if self.line == 1 else "utf-8")
        except UnicodeDecodeError as err:
            problem = not_utf8(self.path, err, line=self.line, offset=start, what="pairs file")
            raise PairFileError(str(problem)) from None


class CsvPairs(PairSource):
    """A pairs file in the authors' layout (:data:`CSV_COLUMNS`), read lazily with the ``csv`` module.

    Opening it reads it once to check every row (field count, empty premise or
    hypothesis, with line numbers) and to remember the byte offset of every
    ``stride``-th row, so a chunk ``start .. stop`` is read without the rows
    before it, and nothing but those offsets stays in memory. Required
    columns: ``premise``, ``hypothesis``, ``premise_filler_word``,
    ``hypothesis_filler_word``; ``id``, ``pair type`` and ``template_type`` are
    optional (an id is computed as the authors' sha224 when absent).
    """

    def __init__(self, path: str | Path, *, stride: int = 4096) -> None:
        if isinstance(path, str) and "://" in path:  # Path() would fold the URL's "//" into a missing file
            raise ValueError(f"NLI pairs are read from a local file, not a URL ({path}): download the CSV and give "
                             "its path")
        self.path = Path(path).expanduser()
        self.name = self.path.name
        self.stride = int(stride)
        if not self.path.is_file():
            raise FileNotFoundError(f"no NLI pairs file at {self.path}: give the path of an existing CSV file")
        offsets: list[int] = []
        lines: list[int] = []
        with open(self.path, "rb") as handle:
            feed = _LineFeed(handle, 0, 0)
            reader = csv.reader(feed, strict=True)
            try:
                header = next(reader)
            except StopIteration:
                raise PairFileError(
                    f"{self.path}: the file is empty; expected a header {','.join(CSV_COLUMNS)}"
                ) from None
            except (csv.Error, UnicodeDecodeError) as err:
                raise PairFileError(f"{self.path}, line 1: {err}") from None
            self.columns = [c.strip() for c in header]
            missing = [c for c in _REQUIRED if c not in self.columns]
            if missing:
                raise PairFileError(
                    f"{self.path}, line 1: missing column(s) {', '.join(missing)}; the header has "
                    f"{', '.join(self.columns) or 'nothing'} (expected the layout {','.join(CSV_COLUMNS)})"
                )
            self._index = {c: self.columns.index(c) for c in (*CSV_COLUMNS,) if c in self.columns}
            n = 0
            while True:
                start_offset, start_line = feed.offset, feed.line + 1
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except (csv.Error, UnicodeDecodeError) as err:
                    raise PairFileError(f"{self.path}, line {start_line}: {err}") from None
                if not row or all(not c.strip() for c in row):
                    raise PairFileError(f"{self.path}, line {start_line}: empty row; remove it")
                if len(row) != len(self.columns):
                    raise PairFileError(
                        f"{self.path}, line {start_line}: {len(row)} fields, the header has {len(self.columns)}; "
                        "quote fields that contain commas"
                    )
                for col in ("premise", "hypothesis"):
                    if not row[self._index[col]].strip():
                        raise PairFileError(f"{self.path}, line {start_line}: empty {col}")
                if n % self.stride == 0:
                    offsets.append(start_offset)
                    lines.append(start_line)
                n += 1
        self._n = n
        self._offsets = offsets
        self._lines = lines
        if n == 0:
            raise PairFileError(f"{self.path}: no pairs after the header")

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"CsvPairs({str(self.path)!r}, {self._n:,} pairs)"

    def iter_pairs(self, start: int = 0, stop: int | None = None) -> Iterator[NliPair]:
        start, stop = self._range(start, stop)
        if start == stop:
            return
        block = start // self.stride
        get = self._index.get
        with open(self.path, "rb") as handle:
            handle.seek(self._offsets[block])
            reader = csv.reader(_LineFeed(handle, self._offsets[block], self._lines[block] - 1), strict=True)
            i = block * self.stride
            for row in reader:
                if i >= stop:
                    break
                if i >= start:
                    row = unguard_row(row)  # our own files: drop the spreadsheet guard safe_writer added
                    premise, hypothesis = row[self._index["premise"]], row[self._index["hypothesis"]]
                    pair_type = row[get("pair type")] if "pair type" in self._index else ""
                    yield NliPair(
                        index=i,
                        id=row[get("id")] if "id" in self._index else pair_id(pair_type, premise, hypothesis),
                        pair_type=pair_type,
                        premise_word=row[self._index["premise_filler_word"]],
                        hypothesis_word=row[self._index["hypothesis_filler_word"]],
                        template_type=row[get("template_type")] if "template_type" in self._index else "",
                        premise=premise,
                        hypothesis=hypothesis,
                    )
                i += 1


def write_pairs_csv(pairs: Iterable[NliPair], path: str | Path | io.TextIOBase) -> int:
    """Write pairs in the authors' CSV layout (header :data:`CSV_COLUMNS`), streaming; returns the row count."""
    own = not hasattr(path, "write")
    handle = open(path, "w", newline="", encoding="utf-8") if own else path  # noqa: SIM115
    try:
        writer = safe_writer(handle)  # user text starting with = + - @ gets a leading ' (spreadsheet_safe)
        writer.writerow(CSV_COLUMNS)
        n = 0
        for pair in pairs:
            writer.writerow(pair.csv_row())
            n += 1
        return n
    finally:
        if own:
            handle.close()
