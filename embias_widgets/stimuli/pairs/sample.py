"""``sample``: ten sentence pairs in the CrowS-Pairs layout, bundled so that ``embias pll --pairs sample`` runs
offline on a fresh install.

Written for this package (minimal edits: one group word swapped, as CrowS-Pairs pairs are; Nangia et al. 2020,
section 2), across gender, age, socioeconomic status, physical appearance and nationality. They show how the
command and its output work; they are not a benchmark: for findings use CrowS-Pairs itself (``embias data
fetch crows-pairs``) or StereoSet.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SAMPLE_NAME", "resolve_pairs_source", "sample_pairs_path"]

SAMPLE_NAME = "sample"
"""The name ``--pairs`` takes for the bundled pairs (a file of that name in the working folder wins)."""


def sample_pairs_path() -> Path:
    """The bundled sample's CSV file."""
    return Path(__file__).resolve().parent.parent / "data" / "sample_pairs.csv"


def resolve_pairs_source(source: str) -> str:
    """``source``, or the bundled sample's path when ``source`` is :data:`SAMPLE_NAME` and no such file exists."""
    if source == SAMPLE_NAME and not Path(source).exists():
        return str(sample_pairs_path())
    return source
