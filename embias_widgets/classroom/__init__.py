"""Classroom assignments: self-checks a student runs, and the instructor/student notebook builder.

``check("weat-1", answer)`` compares a student's answer with the value the library computes
(never a stored number), prints right or wrong with a hint, and returns a truthy/falsy
:class:`CheckResult`. Under nbgrader's autograder (``NBGRADER_EXECUTION`` set) a wrong answer
raises ``AssertionError`` so the graded cell loses its points.
"""

from .checks import CHECKS, CheckResult, check, expected, progress

__all__ = ["CHECKS", "CheckResult", "check", "expected", "progress"]
