"""Finished sections kept under ``DIR/sections/`` as they finish, so an interrupted report resumes.

Each file holds the section's outcome and the fingerprint of what determines its numbers (the model's content
fingerprint, the data files' sha256, the options and seed, this package's version; see :func:`determines`),
computed with the NLI runs' :func:`~embias_widgets.analysis.nli.resume.run_fingerprint`. A saved section is used
only when its fingerprint equals this run's exactly; any other is refused naming what changed and the two ways out
(``fresh=True`` / ``--fresh``, or another folder), never merged. Files are written to a temporary name and renamed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..nli.resume import run_fingerprint

SECTIONS_DIR = "sections"
FORMAT = 1


class ReportRunError(ValueError):
    """A report folder holding another run's sections (the message names what changed and the ways out)."""


def determines(section_id: str, model_fingerprint: str, data: dict[str, str], options: dict[str, Any]) -> dict:
    """What fixes a section's numbers: compared exactly through :func:`run_fingerprint`."""
    from ... import __version__

    return {"section": section_id, "model": model_fingerprint, "data": dict(sorted(data.items())),
            "options": json.loads(json.dumps(options, default=list)), "package_version": __version__}


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write ``path`` through a temporary name and a rename, so it is whole or absent."""
    tmp = path.with_name(path.name + ".tmp")
    if isinstance(text, bytes):
        tmp.write_bytes(text)
    else:
        tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class SectionStore:
    """The saved sections of one report folder."""

    def __init__(self, out_dir: Path, *, fresh: bool = False) -> None:
        self.dir = out_dir / SECTIONS_DIR
        self.dir.mkdir(parents=True, exist_ok=True)
        self.notes: list[str] = []
        if fresh:
            for f in self.dir.glob("*.json*"):
                f.unlink()

    def _path(self, section_id: str) -> Path:
        return self.dir / f"{section_id}.json"

    def load(self, section_id: str, wanted: dict[str, Any]) -> dict[str, Any] | None:
        """The saved record of this very section, None when there is none (or it was damaged and removed)."""
        path = self._path(section_id)
        if not path.is_file():
            return None
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            old = saved["determines"]
            record = saved["record"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as err:
            self.notes.append(f"saved section {path.name} was damaged ({type(err).__name__}) and is run again")
            path.unlink()
            return None
        if saved.get("format") != FORMAT or saved.get("fingerprint") != run_fingerprint(wanted) or old != wanted:
            changed = sorted(k for k in set(old) | set(wanted) if old.get(k) != wanted.get(k)) if isinstance(
                old, dict) else ["its format"]
            raise ReportRunError(
                f"{self.dir.parent} holds a section {section_id!r} of another run: it differs in "
                f"{', '.join(changed) or 'its fingerprint'}. A resume only continues the very same run; pass "
                "fresh=True (embias report --fresh) to delete the saved sections and start over, or give another "
                "folder (--out)")
        return record

    def save(self, section_id: str, wanted: dict[str, Any], record: dict[str, Any]) -> None:
        """Keep a finished section (atomically)."""
        payload = {"format": FORMAT, "fingerprint": run_fingerprint(wanted), "determines": wanted, "record": record}
        write_atomic(self._path(section_id), json.dumps(payload, indent=1, sort_keys=True))
