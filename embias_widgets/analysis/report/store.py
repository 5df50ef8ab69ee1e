"""Finished sections kept under ``DIR/sections/`` as they finish, so an interrupted report resumes.

Each file holds the section's outcome and the fingerprint of what determines its numbers (the model's content
fingerprint, the data files' sha256, the options and seed, this package's version; see :func:`determines`),
computed with the NLI runs' :func:`~embias_widgets.analysis.nli.resume.run_fingerprint`. A saved section is used
only when its fingerprint equals this run's exactly; any other is refused naming what changed and the two ways out
(``fresh=True`` / ``--fresh``, or another folder), never merged.

``sections/manifest.json`` holds the sha256 of every section file as it was written. A file whose bytes no longer
match (edited, cut short), that the manifest does not list, or whose content is not a section
(:func:`~.checks.section_problem`) is never used: the section is run again and a note says which file and what was
wrong (:attr:`SectionStore.notes`, and the section's own notes). Files are written to a temporary name of their
own (process id and random digits) and renamed, so they are whole or absent, even with two writers.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

from ..nli.resume import run_fingerprint
from .checks import section_problem

SECTIONS_DIR = "sections"
MANIFEST = "manifest.json"
FORMAT = 1


class ReportRunError(ValueError):
    """A report folder holding another run's sections, or being written by another run (the message names what
    changed or who holds the folder, and the ways out)."""


def determines(section_id: str, model_fingerprint: str, data: dict[str, str], options: dict[str, Any]) -> dict:
    """What fixes a section's numbers: compared exactly through :func:`run_fingerprint`."""
    from ... import __version__

    return {"section": section_id, "model": model_fingerprint, "data": dict(sorted(data.items())),
            "options": json.loads(json.dumps(options, default=list)), "package_version": __version__}


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write ``path`` through a temporary name of its own and a rename, so it is whole or absent."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, "xb") as handle:
            handle.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SectionStore:
    """The saved sections of one report folder and their manifest (one writer at a time: :mod:`.lock`)."""

    def __init__(self, out_dir: Path) -> None:
        self.dir = out_dir / SECTIONS_DIR
        self.dir.mkdir(parents=True, exist_ok=True)
        self.notes: list[str] = []
        self.section_notes: dict[str, list[str]] = {}
        self._checksums = self._read_manifest()

    def _path(self, section_id: str) -> Path:
        return self.dir / f"{section_id}.json"

    def _read_manifest(self) -> dict[str, str]:
        path = self.dir / MANIFEST
        if not path.is_file():
            return {}
        try:
            manifest = json.loads(path.read_bytes().decode("utf-8"))
            checksums = manifest["sha256"]
            if not (isinstance(checksums, dict) and all(isinstance(v, str) for v in checksums.values())):
                raise TypeError("'sha256' is not an object of strings")
        except (OSError, ValueError, KeyError, TypeError) as err:
            self.notes.append(f"{SECTIONS_DIR}/{MANIFEST} is damaged ({type(err).__name__}: {str(err)[:120]}): "
                              "no saved section can be checked, so each is run again")
            return {}
        return checksums

    def clear(self) -> None:
        """Delete every saved section and the manifest (``fresh``), and what was noted about them."""
        for f in self.dir.glob("*.json"):
            f.unlink()
        self._checksums, self.notes, self.section_notes = {}, [], {}

    def _damaged(self, section_id: str, path: Path, problem: str) -> None:
        note = f"the saved section {SECTIONS_DIR}/{path.name} {problem}, so this section was run again"
        self.notes.append(note)
        self.section_notes[section_id] = [note]

    def _verified(self, section_id: str, path: Path) -> dict[str, Any] | None:
        """The saved file's content when its bytes match the manifest and it is a section; else None (noted)."""
        try:
            raw = path.read_bytes()
        except OSError as err:
            self._damaged(section_id, path, f"cannot be read ({err.strerror or err})")
            return None
        expected = self._checksums.get(path.name)
        if expected is None:
            self._damaged(section_id, path, f"cannot be checked: it is not listed in {SECTIONS_DIR}/{MANIFEST} (an "
                          "older version wrote it, or the manifest was lost)")
            return None
        if _sha256(raw) != expected:
            self._damaged(section_id, path, f"does not match its sha256 in {SECTIONS_DIR}/{MANIFEST}: it was edited "
                          "or damaged after it was written")
            return None
        try:
            saved = json.loads(raw.decode("utf-8"))
        except ValueError as err:  # UnicodeDecodeError and JSONDecodeError
            self._damaged(section_id, path, f"is damaged (not UTF-8 JSON: {err})")
            return None
        problem = _shape_problem(saved) or section_problem(saved["record"])
        if problem is None and saved["record"]["id"] != section_id:
            problem = f"holds section {saved['record']['id']!r}"
        if problem is not None:
            self._damaged(section_id, path, f"is damaged ({problem})")
            return None
        return saved

    def saved_record(self, section_id: str) -> dict[str, Any] | None:
        """The saved record of ``section_id`` whatever run wrote it, when its bytes match the manifest (a baseline's
        per-item data, :mod:`.items`); None when there is none or it cannot be trusted."""
        path = self._path(section_id)
        saved = self._verified(section_id, path) if path.is_file() else None
        return None if saved is None else saved["record"]

    def load(self, section_id: str, wanted: dict[str, Any]) -> dict[str, Any] | None:
        """The saved record of this very section; None when there is none or it cannot be trusted (noted: it is
        run again and its new file replaces the old). Nothing is deleted here: a run refused later keeps them all."""
        path = self._path(section_id)
        if not path.is_file():
            return None
        saved = self._verified(section_id, path)
        if saved is None:
            return None
        old = saved["determines"]
        if saved.get("format") != FORMAT or saved.get("fingerprint") != run_fingerprint(wanted) or old != wanted:
            changed = sorted(k for k in set(old) | set(wanted) if old.get(k) != wanted.get(k))
            raise ReportRunError(
                f"{self.dir.parent} holds a section {section_id!r} of another run: it differs in "
                f"{', '.join(changed) or 'its fingerprint'}. A resume only continues the very same run; pass "
                "fresh=True (embias report --fresh) to delete the saved sections and start over, or give another "
                "folder (--out)")
        return saved["record"]

    def save(self, section_id: str, wanted: dict[str, Any], record: dict[str, Any]) -> None:
        """Keep a finished section: its checksum into the manifest first, then the file (each atomically), so an
        interruption between the two leaves a section that is simply run again."""
        payload = {"format": FORMAT, "fingerprint": run_fingerprint(wanted), "determines": wanted, "record": record}
        text = json.dumps(payload, indent=1, sort_keys=True).encode("utf-8")
        path = self._path(section_id)
        self._checksums[path.name] = _sha256(text)
        write_atomic(self.dir / MANIFEST, json.dumps({"format": FORMAT, "sha256": self._checksums}, indent=1,
                                                     sort_keys=True))
        write_atomic(path, text)



def _shape_problem(saved: Any) -> str | None:
    if not isinstance(saved, dict):
        return "it is not a JSON object"
    return next((f"{k!r} is missing or not an object" for k in ("determines", "record")
                 if not isinstance(saved.get(k), dict)), None)
