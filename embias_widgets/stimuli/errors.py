"""The stimuli layer's errors: one class per meaning, shared by every reader of that kind of file."""

from __future__ import annotations

__all__ = ["PairFileError"]


class PairFileError(ValueError):
    """A pairs file (CrowS-Pairs, StereoSet, SSSB, NLI pair CSV) that cannot be read: names the file, the line
    and the fix."""
