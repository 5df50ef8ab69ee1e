"""Content fingerprints of stimuli: a pairs file's bytes, a template probe's word lists and templates.

A resumable NLI run (:mod:`embias_widgets.analysis.nli`) records :func:`pairs_fingerprint` in its manifest,
so an edited pairs CSV with the same name, the same count and the same first id is a different run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

__all__ = ["file_digest", "pairs_fingerprint"]

_CHUNK = 1 << 20
_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_digest(path: str | Path) -> str:
    """sha256 (hex) of a file's bytes, streamed; memoised per (resolved path, size, mtime_ns)."""
    p = Path(path).expanduser().resolve()
    st = p.stat()
    key = (str(p), st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(p, "rb") as handle:
            while block := handle.read(_CHUNK):
                h.update(block)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


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
