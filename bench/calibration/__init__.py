"""The calibration suite: every interval's coverage and every test's size, measured by simulation on data
whose truth is known (the honest-intervals issue).

Each ``check_*.py`` module here defines ``CHECKS``, a list of :class:`~bench.calibration.core.Check`: a
data-generating process, a grid of settings (``fast`` for CI, ``full`` for the benchmark) and what one
replicate says of each interval and test, computed by the library's own public functions.

    python -m bench.calibration                 # the full grid; prints the table
    python -m bench.calibration --grid fast --reps 200
    python -m bench.calibration --only weat --write docs/_static/calibration.json

``tests/test_calibration.py`` runs the fast grid (seeded) and holds every rate to its band.
"""

from __future__ import annotations

import importlib
import pkgutil

from .core import Check, Outcome, Row, markdown_table, run_checks, run_setting

__all__ = ["Check", "Outcome", "Row", "all_checks", "markdown_table", "run_checks", "run_setting"]


def all_checks(only: list[str] | None = None) -> list[Check]:
    """The checks of every ``check_*`` module, in module-name order (``only``: names or module suffixes)."""
    out: list[Check] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("check_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for check in module.CHECKS:
            if only is None or check.name in only or info.name.removeprefix("check_") in only:
                out.append(check)
    return out
