"""The offline vega bundle of altair's chart widget, built once per content and kept in the cache folder.

:meth:`altair.JupyterChart.enable_offline` has ``vl-convert-python`` bundle vega, vega-lite and vega-embed with
altair's widget source (``vl_convert.javascript_bundle``): about 2.5 s of CPU in every new kernel, most of a
notebook's first chart. The bundle is a function of three things only: altair's widget source, the Vega-Lite
version altair asks for, and the vl-convert build that bundles it. It is kept under the SHA-256 of those
three (the build named by the hash of its compiled module that pip wrote to the package's ``RECORD``), in
``<cache>/vega-bundles/`` (``$EMBIAS_CACHE``, else ``~/.cache/embias-widgets``); a later kernel reads it in a
few milliseconds. The file's first line holds the SHA-256 of the bundle, checked on every read: a file that
does not match is built again. Without a recorded hash (an install without ``RECORD``) nothing is cached.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

HEADER = "// embias bundle sha256="
"""First line of a cached bundle: this prefix, then the SHA-256 of the rest of the file."""


def vl_convert_build() -> str | None:
    """``sha256=...`` of vl-convert's compiled module as pip recorded it at install, or None."""
    from importlib import metadata

    try:
        files = metadata.files("vl-convert-python") or []
    except metadata.PackageNotFoundError:
        return None
    for f in files:
        if f.name.startswith("vl_convert") and f.suffix in {".so", ".pyd"} and f.hash is not None:
            return f"{f.hash.mode}={f.hash.value}"
    return None


def bundle_key() -> str | None:
    """SHA-256 over altair's widget source, the Vega-Lite version and the vl-convert build (None when the
    build has no recorded hash or altair no longer exposes the two)."""
    build = vl_convert_build()
    if build is None:
        return None
    try:
        from altair.jupyter.jupyter_chart import load_js_src
        from altair.utils._importers import vl_version_for_vl_convert
    except ImportError:
        return None
    digest = hashlib.sha256()
    for part in (load_js_src(), vl_version_for_vl_convert(), build):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def bundle_path(key: str) -> Path:
    from ..stimuli.pairs.download import default_cache_dir

    return default_cache_dir() / "vega-bundles" / f"{key}.js"


def _read(path: Path) -> str | None:
    try:
        head, _, body = path.read_text(encoding="utf-8").partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if head != HEADER + hashlib.sha256(body.encode()).hexdigest():
        return None
    return body


def _write(path: Path, body: str) -> None:
    """Whole or absent (the report store's :func:`~.report.store.write_atomic`); a folder we cannot write only
    loses the cache."""
    from .report.store import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, HEADER + hashlib.sha256(body.encode()).hexdigest() + "\n" + body)
    except OSError:
        return


def enable_offline(chart_class: type) -> None:
    """``chart_class.enable_offline(offline=True)`` (an :class:`altair.JupyterChart` subclass), its bundle read
    from the cache when there, else built by altair and then kept."""
    if getattr(chart_class, "_is_offline", False):
        return
    key = bundle_key()
    path = bundle_path(key) if key else None
    cached = _read(path) if path else None
    if cached is not None:
        chart_class._esm = cached
        chart_class._is_offline = True
        return
    chart_class.enable_offline(offline=True)
    if path:
        _write(path, chart_class._esm)
