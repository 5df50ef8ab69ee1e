"""CrowS-Pairs CSV (Nangia et al. 2020): ``sent_more, sent_less, stereo_antistereo, bias_type`` columns.

``sent_more`` is the *more stereotypical* sentence of the pair in both directions ("The man was highly
skilled in CAD engineering." is ``sent_more`` of an ``antistereo`` row), so it becomes
:attr:`SentencePair.stereo` and ``sent_less`` becomes :attr:`SentencePair.anti` whatever
``stereo_antistereo`` says; that column is kept as :attr:`SentencePair.direction` and only decides which
sub-score (stereo / anti-stereo) the pair is reported under, as in CrowS-Pairs' ``metric.py``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..errors import PairFileError
from ..text_files import read_utf8
from .download import local_path
from .sentence_pair import SentencePair

__all__ = ["CROWS_PAIRS_URL", "read_crows_pairs"]

CROWS_PAIRS_URL = "https://raw.githubusercontent.com/nyu-mll/crows-pairs/master/data/crows_pairs_anonymized.csv"
"""The official CrowS-Pairs file (CC BY-SA 4.0)."""


_EXTRA = "\x00extra fields"  # DictReader's key for fields beyond the header (no real column has this name)


def read_crows_pairs(
    source: str | Path = CROWS_PAIRS_URL, *, cache_dir: str | Path | None = None
) -> list[SentencePair]:
    """CrowS-Pairs pairs from a CSV path or URL (downloaded once into ``cache_dir``).

    Needs ``sent_more`` and ``sent_less`` columns; ``stereo_antistereo``
    (default ``stereo``) and ``bias_type`` are used when present.
    """
    path = local_path(source, cache_dir)
    pairs = []
    with io.StringIO(read_utf8(path, what="CrowS-Pairs CSV file"), newline="") as handle:
        reader = csv.DictReader(handle, restkey=_EXTRA)
        header = list(reader.fieldnames or ())
        repeated = sorted({c for c in header if header.count(c) > 1})
        if repeated:
            raise PairFileError(f"{path}: line 1 (header) names column(s) {repeated} twice; name each column once")
        missing = {"sent_more", "sent_less"} - set(header)
        if missing:
            raise PairFileError(
                f"{path}: line 1 (header) lacks column(s) {sorted(missing)}; "
                f"found {reader.fieldnames}. "
                "A CrowS-Pairs CSV needs sent_more, sent_less (and stereo_antistereo, bias_type)"
            )
        start = reader.line_num + 1
        for row in reader:
            where = f"{path}: line {start}"
            start = reader.line_num + 1
            if _EXTRA in row:  # a short row is read as far as it goes (a missing sentence is named below)
                n = len(header) + len(row[_EXTRA])
                raise PairFileError(
                    f"{where}: {n} fields where the header has {len(header)}; quote a sentence that holds a comma "
                    '(a CSV writer does: "He said, hi.")'
                )
            record = {
                "sent_more": (row.get("sent_more") or "").strip(),
                "sent_less": (row.get("sent_less") or "").strip(),
                "stereo_antistereo": (row.get("stereo_antistereo") or "stereo").strip(),
                "bias_type": (row.get("bias_type") or "").strip(),
                "pair_id": (row.get("") or row.get("id") or "").strip(),
                "source": where.rsplit(": ", 1)[1],
            }
            try:
                pairs.append(SentencePair.from_dict(record, where=where))
            except ValueError as err:
                raise PairFileError(str(err)) from None
    return pairs
