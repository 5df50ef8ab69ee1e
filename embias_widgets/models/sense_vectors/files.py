"""Published static sense embeddings: LMMS (``.npz`` / ``.txt``) and ARES (``.txt``).

- LMMS ``.npz`` (Loureiro & Jorge 2019): arrays ``labels`` (sense keys) and
  ``vectors`` (senses x dim). An uncompressed archive is memory-mapped: only the
  rows a study asks for are read. A compressed one is read once (one copy).
- LMMS ``.txt``: one ``sensekey v1 v2 ...`` per line.
- ARES ``.txt`` (Scarlini et al. 2020): the same lines after a word2vec header ``<count> <dim>``.

Files are read strictly: every key must be a UTF-8 WordNet sense key (it holds
``%``) given once, the fields of a text line are separated by spaces, and every
line has the dimension of the first. Text files are indexed once (key -> byte
offset and line number), and a vector is parsed only when asked for; a vector
that holds NaN or an infinity is refused when it is read, naming its key, the
file and the line. Or pass ``keys=`` to read just those in one pass.
"""

from __future__ import annotations

import codecs
import struct
import zipfile
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from ..errors import SenseFileError
from .base import SenseVectors, lemma_of

_ZIP_MAGIC = b"PK\x03\x04"
_SEPARATORS = (b",", b";", b"|")


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


def check_finite(vector: np.ndarray, key: str, where: str) -> np.ndarray:
    """``vector`` if every number is finite, else :class:`SenseFileError` naming ``key`` and ``where``."""
    bad = np.flatnonzero(~np.isfinite(vector))
    if bad.size:
        value = vector[bad[0]]
        raise SenseFileError(
            f"{where}: the vector of sense key {key!r} holds {value} (number {bad[0] + 1} of {vector.size}); "
            "a sense vector must be finite numbers: fix or remove that vector, or use another file"
        )
    return vector


class SenseVectorFile(SenseVectors):
    """Sense vectors from an LMMS/ARES file, read lazily. Use :func:`load_sense_file`."""

    def __init__(
        self,
        path: Path,
        keys: list[str],
        *,
        matrix: np.ndarray | None = None,
        offsets: np.ndarray | None = None,
        lines: np.ndarray | None = None,
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
        self._lines = lines  # line number of each key (text files)
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

    def where(self, key: str) -> str:
        """``path:line`` of ``key`` in a text file, ``path (row i of 'vectors')`` in an ``.npz``."""
        row = self._row[key]
        if self._lines is not None:
            return f"{self.path}:{int(self._lines[row])}"
        return f"{self.path} (row {row} of 'vectors')"

    def _lookup(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        out: list[np.ndarray | None] = []
        with self.path.open("rb") if self._matrix is None else nullcontext() as fh:
            for key in keys:
                r = self._row.get(key)
                if r is None:
                    out.append(None)
                elif self._matrix is not None:
                    out.append(check_finite(np.array(self._matrix[r], dtype=np.float64), key, self.where(key)))
                else:
                    fh.seek(int(self._offsets[r]))
                    fields = fh.readline().split()
                    out.append(_numbers(fields[len(fields) - self._dim :], key, self.where(key)))
        return out


def _numbers(fields: Sequence[bytes], key: str, where: str) -> np.ndarray:
    """The numbers of one text line as float64, finite, or an error naming the key and the line."""
    try:
        vector = np.asarray(fields, dtype=np.float64)
    except ValueError:
        bad = next(f for f in fields if not _is_number(f))
        hint = "; the file looks comma-separated: separate fields by spaces" if b"," in bad else ""
        raise SenseFileError(
            f"{where}: {bad[:30]!r} in the vector of sense key {key!r} is not a number{hint}"
        ) from None
    return check_finite(vector, key, where)


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _check_key(raw: bytes, where: str) -> str:
    """A text line's key as ``str``: UTF-8, a WordNet sense key, no other separator in it."""
    try:
        key = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SenseFileError(
            f"{where}: the key {raw[:40]!r} is not UTF-8 text; save the file as UTF-8 (WordNet sense keys are ASCII)"
        ) from None
    for sep in _SEPARATORS:
        if sep.decode() in key:
            raise SenseFileError(
                f"{where}: fields are separated by {sep.decode()!r}; an LMMS/ARES text file has "
                "'sensekey v1 v2 ...' separated by spaces"
            )
    if "%" not in key:
        raise SenseFileError(
            f"{where}: {key[:40]!r} is not a WordNet sense key (like 'nurse%1:18:00::'); a sense-vector file "
            "has one sense key per line (a word-vector file is loaded as a word model instead)"
        )
    return key


def _read_npz(path: Path, keys: set[str] | None, name: str | None) -> SenseVectorFile:
    not_one = (
        f"{path}: not a sense-vector file: an LMMS .npz is a numpy archive holding arrays 'labels' (sense keys) "
        "and 'vectors' (senses x dim)"
    )
    if not zipfile.is_zipfile(path):
        raise SenseFileError(f"{not_one}, and this file is not a zip archive (corrupt, truncated or another format)")
    try:
        with np.load(path, allow_pickle=False) as npz:
            if "labels" not in npz.files or "vectors" not in npz.files:
                raise SenseFileError(f"{path}: an LMMS .npz needs arrays 'labels' and 'vectors', found {npz.files}")
            raw_labels = npz["labels"]
            matrix = _npz_memmap(path, "vectors")
            if matrix is None:  # compressed: one full read, kept as the only copy
                matrix = npz["vectors"]
    except SenseFileError:
        raise
    except ValueError as err:
        if "pickle" in str(err):  # object arrays: never read (loading pickles runs code)
            raise SenseFileError(
                f"{path}: an array holds Python objects, not numbers and text; save 'labels' as a string array "
                "(np.array(keys, dtype=str)) and 'vectors' as floats"
            ) from None
        raise SenseFileError(f"{not_one} ({err})") from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as err:
        raise SenseFileError(f"{not_one}; this one cannot be read ({type(err).__name__}: {err})") from None
    labels = _npz_labels(path, raw_labels)
    if matrix.ndim != 2 or matrix.shape[0] != len(labels) or matrix.dtype.kind not in "fiu":
        raise SenseFileError(
            f"{path}: {len(labels)} labels but 'vectors' of shape {matrix.shape} and dtype {matrix.dtype}; "
            "'vectors' must be a (labels x dim) array of numbers"
        )
    if keys is not None:
        rows = [i for i, k in enumerate(labels) if k in keys]
        picked = np.asarray(matrix[rows], dtype=np.float32)
        for i, row in zip(rows, picked, strict=True):
            check_finite(row, labels[i], f"{path} (row {i} of 'vectors')")
        return SenseVectorFile(path, [labels[i] for i in rows], matrix=picked, dim=matrix.shape[1], name=name)
    return SenseVectorFile(path, labels, matrix=matrix, dim=matrix.shape[1], name=name)


def _npz_labels(path: Path, raw: np.ndarray) -> list[str]:
    """The ``labels`` array as sense keys: text, one per row, each once."""
    if raw.ndim != 1 or raw.dtype.kind not in "US" or raw.size == 0:
        raise SenseFileError(
            f"{path}: 'labels' must be a non-empty 1-d array of sense keys (text), got shape {raw.shape} "
            f"and dtype {raw.dtype}"
        )
    labels = []
    first: dict[str, int] = {}
    for i, value in enumerate(raw.tolist()):
        where = f"{path} (label {i})"
        key = _check_key(value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass"), where)
        if key in first:
            raise SenseFileError(
                f"{where}: sense key {key!r} appears again (first as label {first[key]}); a sense has one "
                "vector: remove one of the two rows"
            )
        first[key] = i
        labels.append(key)
    return labels


def _is_header(line: bytes) -> bool:
    parts = line.split()
    return len(parts) == 2 and all(p.isdigit() for p in parts)


def _read_text(path: Path, keys: set[str] | None, name: str | None) -> SenseVectorFile:
    found: list[str] = []
    offsets: list[int] = []
    lines: list[int] = []
    rows: list[np.ndarray] = []
    first: dict[str, int] = {}
    dim: int | None = None
    declared: int | None = None
    with path.open("rb") as fh:
        offset = 0
        for lineno, line in enumerate(fh, start=1):
            start, offset = offset, offset + len(line)
            if lineno == 1:
                line = line.removeprefix(codecs.BOM_UTF8)
                if _is_header(line):
                    declared, dim = (int(p) for p in line.split())
                    continue
            parts = line.split()
            if not parts:
                continue
            where = f"{path}:{lineno}"
            key = _check_key(parts[0], where)
            if dim is None:
                dim = len(parts) - 1
                if dim < 1:
                    raise SenseFileError(
                        f"{where}: expected 'sensekey v1 v2 ...' separated by spaces, got {line[:60]!r}"
                    )
            if len(parts) != dim + 1:
                raise SenseFileError(
                    f"{where}: expected a sense key and {dim} numbers (the dimension of the first line), "
                    f"got {len(parts) - 1} numbers"
                )
            if key in first:
                raise SenseFileError(
                    f"{where}: sense key {key!r} appears again (first on line {first[key]}); a sense has one "
                    "vector: remove one of the two lines"
                )
            first[key] = lineno
            if keys is None:
                found.append(key)
                offsets.append(start)
                lines.append(lineno)
            elif key in keys:
                rows.append(_numbers(parts[1:], key, where).astype(np.float32))
                found.append(key)
                lines.append(lineno)
    if dim is None or not first:
        raise SenseFileError(f"{path}: no sense vectors found; expected lines 'sensekey v1 v2 ...'")
    if declared is not None and declared != len(first):
        raise SenseFileError(
            f"{path}: the header says {declared} vectors but the file holds {len(first)}; "
            "the file is truncated or its header is wrong"
        )
    line_numbers = np.asarray(lines, dtype=np.int64)
    if keys is not None:
        matrix = np.vstack(rows) if rows else np.zeros((0, dim), dtype=np.float32)
        return SenseVectorFile(path, found, matrix=matrix, lines=line_numbers, dim=dim, name=name)
    return SenseVectorFile(
        path, found, offsets=np.asarray(offsets, dtype=np.int64), lines=line_numbers, dim=dim, name=name
    )


def _load_sense_file_iv(path: str | Path) -> Path:
    """The path of an existing file, or an error naming it and what to give."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise IsADirectoryError(
            f"sense-vector file {path} is a directory: give the path of an LMMS .npz/.txt or ARES .txt file"
        )
    if not path.is_file():
        raise FileNotFoundError(
            f"sense-vector file {path} not found: give the path of an existing LMMS .npz/.txt or ARES .txt file"
        )
    return path


def load_sense_file(path: str | Path, *, keys: Iterable[str] | None = None, name: str | None = None) -> SenseVectorFile:
    """Sense vectors from an LMMS ``.npz``/``.txt`` or ARES ``.txt`` file.

    ``keys``: read only these sense keys (the others are never parsed); default
    all, lazily (memory-mapped ``.npz``, or a byte-offset index of a text file).
    Raises :class:`~embias_widgets.models.errors.SenseFileError` naming the file and the line or key of a
    malformed vector, a duplicate key, a key that is not UTF-8 or not a sense key, or a non-finite number
    (the latter when that vector is read); ``FileNotFoundError`` for a path that does not exist.
    """
    path = _load_sense_file_iv(path)
    wanted = None if keys is None else set(keys)
    with path.open("rb") as fh:
        is_zip = fh.read(4) == _ZIP_MAGIC
    if path.suffix == ".npz" or is_zip:
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
