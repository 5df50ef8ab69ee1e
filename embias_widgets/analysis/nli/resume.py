"""Resuming an NLI run: a ``run.json`` manifest that proves the run, and the finished chunk files next to it.

The manifest records a fingerprint of everything that determines the numbers: the pairs (sha256 of the
pairs file, or of a template probe's word lists and templates), the model (sha256 of its weight, config
and tokenizer files, or a builtin's name and package versions; see
:mod:`embias_widgets.models.fingerprints`), the options that change scores (model options, ``taus``,
``chunk_size``, ``top_k``, ``limit``, per-pair rows). A run resumes from a directory only when its
fingerprint equals the manifest's exactly; otherwise :func:`open_results` refuses with what changed and
the two ways out (``fresh=True`` / ``--fresh``, or another directory). Chunk files without a manifest are
never merged. A chunk file that is empty, truncated or corrupt is named in a note, deleted and re-scored. The
manifest and chunk-file checks shared with the BBQ scorer are in :mod:`embias_widgets.analysis.resumable_runs`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from ..resumable_runs import MANIFEST, NEUTRAL_OPTIONS, load_chunks, open_manifest, refusal, run_fingerprint
from .chunks import ChunkResult

__all__ = ["CHUNK_GLOB", "FORMAT", "MANIFEST", "NEUTRAL_OPTIONS", "NliRunError", "chunk_path", "open_results",
           "run_fingerprint"]

#: The chunk files' layout: 3 adds the per-template sums the two-way intervals need, so chunks of an earlier
#: format are never merged into a run of this one.
FORMAT = 3
CHUNK_GLOB = "chunk_*.npz"
_WHAT = {
    "pairs": "the pairs (their content hash changed: an edited pairs file or other words/templates)",
    "model": "the model (its weights, config or tokenizer files, or its package version, changed)",
}


class NliRunError(ValueError):
    """A run that cannot start or continue (cluster unreachable, results dir of another run)."""


def chunk_path(results_dir: Path, start: int, stop: int) -> Path:
    """Where the chunk ``start .. stop-1`` is kept."""
    return results_dir / f"chunk_{start:012d}_{stop:012d}.npz"


def _foreign(old: Any) -> str | None:
    """Why a manifest is not one of this version's NLI runs (None when it is)."""
    if isinstance(old, dict) and isinstance(old.get("format"), int) and old["format"] < FORMAT \
            and isinstance(old.get("determines"), dict):
        return (f"an earlier version of embias-widgets wrote it (chunk format {old['format']}, this version reads "
                f"{FORMAT}): its chunks lack the per-template sums that the intervals resample")
    if not isinstance(old, dict) or old.get("format") != FORMAT or not isinstance(old.get("determines"), dict):
        return f"its manifest {MANIFEST} has no fingerprint (an older version wrote it), so nothing proves its " \
               "chunks are of this probe and model"
    return None


def _check_chunk(c: ChunkResult, taus: tuple[float, ...]) -> str | None:
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
    manifest = {"format": FORMAT, "fingerprint": run_fingerprint(determines), "determines": determines,
                "about": about}

    def refuse(why: str) -> Exception:
        return refusal(NliRunError, results_dir, why, flag="embias nli --fresh")

    files = open_manifest(results_dir, manifest, json.loads(json.dumps(determines, default=str)),
                          chunk_glob=CHUNK_GLOB, fresh=fresh, refuse=refuse, foreign=_foreign, what=_WHAT,
                          of_what="probe and model")
    return load_chunks(results_dir, files, load=ChunkResult.load, check=lambda c: _check_chunk(c, taus),
                       chunk_path=chunk_path, ranges=ranges, redone="its pairs were re-scored")
