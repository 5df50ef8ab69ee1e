"""Reading a model folder's JSON files (``config.json``, tokenizer and sentence-transformers settings) with
errors that name the file, the problem and the fix.

transformers reads these files as UTF-8 JSON and, when one is not, says only "is not a valid JSON file"
(or shows a raw ``UnicodeDecodeError``). :func:`read_json_file` tells apart the cases a user can fix:

- a UTF-16 file (it starts with a UTF-16 byte-order mark, as Windows Notepad may save it);
- a UTF-8 file with a byte-order mark (JSON readers refuse it);
- bytes that are not UTF-8 (e.g. a Latin-1 or Windows-1252 ``é``), with the line and column of the first;
- text that is not JSON, with the line and column where parsing stopped.

:func:`check_model_json` reads each such file of a local model folder before transformers does.
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

from .errors import ModelFileError

#: The small JSON files of a saved model folder that the loaders read (``tokenizer.json`` is left to the
#: tokenizer library: it can be large, and it reports its own errors with the file's name).
MODEL_JSON_FILES = (
    "config.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json",
    "modules.json", "sentence_bert_config.json", "1_Pooling/config.json",
)

_RESAVE = "re-save it as UTF-8 without a byte-order mark (e.g. with model.save_pretrained(...) or an editor)"


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in bytes) of byte ``offset`` of ``data``."""
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def decode_json_text(path: Path, data: bytes) -> str:
    """``data`` (the bytes of ``path``) as UTF-8 text, or a :class:`ModelFileError` naming the encoding problem."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ModelFileError(f"{path} is UTF-16 text (it starts with a UTF-16 byte-order mark), but model files "
                             f"are read as UTF-8: {_RESAVE}")
    if data.startswith(codecs.BOM_UTF8):
        raise ModelFileError(f"{path} starts with a UTF-8 byte-order mark, which JSON readers refuse: {_RESAVE}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, column = _position(data, err.start)
        raise ModelFileError(
            f"{path} is not UTF-8 text: byte 0x{data[err.start]:02x} at line {line}, column {column} is not "
            f"UTF-8 (a Latin-1 or Windows-1252 file?); model files are read as UTF-8: {_RESAVE}") from None


def read_json_file(path: str | Path) -> Any:
    """The JSON value of the file ``path``, or a :class:`ModelFileError` naming the file, the problem (encoding;
    JSON syntax with line and column) and the fix. A missing or unreadable file raises the ``OSError``."""
    path = Path(path)
    text = decode_json_text(path, path.read_bytes())
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ModelFileError(
            f"{path} is not valid JSON: {err.msg.lower()} at line {err.lineno}, column {err.colno}; fix it there "
            f"(python -m json.tool {path} checks it), or save the model again with save_pretrained(...)") from None


def check_model_json(folder: str | Path) -> None:
    """Read every file of :data:`MODEL_JSON_FILES` that the local model ``folder`` has (a hub name, which is
    no folder, is left alone); ``config.json`` must hold a JSON object. Raises :class:`ModelFileError`."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        return
    for name in MODEL_JSON_FILES:
        file = folder / name
        if file.is_file():
            value = read_json_file(file)
            if name.endswith("config.json") and not isinstance(value, dict):
                raise ModelFileError(f"{file} holds a JSON {type(value).__name__}, not an object of settings "
                                     "({...}); save the model again with save_pretrained(...)")
