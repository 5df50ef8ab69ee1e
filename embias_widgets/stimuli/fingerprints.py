"""Content fingerprints of stimuli: a pairs file's bytes, a template probe's word lists and templates.

A resumable NLI run (:mod:`embias_widgets.analysis.nli`) records :func:`pairs_fingerprint` in its manifest,
so an edited pairs CSV with the same name, the same count and the same first id is a different run.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

__all__ = ["file_digest", "pairs_fingerprint"]

_CHUNK = 1 << 20
_DIGESTS: dict[str, tuple[tuple[int, ...], int, str]] = {}
RACY_NS = 2_000_000_000
"""A file changed this close (ns) before it was hashed is hashed again next time: a timestamp's granularity
(a kernel tick, or seconds on some file systems) can give two same-size writes one mtime and one ctime."""


def _stat_key(st: os.stat_result) -> tuple[int, ...]:
    """Everything a write changes: size, mtime and the inode's change time (ctime, which ``os.utime`` cannot set
    back: restoring the mtime after an edit still changes it), and the inode (a file replaced by a rename)."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def file_digest(path: str | Path) -> str:
    """sha256 (hex) of a file's bytes, streamed.

    Hashed once per process per file, and again whenever anything a write changes differs (size, mtime, ctime,
    inode: :func:`_stat_key`), or the file had changed within :data:`RACY_NS` of its last hashing (as git
    re-checks "racily clean" files). Hashing every time would cost 0.28 s per call on GloVe's 84 MB (sha256 on a
    loaded 2-core machine; loading it takes 0.08 s) for each fingerprint of the same model; the stat costs 2 us.
    """
    p = Path(path).expanduser().resolve()
    st = p.stat()
    key = _stat_key(st)
    cached = _DIGESTS.get(str(p))
    if cached is not None and cached[0] == key and max(st.st_mtime_ns, st.st_ctime_ns) < cached[1] - RACY_NS:
        return cached[2]
    hashed_at = time.time_ns()
    h = hashlib.sha256()
    with open(p, "rb") as handle:
        while block := handle.read(_CHUNK):
            h.update(block)
    after = p.stat()
    digest = h.hexdigest()
    if _stat_key(after) == key:  # not written while it was read: safe to remember
        _DIGESTS[str(p)] = (key, hashed_at, digest)
    return digest


def pairs_fingerprint(source: Any) -> str:
    """sha256 of what determines a pair source's sentences.

    - :class:`~.nli_probes.CsvPairs`: the file's bytes;
    - :class:`~.nli_probes.TemplateProbe`: its word lists, templates, slot types, ``person`` and ``style``;
    - a source with its own ``fingerprint()``: that string;
    - any other source: every pair (id, slot words, template type, premise, hypothesis), streamed.
    """
    from .nli_probes import CsvPairs, TemplateProbe

    if isinstance(source, CsvPairs):
        return "csv:" + file_digest(source.path)
    if isinstance(source, TemplateProbe):
        record = {
            "premise_words": list(source.premise_words), "hypothesis_words": list(source.hypothesis_words),
            "templates": [[t.verb_group, t.verb, t.object] for t in source.templates],
            "premise_type": source.premise_type, "hypothesis_type": source.hypothesis_type,
            "person": bool(source.person), "style": source.style,
        }
        return "templates:" + hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
    own = getattr(source, "fingerprint", None)
    if callable(own):
        return f"{type(source).__qualname__}:" + hashlib.sha256(str(own()).encode()).hexdigest()
    h = hashlib.sha256()
    for pair in source.iter_pairs(0, len(source)):
        fields = (pair.id, pair.premise_word, pair.hypothesis_word, pair.template_type, pair.premise, pair.hypothesis)
        h.update(json.dumps(fields).encode() + b"\n")
    return "pairs:" + h.hexdigest()
