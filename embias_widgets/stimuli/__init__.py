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
    spec_from_json,
    write_test_file,
)
from .bbq import BBQ_CATEGORIES, BbqFileError, BbqItems, bbq_category_names, load_bbq
from .bbq_predictions import UNIFIEDQA_FORMATS, read_bbq_predictions
from .catalog import resolve_test
from .pairs import (
    CROWS_PAIRS_URL,
    PairFileError,
    SentencePair,
    SSSBSentence,
    read_crows_pairs,
    read_pairs,
    read_sssb,
    read_stereoset,
    sssb_pairs,
)
from .sense_tests import is_sense_test, load_sense_test, sense_test_names, sense_test_table
from .wordnet import Sense, UnknownSenseError, WordNet, WordNetNotFoundError, load_wordnet

__all__ = [
    "BBQ_CATEGORIES",
    "CROWS_PAIRS_URL",
    "SET_KEYS",
    "UNIFIEDQA_FORMATS",
    "AssociationTestSpec",
    "BbqFileError",
    "BbqItems",
    "PairFileError",
    "SSSBSentence",
    "Sense",
    "SentencePair",
    "TestFileError",
    "UnknownSenseError",
    "WordNet",
    "WordNetNotFoundError",
    "WordSet",
    "bbq_category_names",
    "bundled_test_names",
    "clean_items",
    "is_sense_test",
    "load_bbq",
    "load_bundled_test",
    "load_sense_test",
    "load_wordnet",
    "parse_test_text",
    "read_bbq_predictions",
    "read_crows_pairs",
    "read_pairs",
    "read_sssb",
    "read_stereoset",
    "read_test_file",
    "resolve_test",
    "sense_test_names",
    "sense_test_table",
    "spec_from_json",
    "sssb_pairs",
    "write_test_file",
]
