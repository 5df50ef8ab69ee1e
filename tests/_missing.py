"""What a test does when something it needs is not on this machine: skip with the reason on a developer's
machine, fail under CI (``CI`` set), where the README's test command installs all of it, so that nothing skips
there unseen."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def skip_unless_ci(why: str) -> NoReturn:
    """Skip saying ``why``; under CI fail with it instead."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must have this: {why}")
    pytest.skip(why)
