"""One report at a time per folder: :func:`folder_lock` holds ``DIR/.embias-report.lock`` while a run writes.

The lock is the operating system's lock on the open file (``fcntl.flock``; ``msvcrt.locking`` on Windows), so it
ends with the process however the process ends: a run killed with SIGKILL leaves no stale lock to clear by hand.
The file holds who took it (process id, host, start time, command line), which a second run's refusal names. The
file itself stays (deleting it while another process waits on it would let two runs hold two locks).
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from .store import ReportRunError

LOCK_NAME = ".embias-report.lock"


def _try_lock(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(path: Path) -> str:
    try:
        who = json.loads(path.read_text(encoding="utf-8"))
        return (f"process {who['pid']} on {who['host']}, started {who['started']}: "
                f"{who['command'][:200]}")
    except (OSError, ValueError, KeyError, TypeError):
        return "a process that has not yet written its name"


@contextmanager
def folder_lock(out_dir: Path) -> Iterator[None]:
    """Hold ``out_dir``'s lock for the block; :class:`ReportRunError` naming the holder when another run holds it."""
    path = out_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _try_lock(fd):
            raise ReportRunError(
                f"{out_dir} is being written by another report ({_holder(path)}); wait until it ends, or give "
                f"another folder (--out). The lock is {path}: it ends with its process")
        who = {"pid": os.getpid(), "host": socket.gethostname(),
               "started": datetime.now(UTC).isoformat(timespec="seconds"),
               "command": " ".join(sys.argv) if sys.argv and sys.argv[0] else "python"}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(who).encode("utf-8"))  # at offset 0: nothing was read or written before
        yield
    finally:
        os.close(fd)  # closing the file releases the lock
