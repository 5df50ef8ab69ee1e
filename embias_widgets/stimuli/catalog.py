"""Tests by name or path: the one place that knows both word tests and sentence tests.

Word tests (:mod:`.association_tests`) and sentence tests (:mod:`.sentence_tests`,
which are built from word tests) stay one-directional; this module sits above both.
"""

from __future__ import annotations

from pathlib import Path

from .association_tests import AssociationTestSpec, bundled_test_names, load_bundled_test, read_test_file
from .sentence_tests import is_sentence_test, load_sentence_test


def resolve_test(name_or_path: str | Path) -> AssociationTestSpec:
    """A bundled test name (word or ``sent-`` sentence test), or a path to a sent-bias test file."""
    text = str(name_or_path)
    if not text.strip():
        raise KeyError(f"empty test name {text!r}: give a bundled test name (weat1, sent-weat1, ...) or a file path")
    if text in bundled_test_names():
        return load_bundled_test(text)
    if is_sentence_test(text):  # fixed sentences; SentenceAssociationTest keeps them editable as words
        return load_sentence_test(text).sentence_spec()
    path = Path(text).expanduser()
    if path.is_dir():
        raise KeyError(f"{text} is a directory: give a sent-bias test file (.jsonl) or a bundled test name")
    if path.exists() or text.endswith((".jsonl", ".json")):
        return read_test_file(path)
    raise KeyError(f"unknown test {text!r}: give a file path or one of {', '.join(bundled_test_names())} "
                   "(sentence tests: sent-weat1, ..., see stimuli.sentence_test_names())")
