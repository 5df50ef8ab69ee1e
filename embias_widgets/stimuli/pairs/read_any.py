"""Any supported pairs file: the format named or guessed from the extension."""

from __future__ import annotations

from pathlib import Path

from .crows_pairs import read_crows_pairs
from .download import local_path
from .sentence_pair import SentencePair
from .sssb import read_sssb, sssb_pairs
from .stereoset import read_stereoset

__all__ = ["FORMATS", "guess_format", "read_pairs"]

FORMATS = ("crows", "stereoset", "sssb")


def guess_format(source: str | Path) -> str:
    """``crows`` for .csv, ``stereoset`` for .json/.jsonl, ``sssb`` for .txt/.tsv."""
    suffix = Path(str(source).split("?", 1)[0]).suffix.lower()
    formats = {
        ".csv": "crows",
        ".json": "stereoset",
        ".jsonl": "stereoset",
        ".txt": "sssb",
        ".tsv": "sssb",
    }
    if suffix not in formats:
        raise ValueError(
            f"cannot tell the format of {source} from its extension {suffix or '(none)'}: name it with one of {FORMATS}"
        )
    return formats[suffix]


def read_pairs(
    source: str | Path,
    *,
    format_in: str | None = None,
    limit: int | None = None,
    cache_dir: str | Path | None = None,
) -> list[SentencePair]:
    """Pairs from any supported file, at most ``limit``.

    The format is ``format_in`` (one of :data:`FORMATS`) or guessed from the
    extension (:func:`guess_format`).
    """
    fmt = format_in or guess_format(source)
    if fmt == "crows":
        pairs = read_crows_pairs(source, cache_dir=cache_dir)
    elif fmt == "stereoset":
        pairs = read_stereoset(local_path(source, cache_dir))
    elif fmt == "sssb":
        local = local_path(source, cache_dir)
        pairs = sssb_pairs(read_sssb(local), path=local)
    else:
        raise ValueError(f"unknown pairs format {fmt!r}: use one of {FORMATS}")
    if limit is not None:
        if limit < 1:
            raise ValueError(f"`limit` must be at least 1, got {limit}")
        pairs = pairs[:limit]
    return pairs
