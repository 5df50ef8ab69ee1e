"""One report at a time per folder: :func:`folder_lock` holds ``DIR/.embias-report.lock`` while a run writes.

The lock is the operating system's lock on the open file (``fcntl.flock``; ``msvcrt.locking`` on Windows), so it
ends with the process however the process ends: a run killed with SIGKILL leaves no stale lock to clear by hand.
The file holds who took it (process id, host, start time, command line), which a second run's refusal names.

The holder deletes the file when its block ends, finished or failed, while it still holds the lock, so a report
folder holds no lock file between runs. A run that opened the file just before it was deleted may then lock the
deleted file: so every run, once it holds a lock, checks that the file at the path is the file it locked (same
device and inode) and otherwise starts again on the new file. Two runs therefore never both hold the folder.
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


def _is_at(fd: int, path: Path) -> bool:
    """The open file ``fd`` is the file at ``path`` (not one deleted, or replaced, since it was opened)."""
    try:
        here = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


ATTEMPTS = 20
"""How often a run starts again on a lock file deleted under it (each time another run ended in between)."""


def _acquire(out_dir: Path, path: Path) -> int:
    """An open descriptor of ``path`` holding its lock; :class:`ReportRunError` naming the holder when busy."""
    for _ in range(ATTEMPTS):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = _try_lock(fd)
            if locked and _is_at(fd, path):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        if not locked:
            raise ReportRunError(
                f"{out_dir} is being written by another report ({_holder(path)}); wait until it ends, or give "
                f"another folder (--out). The lock is {path}: it ends with its process")
    raise ReportRunError(f"{path} was deleted and created again {ATTEMPTS} times while this report tried to lock it; "
                         "another program is racing for the folder: give another folder (--out)")


@contextmanager
def folder_lock(out_dir: Path) -> Iterator[None]:
    """Hold ``out_dir``'s lock for the block; :class:`ReportRunError` naming the holder when another run holds it.
    The lock file is deleted when the block ends (finished or failed), before the lock is let go."""
    path = out_dir / LOCK_NAME
    fd = _acquire(out_dir, path)
    try:
        who = {"pid": os.getpid(), "host": socket.gethostname(),
               "started": datetime.now(UTC).isoformat(timespec="seconds"),
               "command": " ".join(sys.argv) if sys.argv and sys.argv[0] else "python"}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(who).encode("utf-8"))  # at offset 0: nothing was read or written before
        yield
    finally:
        try:
            if _is_at(fd, path):
                path.unlink()  # while the lock is held: a run that opened it meanwhile sees it gone and retries
        except OSError:  # Windows keeps an open file; a read-only folder: the lock still ends with the close
            pass
        os.close(fd)  # closing the file releases the lock
