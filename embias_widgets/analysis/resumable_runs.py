"""Chunked, resumable runs: what the NLI probe and the BBQ scorer share when a run is cut into chunks of items.

A run's items are cut into index ranges (:func:`chunk_ranges`), each scored as one unit and, with a results
directory, written to its own file next to a ``run.json`` manifest (:data:`MANIFEST`). The manifest holds the
sha256 (:func:`run_fingerprint`) of the canonical JSON of everything that determines the numbers: the items' content
hash, the model's content fingerprint (:func:`fingerprint_model`), the options that change scores
(:func:`scoring_options`) and the method's own settings. A run resumes only from a manifest whose fingerprint and
``determines`` equal its own exactly (:func:`open_manifest`); anything else is refused, naming what changed. Chunk
files without a manifest are never merged; a damaged chunk file is named in a note, deleted and scored again
(:func:`load_chunks`). What a chunk holds, how it is checked and the file names stay with each method
(:mod:`embias_widgets.analysis.nli.resume`, :mod:`embias_widgets.analysis.bbq.chunks`).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from ..models.fingerprints import FingerprintError, model_fingerprint, object_fingerprint

MANIFEST = "run.json"
#: Model options that cannot change a score (everything else is part of the fingerprint).
NEUTRAL_OPTIONS = frozenset({"progress", "cache_size"})
#: What a chunk file that cannot be read raises: empty, truncated, not a zip, or arrays missing or of another type.
DAMAGED = (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, zipfile.BadZipFile, zlib.error)

Chunk = TypeVar("Chunk")


def run_fingerprint(determines: dict[str, Any]) -> str:
    """sha256 of the canonical JSON (sorted keys) of what determines a run's numbers."""
    return hashlib.sha256(json.dumps(determines, sort_keys=True, default=str).encode()).hexdigest()


def scoring_options(model_options: dict[str, Any]) -> dict[str, Any]:
    """The model options that can change a score (all but :data:`NEUTRAL_OPTIONS`), sorted, as JSON holds them."""
    options = {k: v for k, v in sorted(model_options.items()) if k not in NEUTRAL_OPTIONS}
    return json.loads(json.dumps(options, default=str))


def chunk_ranges(n: int, chunk_size: int) -> list[tuple[int, int]]:
    """The index ranges ``[(0, c), (c, 2c), ..., (k c, n)]`` of ``n`` items in chunks of ``chunk_size``."""
    return [(a, min(a + chunk_size, n)) for a in range(0, n, chunk_size)]


def model_name(spec: Any) -> str:
    """A model's name: the name or directory it was given by, else the object's ``name`` or its type's name."""
    return spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))


def fingerprint_model(spec: Any, loaded: Callable[[], Any], error: type[Exception]) -> str:
    """Content fingerprint of a run's model (:mod:`embias_widgets.models.fingerprints`): of ``spec`` itself, or,
    for a name that has no files to hash (a user-registered one), of the object ``loaded()`` returns. Raises
    ``error`` naming why when the model cannot be fingerprinted (a results directory needs one)."""
    try:
        try:
            return model_fingerprint(spec)
        except FingerprintError:
            if not isinstance(spec, str):
                raise
            return object_fingerprint(loaded())
    except FingerprintError as err:
        raise error(f"results_dir needs a model whose content can be fingerprinted: {err}") from None


def refusal(error: type[Exception], results_dir: Path, why: str, *, same: str = "", flag: str) -> Exception:
    """The error refusing to resume into ``results_dir``: ``why``, what a resume continues (``same``: a
    parenthesis listing it, or nothing), and the two ways out (``fresh=True`` / ``flag``, another directory)."""
    return error(f"{results_dir} holds results of another run than this one: {why}. A resume only continues the very "
                 f"same run{same}; to start over here pass fresh=True ({flag}), which deletes its chunks, or give "
                 "another results directory")


def changes(old: dict[str, Any], new: dict[str, Any], what: dict[str, str]) -> list[str]:
    """What differs between two runs' ``determines``: ``what[key]`` where given, else ``key (old -> new)``."""
    return [what.get(k, f"{k} ({old.get(k, 'absent')!r} -> {new.get(k, 'absent')!r})")
            for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """Write ``manifest`` as indented, key-sorted JSON, atomically (a temporary file, then a rename)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True, default=str))
    os.replace(tmp, path)


def open_manifest(results_dir: Path, manifest: dict[str, Any], view: dict[str, Any], *, chunk_glob: str,
                  fresh: bool, refuse: Callable[[str], Exception], foreign: Callable[[Any], str | None],
                  what: dict[str, str], of_what: str) -> list[Path]:
    """Prove that ``results_dir`` holds this very run (or nothing yet) and return its chunk files, sorted.

    ``manifest`` is this run's (written when the directory holds none and no chunks); ``view`` its
    ``determines`` as JSON reads it back. ``fresh`` first deletes the chunk files (``chunk_glob``), their
    temporary files and the manifest. Refused (``refuse(why)`` is raised): an unreadable manifest, one
    ``foreign(old)`` names a problem with (another method's, an older format), one whose fingerprint or
    ``determines`` differ (naming what changed, :func:`changes` with ``what``), or chunk files without a manifest
    (nothing proves which ``of_what`` they are of)."""
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / MANIFEST
    if fresh:
        for f in [*results_dir.glob(chunk_glob), *results_dir.glob(chunk_glob + ".tmp"), path]:
            if f.is_file():
                f.unlink()
    chunks = sorted(results_dir.glob(chunk_glob))
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as err:
            raise refuse(f"its manifest {path.name} is unreadable ({err})") from None
        problem = foreign(old)
        if problem is not None:
            raise refuse(problem)
        if old.get("fingerprint") != manifest["fingerprint"] or old["determines"] != view:
            raise refuse("it differs in " + "; ".join(changes(old["determines"], view, what) or ["its fingerprint"]))
    elif chunks:
        raise refuse(f"{len(chunks)} chunk file(s) such as {chunks[0].name} but no {MANIFEST} manifest, so nothing "
                     f"proves which {of_what} they are of (they are never merged)")
    else:
        write_manifest(path, manifest)
    return chunks


def load_chunks(results_dir: Path, files: Iterable[Path], *, load: Callable[[Path], Chunk],
                check: Callable[[Chunk], str | None], chunk_path: Callable[[Path, int, int], Path],
                ranges: Iterable[tuple[int, int]], redone: str) -> tuple[dict[int, Chunk], list[str]]:
    """The chunks of ``files`` that belong to this run (start -> chunk) and a note on each one that does not.

    A chunk belongs when its range is one of ``ranges``, its file is named ``chunk_path(...)`` of that range and
    ``check(chunk)`` finds no problem; a file that cannot be read (:data:`DAMAGED`) or does not belong is named in
    a note ending ``redone`` (e.g. "its items were scored again") and deleted, so the run scores it again."""
    expected = dict(ranges)
    done: dict[int, Chunk] = {}
    notes: list[str] = []
    for f in files:
        try:
            c = load(f)
            start, stop = c.start, c.stop  # type: ignore[attr-defined]
            if expected.get(start) != stop or f.name != chunk_path(f.parent, start, stop).name:
                problem: str | None = f"its range {start}..{stop} is not a chunk of this run"
            else:
                problem = check(c)
        except DAMAGED as err:
            problem = f"it is empty, truncated or corrupt ({type(err).__name__}: {str(err)[:80]})"
        if problem is not None:
            notes.append(f"chunk file {f.name} in {results_dir} was not used: {problem}; {redone}")
            f.unlink()
            continue
        done[start] = c
    return done, notes
