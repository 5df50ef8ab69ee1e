"""Reading a pairs file from a path or an https URL, downloaded once into a local cache."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

__all__ = [
    "LOOPBACK_HOSTS",
    "MAX_DOWNLOAD_BYTES",
    "cache_path",
    "check_url",
    "default_cache_dir",
    "download_failure",
    "fetch",
    "is_url",
    "local_path",
]


def default_cache_dir() -> Path:
    """Where downloads are kept.

    ``$EMBIAS_CACHE``, else ``$XDG_CACHE_HOME/embias-widgets``, else
    ``~/.cache/embias-widgets``.
    """
    if os.environ.get("EMBIAS_CACHE"):
        return Path(os.environ["EMBIAS_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "embias-widgets"


MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024
"""Largest file :func:`fetch` downloads (CrowS-Pairs is 0.4 MB, StereoSet's dev.json 2.4 MB)."""
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_url(source: str | Path) -> bool:
    return isinstance(source, str) and "://" in source


def check_url(url: str) -> urllib.parse.ParseResult:
    """An https URL (plain http only to a loopback address, as tests serve files locally);
    ``ValueError`` naming the URL and what to give otherwise."""
    parts = urllib.parse.urlparse(url)
    if parts.scheme == "https" and parts.hostname:
        return parts
    if parts.scheme == "http" and parts.hostname in {h.strip("[]") for h in LOOPBACK_HOSTS}:
        return parts
    if parts.scheme == "http":
        raise ValueError(f"{url}: plain http is not allowed (only to this machine); use the https URL")
    raise ValueError(f"{url}: only https URLs (or a local file path) can be read, not {parts.scheme or '?'}://")


def cache_path(url: str, folder: Path) -> Path:
    """Where ``url`` is cached: a hash of the WHOLE URL (two URLs with one file name never share an
    entry) plus its sanitised file name for readability; never ``..`` or a path separator."""
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
    tail = urllib.parse.unquote(urllib.parse.urlparse(url).path.rstrip("/").rsplit("/", 1)[-1])
    name = re.sub(r"\.{2,}", ".", re.sub(r"[^A-Za-z0-9._-]", "_", tail)).strip("._") or "download"
    return folder / f"{digest}-{name[:80]}"


def fetch(
    url: str, *, cache_dir: str | Path | None = None, timeout: float = 30.0, max_bytes: int = MAX_DOWNLOAD_BYTES
) -> Path:
    """Download ``url`` once into ``cache_dir`` and return the local path.

    The cache key is a hash of the whole URL (:func:`cache_path`); a file
    already there is used as is (delete it to download again). Only https
    URLs are fetched (plain http to a loopback address only); a download
    larger than ``max_bytes`` is refused; a failed download leaves no partial
    file behind.
    """
    check_url(url)
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    target = cache_path(url, folder)
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                raise ValueError(f"{url} is {int(declared):,} bytes, more than the {max_bytes:,} allowed")
            with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".part") as tmp:
                size = 0
                while chunk := response.read(1 << 16):
                    size += len(chunk)
                    if size > max_bytes:
                        raise ValueError(f"{url} is more than the {max_bytes:,} bytes allowed; download it yourself")
                    tmp.write(chunk)
        Path(tmp.name).replace(target)
    except (urllib.error.URLError, OSError) as err:
        raise ConnectionError(download_failure(url, err)) from err
    finally:
        if tmp is not None and Path(tmp.name).exists():
            Path(tmp.name).unlink()
    return target


def download_failure(url: str, err: BaseException) -> str:
    """What went wrong downloading ``url`` and what to do: an HTTP error names the status (check the URL); no
    answer at all (refused, unknown host, timed out) asks whether this machine is offline."""
    if isinstance(err, urllib.error.HTTPError):
        return (f"could not download {url}: the server answered HTTP {err.code} ({err.reason}); check the URL, or "
                "download it yourself and pass the file's path")
    reason = getattr(err, "reason", None) or err
    if isinstance(reason, OSError) and reason.strerror:
        reason = reason.strerror
    return (f"could not download {url}: no answer from {urllib.parse.urlparse(url).netloc} ({reason}); is this "
            "machine offline? Check the connection and the URL, or download it yourself where there is a "
            "connection and pass the file's path (CrowS-Pairs, StereoSet: `embias data fetch` there, then copy "
            "its data folder here)")


def local_path(source: str | Path, cache_dir: str | Path | None) -> Path:
    """``source`` as a local file: a path, a ``file://`` URL, or an https URL fetched into ``cache_dir``."""
    if is_url(source) and str(source).startswith("file://"):
        source = urllib.request.url2pathname(urllib.parse.urlparse(str(source)).path)
    elif is_url(source):
        return fetch(str(source), cache_dir=cache_dir)
    path = Path(source).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"no pairs file at {path}: give the path of an existing file or a URL")
    return path
