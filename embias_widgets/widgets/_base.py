"""Where the bundled front-end modules live."""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "static"


def bundle(name: str) -> Path:
    """Path of ``static/<name>``; a missing bundle is a clear error with the fix."""
    path = STATIC / name
    if not path.exists():
        raise FileNotFoundError(
            f"front-end bundle {path} is missing: run `npm install && npm run build` in the "
            "repository root (pip install . does this for you)"
        )
    return path
