"""Options shared by every command that loads a model: ``--device`` and ``--dtype``, one wording and one
check (:func:`embias_widgets.models.runtime.check_device` / ``check_dtype``, reached through the loaders); the
language-model commands' ``--token-budget`` and ``--threads``; and ``--progress``.

Kept apart so every command module adds the same options without importing each other.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..models.runtime import DTYPES


def add_device_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--device`` and ``--dtype`` to a subcommand's parser."""
    parser.add_argument("--device", default=None,
                        help="cpu, cuda, cuda:1, ... (default: cuda when present, else cpu; asking for cuda on a "
                        "machine without it is an error, not a silent CPU run)")
    parser.add_argument("--dtype", choices=DTYPES, default=None,
                        help="weights and activations of torch models: float32 (the default: exact results), "
                        "bfloat16 or float16 (faster on a GPU; the result states the tolerance); word vectors "
                        "ignore it")


def add_lm_run_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--token-budget``, ``--device``, ``--dtype`` and ``--threads`` (the language-model commands)."""
    parser.add_argument("--token-budget", type=int, default=None, metavar="T",
                        help="most tokens per forward batch (default: 8192 on the CPU; on CUDA sized from free GPU "
                        "memory)")
    add_device_options(parser)
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="torch CPU threads (default: the cores not already busy, i.e. cores minus the 1-minute "
                        "load average, at least 1: on a shared machine extra threads wait on busy cores and run "
                        "slower)")


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--progress/--no-progress`` (on by default when stderr is a terminal)."""
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar on stderr (default: on when stderr is a terminal)")


def device_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``device`` and ``dtype`` the user gave, as model options (nothing when they gave neither)."""
    return {key: value for key in ("device", "dtype") if (value := getattr(args, key, None)) is not None}
