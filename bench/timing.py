"""What the benches share to time a call: the fastest of a few runs (the least disturbed by a loaded machine).

Imported as ``from timing import best`` by benches run as scripts (``python bench/bench_x.py`` puts ``bench/`` on
the path).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` wall times of ``fn()`` (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
