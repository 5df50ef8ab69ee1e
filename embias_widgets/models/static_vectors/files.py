"""Readers for the word-vector file formats users have.

- word2vec text: a header line ``<count> <dim>``, then ``word v1 ... vdim``.
- GloVe text: the same lines without the header.
- word2vec binary (``.bin``): header line, then ``word<space>`` followed by
  ``dim`` little-endian float32 values per entry (Mikolov et al. 2013's format,
  as gensim reads and writes it).

A word that appears twice keeps its first vector and the later ones are dropped, as gensim's
``load_word2vec_format`` does, but not silently: an :class:`~embias_widgets.EmbiasWarning` names the word and
both line numbers (entry numbers in a ``.bin`` file), and every encode that uses such a word says so in its
notes, so a result computed with it carries the note.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ... import EmbiasWarning
from .vectors import StaticVectors


def _is_header(line: str) -> bool:
    parts = line.split()
    return len(parts) == 2 and all(p.isdigit() for p in parts)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_text_vectors(path: str | Path, *, limit: int | None = None) -> tuple[list[str], np.ndarray]:
    """Read word2vec text (with header) or GloVe text (without): detected from line 1.

    A repeated word keeps its first vector, with a warning naming both lines (see the module docstring).

    With a header every line must hold a word and exactly the header's number
    of values; without one, the first line sets the dimension and a line with
    more numbers than that is an error (not a word named "rose 1"). GloVe words
    may contain spaces (". . ."); their parts are not all numbers. A file that
    is not UTF-8 is an error naming the line and the byte.
    """
    words, vectors, _ = _unique(path, *_read_text(Path(path), limit), unit="line")
    return words, vectors


def _read_text(path: Path, limit: int | None) -> tuple[list[str], np.ndarray, list[int]]:
    """Words, vectors and each word's line number, duplicates included."""
    if path.is_dir():
        raise ValueError(f"{path} is a directory: give a word2vec/GloVe text file or a .bin file")
    words: list[str] = []
    linenos: list[int] = []
    rows: list[np.ndarray] = []
    dim = None
    header = False
    lineno = 0
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise ValueError(
                    f"{path}:{lineno}: byte 0x{raw[err.start]:02x} at column {err.start + 1} is not UTF-8: "
                    "save the vectors as UTF-8 text, or give a word2vec .bin file"
                ) from None
            if lineno == 1 and _is_header(line):
                dim, header = int(line.split()[1]), True
                continue
            parts = line.rstrip("\n").rstrip().split(" ")
            if len(parts) < 2:
                if not line.strip():
                    continue
                raise ValueError(f"{path}:{lineno}: expected 'word v1 v2 ...', got {line[:60]!r}")
            if dim is None:
                dim = len(parts) - 1
            word, values = " ".join(parts[: len(parts) - dim]), parts[len(parts) - dim :]
            extra = parts[1 : len(parts) - dim]
            too_many = (header and len(parts) != dim + 1) or (extra and all(_is_number(p) for p in extra))
            if not word or len(values) != dim or too_many:
                said = "as the header on line 1 says" if header else "as on line 1"
                raise ValueError(
                    f"{path}:{lineno}: expected a word and {dim} numbers {said}, got {len(parts) - 1} fields "
                    f"after {parts[0]!r}: fix that line or the header"
                )
            try:
                rows.append(np.asarray(values, dtype=np.float32))
            except ValueError as err:
                raise ValueError(f"{path}:{lineno}: not a number in the vector ({err})") from None
            words.append(word)
            linenos.append(lineno)
            if limit is not None and len(words) >= limit:
                break
    if not words:
        raise ValueError(f"{path}: no vectors found")
    return words, np.vstack(rows), linenos


def _unique(path: Path, words: list[str], vectors: np.ndarray, numbers: list[int], *,
            unit: str) -> tuple[list[str], np.ndarray, dict[str, str]]:
    """``words`` and ``vectors`` with every repeated word's later rows dropped (its first vector kept, as
    gensim's reader does), a warning naming the word and both ``unit`` numbers, and per repeated word the
    note that encodes using it carry."""
    units = {"line": "lines", "entry": "entries"}[unit]
    first: dict[str, int] = {}
    keep: list[int] = []
    notes: dict[str, str] = {}
    for i, word in enumerate(words):
        if word not in first:
            first[word] = i
            keep.append(i)
        elif word not in notes:
            notes[word] = (f"{path}: the word {word!r} appears twice ({units} {numbers[first[word]]:,} and "
                           f"{numbers[i]:,}); the first vector is used and the later one ignored, as gensim does")
    if not notes:
        return words, vectors, notes
    more = f" ({len(notes):,} repeated words in all; the first: {', '.join(map(repr, list(notes)[:5]))})"
    warnings.warn(next(iter(notes.values())) + (more if len(notes) > 1 else "") + ": remove the repeated "
                  f"{units} if the later vector was meant", EmbiasWarning, stacklevel=3)
    return [words[i] for i in keep], vectors[keep], notes


def read_word2vec_binary(path: str | Path, *, limit: int | None = None) -> tuple[list[str], np.ndarray]:
    """Read the word2vec binary format (``.bin``); a repeated word keeps its first vector, with a warning."""
    path = Path(path)
    words, vectors = _read_binary(path, limit)
    words, vectors, _ = _unique(path, words, vectors, list(range(1, len(words) + 1)), unit="entry")
    return words, vectors


def _read_binary(path: Path, limit: int | None) -> tuple[list[str], np.ndarray]:
    size = path.stat().st_size
    with path.open("rb") as fh:
        first = fh.readline(200)
        header = first.decode("ascii", errors="replace").split()
        if len(header) != 2 or not all(h.isdigit() for h in header):
            if _is_text_entry(first, None):
                raise ValueError(f"{path} is not a word2vec binary file: line 1 is a GloVe text line "
                                 f"({first[:40]!r}...): give it a .txt name (text files are read by content)")
            raise ValueError(f"{path}:1: expected a '<count> <dim>' header line, got {first[:60]!r}")
        count, dim = int(header[0]), int(header[1])
        start = fh.tell()
        if _is_text_entry(fh.readline(64 * dim + 1024), dim):
            raise ValueError(f"{path} is not a word2vec binary file: after its header line 2 is text ('word' and "
                             f"{dim} numbers), so it is word2vec text: give it a .txt name (text files are read "
                             "by content)")
        fh.seek(start)
        if dim < 1:
            raise ValueError(f"{path}:1: the header says {dim} dimensions; a vector needs at least 1")
        if limit is not None:
            count = min(count, limit)
        room = (size - len(first)) // (4 * dim + 2)  # each entry: a word of >= 1 byte, a space, 4*dim bytes
        if count > room:
            raise ValueError(
                f"{path}:1: the header claims {count:,} vectors of {dim} dimensions, but the file's "
                f"{size:,} bytes hold at most {room:,}: the header or the file is wrong (truncated download?)"
            )
        words: list[str] = []
        vectors = np.empty((count, dim), dtype=np.float32)
        for i in range(count):
            chars = bytearray()
            while True:
                ch = fh.read(1)
                if ch == b" " or ch == b"":
                    break
                if ch != b"\n":
                    chars.extend(ch)
            raw = fh.read(4 * dim)
            if len(raw) != 4 * dim:
                raise ValueError(f"{path}: file ends inside entry {i + 1} of {count}")
            words.append(chars.decode("utf-8", errors="replace"))
            vectors[i] = np.frombuffer(raw, dtype="<f4")
    return words, vectors


def _is_text_entry(line: bytes, dim: int | None) -> bool:
    """Whether ``line`` is a text vector line: a word then ``dim`` (any, at least 2, when None) decimal numbers."""
    try:
        parts = line.decode("utf-8").split()
    except UnicodeDecodeError:
        return False
    numbers = parts[1:]
    return (len(numbers) == dim if dim is not None else len(numbers) >= 2) and all(map(_is_number, numbers))


def write_word2vec_text(path: str | Path, words: list[str], vectors: np.ndarray) -> None:
    """Write word2vec text format (used by tests and for exporting debiased vectors)."""
    with Path(path).open("w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {vectors.shape[1]}\n")
        for w, v in zip(words, vectors, strict=True):
            fh.write(w + " " + " ".join(f"{x:.6g}" for x in v) + "\n")


def write_word2vec_binary(path: str | Path, words: list[str], vectors: np.ndarray) -> None:
    """Write word2vec binary format."""
    with Path(path).open("wb") as fh:
        fh.write(f"{len(words)} {vectors.shape[1]}\n".encode())
        for w, v in zip(words, vectors, strict=True):
            fh.write(w.encode("utf-8") + b" " + np.asarray(v, dtype="<f4").tobytes() + b"\n")


def load_vector_file(path: str | Path, **options: Any) -> StaticVectors:
    """word2vec binary (``.bin``), word2vec text or GloVe text (header detected)."""
    path = Path(path)
    if path.suffix == ".bin":
        words, vectors = _read_binary(path, None)
        words, vectors, repeated = _unique(path, words, vectors, list(range(1, len(words) + 1)), unit="entry")
    else:
        words, vectors, repeated = _unique(path, *_read_text(path, None), unit="line")
    model = StaticVectors(words, vectors, name=str(path), **options)
    model.repeated_words = repeated
    return model
