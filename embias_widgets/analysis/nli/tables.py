"""Row tables of an NLI probe result: top pairs, per-pair rows (and their CSV), one cell's pairs.

Each function reads what a :class:`~embias_widgets.analysis.nli.NliProbeResult` kept (its chunks' top
pairs and, for ``per_pair=True`` runs, every pair's ``(e, n, c)``) and regenerates the sentences from the
pair source by index, so nothing is scored again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...metrics.neutrality import LABELS
from ...stimuli.nli_probes import CSV_COLUMNS
from ...stimuli.spreadsheet_safe import safe_writer

#: ``result`` below is an :class:`~embias_widgets.analysis.nli.NliProbeResult` (typed ``Any``: this module is
#: what the result calls, it does not import it).
NliProbeResult = Any
#: Columns of a top pair or a cell pair as the widget and ``embias nli --format json`` show them.
RECORD_COLUMNS = ("index", "premise_word", "hypothesis_word", "premise", "hypothesis", *LABELS)


def top_pairs(result: NliProbeResult, by: str) -> Any:
    """The top-k sentence pairs by ``by`` (entailment or contradiction), as the paper's Tables 2, 4, 6."""
    import pandas as pd

    if by not in result.top:
        raise ValueError(f"`by` must be one of {sorted(result.top)}, got {by!r}")
    rows = []
    for i in result.top[by].indices.tolist():
        pair = next(iter(result.source.iter_pairs(i, i + 1)))
        rows.append({"index": i, "id": pair.id, "premise_word": pair.premise_word, "verb": pair.verb,
                     "object": pair.object, "hypothesis_word": pair.hypothesis_word, "premise": pair.premise,
                     "hypothesis": pair.hypothesis,
                     **{label: float(result.top_probs[i][j]) for j, label in enumerate(LABELS)}})
    return pd.DataFrame(rows)


def records(frame: Any, columns: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """Rows of a table as plain-typed dicts (JSON-ready), keeping ``columns`` when given."""
    if frame is None or not len(frame):
        return []
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items() if columns is None or k in columns}
            for row in frame.to_dict(orient="records")]


def _need_per_pair(result: NliProbeResult) -> None:
    if any(c.probs is None for c in result.chunks):
        raise ValueError("per-pair rows were not kept: run with per_pair=True")


def pairs_table(result: NliProbeResult) -> Any:
    """One row per scored pair with (e, n, c): only when the run kept per-pair rows (``per_pair=True``)."""
    import pandas as pd

    _need_per_pair(result)
    frames = []
    for c in sorted(result.chunks, key=lambda c: c.start):
        chunk = result.source.chunk(c.start, c.stop)
        frames.append(pd.DataFrame({
            "index": np.arange(c.start, c.stop), "id": chunk.ids, "premise_word": chunk.premise_words,
            "hypothesis_word": chunk.hypothesis_words, "template_type": chunk.template_types,
            "premise": chunk.premises, "hypothesis": chunk.hypotheses,
            **{label: c.probs[:, j] for j, label in enumerate(LABELS)},
        }))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def write_pairs_csv(result: NliProbeResult, path: str | Path) -> int:
    """Stream the per-pair rows (``per_pair=True`` runs) to a CSV file, chunk by chunk: the authors' columns
    plus ``entailment``, ``neutral``, ``contradiction``. Returns the number of rows."""
    _need_per_pair(result)
    n = 0
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = safe_writer(handle)
        writer.writerow([*CSV_COLUMNS, *LABELS])
        for c in sorted(result.chunks, key=lambda c: c.start):
            for pair, p in zip(result.source.iter_pairs(c.start, c.stop), c.probs, strict=True):
                writer.writerow([*pair.csv_row(), *(repr(float(x)) for x in p)])
                n += 1
    return n


def cell_pairs(result: NliProbeResult, premise_word: str, hypothesis_word: str,
               limit: int | None = None) -> list[dict[str, Any]]:
    """The scored sentence pairs of one (premise word, hypothesis word) of a template probe, read from the
    kept per-pair rows (chunks without them are skipped): ``index, premise, hypothesis, e, n, c``."""
    word_pair_range = getattr(result.source, "word_pair_range", None)
    if word_pair_range is None:
        raise ValueError(f"{result.probe!r} is not a template probe: its word pairs are not contiguous blocks")
    block = word_pair_range(premise_word, hypothesis_word)
    rows = []
    for c in result.chunks:
        lo, hi = max(c.start, block.start), min(c.stop, block.stop)
        if lo >= hi or c.probs is None:
            continue
        pairs = result.source.chunk(lo, hi)
        for k in range(hi - lo):
            p = c.probs[lo - c.start + k]
            rows.append({"index": lo + k, "premise": pairs.premises[k], "hypothesis": pairs.hypotheses[k],
                         **{label: float(p[j]) for j, label in enumerate(LABELS)}})
    rows.sort(key=lambda r: r["index"])
    return rows if limit is None else rows[: int(limit)]
