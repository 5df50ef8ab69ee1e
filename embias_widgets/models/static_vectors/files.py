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


def read_text_vectors(path: str | Path, *, limit: int | None = None) -> tuple[list[str], np.ndarray]:
    """Read word2vec text (with header) or GloVe text (without): detected from line 1."""
    path = Path(path)
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim = None
    with path.open(encoding="utf-8", errors="strict") as fh:
        for lineno, line in enumerate(fh, start=1):
            if lineno == 1 and _is_header(line):
                dim = int(line.split()[1])
                continue
            parts = line.rstrip("\n").rstrip().split(" ")
            if len(parts) < 2:
                if not line.strip():
                    continue
                raise ValueError(f"{path}:{lineno}: expected 'word v1 v2 ...', got {line[:60]!r}")
            if dim is None:
                dim = len(parts) - 1
            word, values = " ".join(parts[: len(parts) - dim]), parts[len(parts) - dim :]
            if not word or len(values) != dim:
                raise ValueError(
                    f"{path}:{lineno}: expected a word and {dim} numbers, got {len(parts) - 1} fields"
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
    with path.open("rb") as fh:
        header = fh.readline().decode("utf-8").split()
        if len(header) != 2 or not all(h.isdigit() for h in header):
            raise ValueError(f"{path}:1: expected a '<count> <dim>' header line, got {header!r}")
        count, dim = int(header[0]), int(header[1])
        if limit is not None:
            count = min(count, limit)
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
