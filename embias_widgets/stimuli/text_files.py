"""Reading users' text files: one place that turns a directory or undecodable bytes into an error
that names the file, the position and the fix (instead of a bare ``UnicodeDecodeError``)."""

from __future__ import annotations

from pathlib import Path


class TextFileError(ValueError):
    """A file that cannot be read as text: names the file, where, and what to do."""


def read_utf8(path: str | Path, *, what: str = "file") -> str:
    """The text of ``path`` decoded as UTF-8 (a UTF-8 byte-order mark is dropped).

    Raises :class:`TextFileError` for a directory, and for bytes that are not
    UTF-8 (naming the byte, its line and offset); ``FileNotFoundError`` when
    there is no such file.
    """
    path = Path(path)
    if path.is_dir():
        raise TextFileError(f"{path} is a directory: give the path of a {what}")
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise not_utf8(path, err, line=data.count(b"\n", 0, err.start) + 1, what=what) from None


def not_utf8(path: str | Path, err: UnicodeDecodeError, *, line: int, offset: int = 0,
             what: str = "file") -> TextFileError:
    """The error for bytes of ``path`` that are not UTF-8 (``err`` from decoding part of it that starts at byte
    ``offset`` of the file, on line ``line``): the file, the line, the byte, the encoding expected and the fix."""
    byte = err.object[err.start]
    return TextFileError(f"{path}: line {line} (byte {offset + err.start}) holds 0x{byte:02x}, which is not UTF-8: "
                         f"save the {what} as UTF-8 text")
