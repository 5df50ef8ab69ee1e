"""Resuming an NLI run: a ``run.json`` manifest that proves the run, and the finished chunk files next to it.

The manifest records a fingerprint of everything that determines the numbers: the pairs (sha256 of the
pairs file, or of a template probe's word lists and templates), the model (sha256 of its weight, config
and tokenizer files, or a builtin's name and package versions; see
:mod:`embias_widgets.models.fingerprints`), the options that change scores (model options, ``taus``,
``chunk_size``, ``top_k``, ``limit``, per-pair rows). A run resumes from a directory only when its
fingerprint equals the manifest's exactly; otherwise :func:`open_results` refuses with what changed and
the two ways out (``fresh=True`` / ``--fresh``, or another directory). Chunk files without a manifest are
never merged. A chunk file that is empty, truncated or corrupt is named in a note, deleted and re-scored.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from .chunks import ChunkResult

MANIFEST = "run.json"
#: The chunk files' layout: 3 adds the per-template sums the two-way intervals need, so chunks of an earlier
#: format are never merged into a run of this one.
FORMAT = 3
CHUNK_GLOB = "chunk_*.npz"
#: Model options that cannot change a score (everything else is part of the fingerprint).
NEUTRAL_OPTIONS = frozenset({"progress", "cache_size"})
_WHAT = {
    "pairs": "the pairs (their content hash changed: an edited pairs file or other words/templates)",
    "model": "the model (its weights, config or tokenizer files, or its package version, changed)",
}


class NliRunError(ValueError):
    """A run that cannot start or continue (cluster unreachable, results dir of another run)."""


def chunk_path(results_dir: Path, start: int, stop: int) -> Path:
    """Where the chunk ``start .. stop-1`` is kept."""
    return results_dir / f"chunk_{start:012d}_{stop:012d}.npz"


def run_fingerprint(determines: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of what determines a run's numbers."""
    return hashlib.sha256(json.dumps(determines, sort_keys=True, default=str).encode()).hexdigest()


def _changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            out.append(_WHAT.get(key, f"{key} ({old.get(key, 'absent')!r} -> {new.get(key, 'absent')!r})"))
    return out


def _refuse(results_dir: Path, why: str) -> NliRunError:
    return NliRunError(f"{results_dir} holds results of another run than this one: {why}. A resume only "
                       "continues the very same run; to start over here pass fresh=True (embias nli --fresh), "
                       "which deletes its chunks, or give another results directory")


def _clear(results_dir: Path) -> None:
    for f in [*results_dir.glob(CHUNK_GLOB), *results_dir.glob("chunk_*.npz.tmp"), results_dir / MANIFEST]:
        if f.is_file():
            f.unlink()


def _write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True, default=str))
    os.replace(tmp, path)


def _check_chunk(c: ChunkResult, path: Path, ranges: dict[int, int], taus: tuple[float, ...]) -> str | None:
    if ranges.get(c.start) != c.stop or path.name != chunk_path(path.parent, c.start, c.stop).name:
        return f"its range {c.start}..{c.stop} is not a chunk of this run"
    if tuple(c.stats.taus) != tuple(taus):
        return "its thresholds differ from the run's"
    if int(np.sum(c.stats.count)) != c.stop - c.start:
        return f"it counts {int(np.sum(c.stats.count))} pairs for a range of {c.stop - c.start}"
    if c.probs is not None and c.probs.shape != (c.stop - c.start, 3):
        return "its per-pair rows have the wrong shape"
    return None


def open_results(results_dir: Path, determines: dict[str, Any], about: dict[str, Any], *,
                 ranges: Iterable[tuple[int, int]], taus: tuple[float, ...],
                 fresh: bool = False) -> tuple[dict[int, ChunkResult], list[str]]:
    """The finished chunks of this very run in ``results_dir`` (start -> chunk) and notes on damaged ones.

    ``determines`` is what fixes the numbers (compared exactly, through its fingerprint); ``about`` is for
    people reading the manifest (names, paths) and is never compared. ``fresh`` deletes the directory's
    chunks and manifest first. Raises :class:`NliRunError` for another run's directory or chunks without a
    manifest.
    """
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / MANIFEST
    if fresh:
        _clear(results_dir)
    manifest = {"format": FORMAT, "fingerprint": run_fingerprint(determines), "determines": determines,
                "about": about}
    chunks = sorted(results_dir.glob(CHUNK_GLOB))
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as err:
            raise _refuse(results_dir, f"its manifest {path.name} is unreadable ({err})") from None
        if isinstance(old, dict) and isinstance(old.get("format"), int) and old["format"] < FORMAT \
                and isinstance(old.get("determines"), dict):
            raise _refuse(results_dir, f"an earlier version of embias-widgets wrote it (chunk format {old['format']}, "
                          f"this version reads {FORMAT}): its chunks lack the per-template sums that the intervals "
                          "resample")
        if not isinstance(old, dict) or old.get("format") != FORMAT or not isinstance(old.get("determines"), dict):
            raise _refuse(results_dir, f"its manifest {path.name} has no fingerprint (an older version wrote it), "
                          "so nothing proves its chunks are of this probe and model")
        fresh_view = json.loads(json.dumps(determines, default=str))
        if old.get("fingerprint") != manifest["fingerprint"] or old["determines"] != fresh_view:
            raise _refuse(results_dir, "it differs in " + "; ".join(_changes(old["determines"], fresh_view) or
                                                                    ["its fingerprint"]))
    elif chunks:
        raise _refuse(results_dir, f"{len(chunks)} chunk file(s) such as {chunks[0].name} but no {MANIFEST} "
                      "manifest, so nothing proves which probe and model they are of (they are never merged)")
    else:
        _write_manifest(path, manifest)
    expected = dict(ranges)
    done: dict[int, ChunkResult] = {}
    notes: list[str] = []
    for f in chunks:
        try:
            c = ChunkResult.load(f)
            problem = _check_chunk(c, f, expected, taus)
        except (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, zipfile.BadZipFile,
                zlib.error) as err:
            problem = f"it is empty, truncated or corrupt ({type(err).__name__}: {str(err)[:80]})"
        if problem is not None:
            notes.append(f"chunk file {f.name} in {results_dir} was not used: {problem}; its pairs were re-scored")
            f.unlink()
            continue
        done[c.start] = c
    return done, notes
