"""Published static sense embeddings: LMMS (``.npz`` / ``.txt``) and ARES (``.txt``).

- LMMS ``.npz`` (Loureiro & Jorge 2019): arrays ``labels`` (sense keys) and
  ``vectors`` (senses x dim). An uncompressed archive is memory-mapped: only the
  rows a study asks for are read. A compressed one is read once (one copy).
- LMMS ``.txt``: one ``sensekey v1 v2 ...`` per line.
- ARES ``.txt`` (Scarlini et al. 2020): the same lines after a word2vec header ``<count> <dim>``.

Text files are indexed once (key -> byte offset, every line's field count
checked, so a wrong dimension is reported with its line number), and a vector
is parsed only when asked for. Or pass ``keys=`` to read just those in one pass.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..errors import SenseFileError
from .base import SenseVectors, lemma_of


def _npz_memmap(path: Path, member: str) -> np.ndarray | None:
    """``member`` of an uncompressed ``.npz`` as a read-only memory map (``None`` if compressed)."""
    with zipfile.ZipFile(path) as zf:
        try:
            info = zf.getinfo(member + ".npy")
        except KeyError:
            return None
        if info.compress_type != zipfile.ZIP_STORED:
            return None
    with path.open("rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        version = np.lib.format.read_magic(fh)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(fh)
        offset = fh.tell()
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C")


class SenseVectorFile(SenseVectors):
    """Sense vectors from an LMMS/ARES file, read lazily. Use :func:`load_sense_file`."""

    def __init__(
        self,
        path: Path,
        keys: list[str],
        *,
        matrix: np.ndarray | None = None,
        offsets: np.ndarray | None = None,
        dim: int,
        name: str | None = None,
    ) -> None:
        self.path = path
        self.name = name or str(path)
        self.options = ""
        self._keys = keys
        self._row = {k: i for i, k in enumerate(keys)}
        self._matrix = matrix  # memory map or array (npz, or the rows read with keys=)
        self._offsets = offsets  # byte offset of each line (indexed text)
        self._dim = dim
        self._by_lemma: dict[str, list[str]] | None = None

    def __repr__(self) -> str:
        return f"SenseVectorFile({self.name!r}, {len(self._keys)} senses x {self._dim})"

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    def keys_of(self, lemma: str) -> list[str]:
        if self._by_lemma is None:
            self._by_lemma = {}
            for k in self._keys:
                self._by_lemma.setdefault(lemma_of(k), []).append(k)
        return list(self._by_lemma.get("_".join(lemma.strip().lower().split()), []))

    def _lookup(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        rows = [self._row.get(k) for k in keys]
        if self._matrix is not None:
            return [None if r is None else np.array(self._matrix[r], dtype=np.float64) for r in rows]
        out: list[np.ndarray | None] = []
        with self.path.open("rb") as fh:
            for r in rows:
                if r is None:
                    out.append(None)
                    continue
                fh.seek(int(self._offsets[r]))
                fields = fh.readline().split()
                out.append(np.asarray(fields[len(fields) - self._dim :], dtype=np.float64))
        return out


def _read_npz(path: Path, keys: set[str] | None, name: str | None) -> SenseVectorFile:
    try:
        with np.load(path, allow_pickle=False) as npz:
            if "labels" not in npz.files or "vectors" not in npz.files:
                raise SenseFileError(f"{path}: an LMMS .npz needs arrays 'labels' and 'vectors', found {npz.files}")
            labels = [str(x) for x in npz["labels"]]
            matrix = _npz_memmap(path, "vectors")
            if matrix is None:  # compressed: one full read, kept as the only copy
                matrix = npz["vectors"]
    except (ValueError, zipfile.BadZipFile, OSError) as err:
        raise SenseFileError(f"{path}: not a readable LMMS .npz ({err})") from None
    if matrix.ndim != 2 or matrix.shape[0] != len(labels):
        raise SenseFileError(f"{path}: {len(labels)} labels but vectors of shape {matrix.shape}")
    if keys is not None:
        rows = [i for i, k in enumerate(labels) if k in keys]
        return SenseVectorFile(
            path,
            [labels[i] for i in rows],
            matrix=np.asarray(matrix[rows], dtype=np.float32),
            dim=matrix.shape[1],
            name=name,
        )
    return SenseVectorFile(path, labels, matrix=matrix, dim=matrix.shape[1], name=name)


def _is_header(line: bytes) -> bool:
    parts = line.split()
    return len(parts) == 2 and all(p.isdigit() for p in parts)


def _read_text(path: Path, keys: set[str] | None, name: str | None) -> SenseVectorFile:
    found: list[str] = []
    offsets: list[int] = []
    rows: list[np.ndarray] = []
    dim: int | None = None
    with path.open("rb") as fh:
        offset = 0
        for lineno, line in enumerate(fh, start=1):
            start, offset = offset, offset + len(line)
            if lineno == 1 and _is_header(line):
                dim = int(line.split()[1])
                continue
            stripped = line.strip()
            if not stripped:
                continue
            n_fields = stripped.count(b" ") + 1 if b"\t" not in stripped else len(stripped.split())
            if dim is None:
                dim = n_fields - 1
                if dim < 1:
                    raise SenseFileError(f"{path}:{lineno}: expected 'sensekey v1 v2 ...', got {line[:60]!r}")
            if n_fields != dim + 1:
                raise SenseFileError(
                    f"{path}:{lineno}: expected a sense key and {dim} numbers (the dimension of the first line), "
                    f"got {n_fields - 1} numbers"
                )
            key = stripped[: stripped.find(b" ")].decode("utf-8")
            if keys is not None:
                if key in keys:
                    try:
                        rows.append(np.asarray(stripped.split()[1:], dtype=np.float32))
                    except ValueError as err:
                        raise SenseFileError(
                            f"{path}:{lineno}: not a number in the vector of {key!r} ({err})"
                        ) from None
                    found.append(key)
                continue
            found.append(key)
            offsets.append(start)
    if dim is None:
        raise SenseFileError(f"{path}: no sense vectors found")
    if keys is not None:
        matrix = np.vstack(rows) if rows else np.zeros((0, dim), dtype=np.float32)
        return SenseVectorFile(path, found, matrix=matrix, dim=dim, name=name)
    return SenseVectorFile(path, found, offsets=np.asarray(offsets, dtype=np.int64), dim=dim, name=name)


def load_sense_file(path: str | Path, *, keys: Iterable[str] | None = None, name: str | None = None) -> SenseVectorFile:
    """Sense vectors from an LMMS ``.npz``/``.txt`` or ARES ``.txt`` file.

    ``keys``: read only these sense keys (the others are never parsed); default
    all, lazily (memory-mapped ``.npz``, or a byte-offset index of a text file).
    Raises :class:`~embias_widgets.models.errors.SenseFileError` naming the line of a malformed vector.
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"sense-vector file {path} not found")
    wanted = None if keys is None else set(keys)
    if path.suffix == ".npz":
        return _read_npz(path, wanted, name)
    return _read_text(path, wanted, name)


def is_sense_file(path: str | Path) -> bool:
    """Whether ``path`` looks like a sense-vector file: an ``.npz`` or a text file whose first key holds ``%``."""
    path = Path(path).expanduser()
    if not path.is_file():
        return False
    if path.suffix == ".npz":
        return True
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, start=1):
            if lineno == 1 and _is_header(line):
                continue
            return b"%" in line.split(maxsplit=1)[0] if line.strip() else False
    return False
