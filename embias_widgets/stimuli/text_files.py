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
        line = data.count(b"\n", 0, err.start) + 1
        raise TextFileError(
            f"{path}: line {line} (byte {err.start}) holds 0x{data[err.start]:02x}, which is not UTF-8: "
            f"save the {what} as UTF-8 text"
        ) from None
