"""Bundled stimuli with citations, and readers/writers for the formats users have."""

from .association_tests import (
    SET_KEYS,
    AssociationTestSpec,
    TestFileError,
    WordSet,
    bundled_test_names,
    clean_items,
    load_bundled_test,
    parse_test_text,
    read_test_file,
    resolve_test,
    spec_from_json,
    write_test_file,
)

__all__ = [
    "SET_KEYS",
    "AssociationTestSpec",
    "TestFileError",
    "WordSet",
    "bundled_test_names",
    "clean_items",
    "load_bundled_test",
    "parse_test_text",
    "read_test_file",
    "resolve_test",
    "spec_from_json",
    "write_test_file",
]
