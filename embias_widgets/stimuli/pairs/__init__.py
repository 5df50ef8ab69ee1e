"""Sentence pairs for likelihood tests, and readers for the formats they come in (one module per format).

- CrowS-Pairs CSV (Nangia et al. 2020), :mod:`.crows_pairs`: ``sent_more`` is the more stereotypical
  sentence in both directions; ``stereo_antistereo`` only picks the sub-score. Read from a path, or from
  :data:`CROWS_PAIRS_URL` into a local cache (:mod:`.download`).
- StereoSet (Nadeem et al. 2021), :mod:`.stereoset`: the official nested dev JSON or flat JSON Lines.
- SSSB (Zhou, Kaneko & Bollegala 2022, section 4), :mod:`.sssb`: one labelled sentence a line, blocks
  separated by blank lines; :func:`sssb_pairs` pairs them per sense.
- :func:`read_pairs` reads any of them (:mod:`.read_any`).

Every reader returns :class:`SentencePair` objects; a malformed file raises
:class:`~embias_widgets.stimuli.errors.PairFileError` naming the file, the line and what to fix.
"""

from ..errors import PairFileError
from .crows_pairs import CROWS_PAIRS_URL, read_crows_pairs
from .download import (
    LOOPBACK_HOSTS,
    MAX_DOWNLOAD_BYTES,
    cache_path,
    check_url,
    default_cache_dir,
    fetch,
    is_url,
    local_path,
)
from .read_any import FORMATS, guess_format, read_pairs
from .sentence_pair import SentencePair
from .sssb import SSSBSentence, read_sssb, sssb_pairs
from .stereoset import STEREOSET_KINDS, read_stereoset

__all__ = [
    "CROWS_PAIRS_URL",
    "FORMATS",
    "LOOPBACK_HOSTS",
    "MAX_DOWNLOAD_BYTES",
    "STEREOSET_KINDS",
    "PairFileError",
    "SSSBSentence",
    "SentencePair",
    "cache_path",
    "check_url",
    "default_cache_dir",
    "fetch",
    "guess_format",
    "is_url",
    "local_path",
    "read_crows_pairs",
    "read_pairs",
    "read_sssb",
    "read_stereoset",
    "sssb_pairs",
]
