"""Run ``embias`` in this process as a user's process would run it, and return what it said.

A subprocess costs 1.5-6.5 s per call (importing torch, transformers and the package afresh; issue 20,
item 6). :func:`embias_inprocess` calls :func:`embias_widgets.cli.main` instead, keeping what a subprocess
showed:

- the exit status: ``main``'s return value, or the code of a ``SystemExit`` (argparse errors, ``--version``);
- everything written to stdout and stderr, including what a library writes through a logging handler that
  was created earlier with the real stderr (transformers' handler) and through ``warnings`` under Python's
  default filters (pytest's ``filterwarnings`` and its warning capture do not apply inside the call, so a
  warning is one more stderr line, as in a subprocess);
- an exception that escapes ``main`` (what a user would see as a traceback) is not caught: it fails the test.

What it cannot show is a fresh interpreter (import-time output, the ``python -m`` entry); one subprocess test
of the console script with an internal error stays in tests/test_cli_errors.py for that.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

#: Python's own warning filters with no ``-W`` option and no ``PYTHONWARNINGS`` (``python -c
#: "import warnings; print(warnings.filters)"``), newest first as in :data:`warnings.filters`.
PYTHON_DEFAULT_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, None),
    ("ignore", PendingDeprecationWarning, None),
    ("ignore", ImportWarning, None),
    ("ignore", ResourceWarning, None),
)


@dataclass
class Run:
    """What one ``embias`` call did: the fields a :class:`subprocess.CompletedProcess` has."""

    returncode: int
    stdout: str
    stderr: str


def _stream_handlers(streams: tuple[object, ...]) -> list[logging.StreamHandler]:
    loggers = [logging.getLogger(), *(v for v in logging.Logger.manager.loggerDict.values()
                                      if isinstance(v, logging.Logger))]
    return [h for lg in loggers for h in lg.handlers
            if isinstance(h, logging.StreamHandler) and not isinstance(h, logging.FileHandler)
            and any(h.stream is s for s in streams)]


@contextlib.contextmanager
def _stderr_handlers_to(buffer: io.StringIO) -> Iterator[None]:
    """Point logging handlers that hold the stderr of an earlier moment at ``buffer`` for the call."""
    handlers = _stream_handlers((sys.stderr, sys.__stderr__))
    old = [h.setStream(buffer) for h in handlers]
    try:
        yield
    finally:
        for handler, stream in zip(handlers, old, strict=True):
            handler.setStream(stream)


@contextlib.contextmanager
def _python_default_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category, module in reversed(PYTHON_DEFAULT_FILTERS):
            warnings.filterwarnings(action, category=category, module=module or "")
        warnings.showwarning = _show_on_stderr
        yield


def _show_on_stderr(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def embias_inprocess(*argv: str) -> Run:
    """``embias ARGV...`` in this process (``EMBIAS_DEBUG`` unset, as the subprocess tests had it)."""
    from embias_widgets.cli import main

    out, err = io.StringIO(), io.StringIO()
    debug = os.environ.pop("EMBIAS_DEBUG", None)
    try:
        with _stderr_handlers_to(err), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                _python_default_warnings():
            try:
                code = main(list(argv))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
                if isinstance(exit_.code, str):
                    err.write(exit_.code + "\n")
    finally:
        if debug is not None:
            os.environ["EMBIAS_DEBUG"] = debug
    return Run(code, out.getvalue(), err.getvalue())
