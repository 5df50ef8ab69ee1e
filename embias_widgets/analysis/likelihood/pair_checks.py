"""Checks on a sentence pair before its likelihoods are compared.

CrowS-Pairs (Nangia et al. 2020, section 2) compares two sentences that are a
*minimal edit* of each other: they differ only in the words that name the
social group ("She is a nurse." / "He is a nurse."), so the difference of their
scores is about the group and nothing else. A pair that differs in long spans
or in most of its words mixes other changes into that difference; these
functions say so, naming the spans (aligned word by word with
``difflib.SequenceMatcher``, as CrowS-Pairs aligns tokens).
"""

from __future__ import annotations

import difflib
import re

WORD = re.compile(r"\w+|[^\w\s]")
MAX_SPAN_WORDS = 3
"""A differing span longer than this (on either side) is not a group-word swap."""
MAX_CHANGED_SHARE = 0.5
"""More than this share of the longer sentence's words differing is not a minimal edit."""


def differing_spans(first: str, second: str) -> list[tuple[str, str]]:
    """The aligned spans where two sentences differ: ``[(words of first, words of second)]``."""
    a, b = WORD.findall(first), WORD.findall(second)
    matcher = difflib.SequenceMatcher(None, [w.lower() for w in a], [w.lower() for w in b], autojunk=False)
    return [(" ".join(a[i1:i2]), " ".join(b[j1:j2])) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def minimal_edit_warning(first: str, second: str) -> str:
    """Why the pair is not a minimal edit ("" when it is one).

    Warned: identical sentences (nothing to compare); a differing span of more
    than ``MAX_SPAN_WORDS`` words on either side; more than ``MAX_CHANGED_SHARE``
    of the longer sentence's words differing. Several short spans (a pronoun
    swapped in two places) are a minimal edit.
    """
    a, b = WORD.findall(first), WORD.findall(second)
    if not a or not b:
        return ""  # an empty side is reported as an error on its row
    spans = differing_spans(first, second)
    if not spans:
        return "the two sentences are the same (up to case), so their scores cannot differ by the group"
    longest = max(spans, key=lambda s: max(len(s[0].split()), len(s[1].split())))
    changed = sum(max(len(x.split()), len(y.split())) for x, y in spans)
    shown = "; ".join(f"'{x or '∅'}' / '{y or '∅'}'" for x, y in spans[:3]) + ("; ..." if len(spans) > 3 else "")
    if max(len(longest[0].split()), len(longest[1].split())) > MAX_SPAN_WORDS:
        return (
            f"not a minimal edit: the sentences differ in a long span ({shown}); "
            "the score difference mixes in other changes"
        )
    if changed > MAX_CHANGED_SHARE * max(len(a), len(b)):
        return (
            f"not a minimal edit: {changed} of {max(len(a), len(b))} words differ ({shown}); "
            "the score difference mixes in other changes"
        )
    return ""
