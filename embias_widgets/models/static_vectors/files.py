"""Readers for the word-vector file formats users have.

- word2vec text: a header line ``<count> <dim>``, then ``word v1 ... vdim``.
- GloVe text: the same lines without the header.
- word2vec binary (``.bin``): header line, then ``word<space>`` followed by
  ``dim`` little-endian float32 values per entry (Mikolov et al. 2013's format,
  as gensim reads and writes it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

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

    With a header every line must hold a word and exactly the header's number
    of values; without one, the first line sets the dimension and a line with
    more numbers than that is an error (not a word named "rose 1"). GloVe words
    may contain spaces (". . ."); their parts are not all numbers. A file that
    is not UTF-8 is an error naming the line and the byte.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a directory: give a word2vec/GloVe text file or a .bin file")
    words: list[str] = []
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
            if limit is not None and len(words) >= limit:
                break
    if not words:
        raise ValueError(f"{path}: no vectors found")
    return words, np.vstack(rows)


def read_word2vec_binary(path: str | Path, *, limit: int | None = None) -> tuple[list[str], np.ndarray]:
    """Read the word2vec binary format (``.bin``)."""
    path = Path(path)
    size = path.stat().st_size
    with path.open("rb") as fh:
        first = fh.readline(200)
        header = first.decode("ascii", errors="replace").split()
        if len(header) != 2 or not all(h.isdigit() for h in header):
            raise ValueError(f"{path}:1: expected a '<count> <dim>' header line, got {first[:60]!r}")
        count, dim = int(header[0]), int(header[1])
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
        words, vectors = read_word2vec_binary(path)
    else:
        words, vectors = read_text_vectors(path)
    return StaticVectors(words, vectors, name=str(path), **options)
