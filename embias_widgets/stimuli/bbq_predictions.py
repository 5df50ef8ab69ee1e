"""A string field of BBQ files, aligned to loaded items: the authors' UnifiedQA predictions
(``results/UnifiedQA/preds_<Category>.jsonl``: the item's fields plus ``unifiedqa-t5-11b_pred_race``,
``unifiedqa-t5-11b_pred_arc`` and ``unifiedqa-t5-11b_pred_qonly``), or a user's file of model outputs in the
same layout. Map the strings to answer indices with :func:`embias_widgets.metrics.bbq.answer_index_from_text`
(the authors' normalisation)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .bbq import BBQ_CATEGORIES, BbqFileError, BbqItems
from .bbq_rows import collect_files, numbered_lines

__all__ = ["UNIFIEDQA_FORMATS", "read_bbq_predictions"]

UNIFIEDQA_FORMATS = {
    "race": "unifiedqa-t5-11b_pred_race",
    "arc": "unifiedqa-t5-11b_pred_arc",
    "qonly": "unifiedqa-t5-11b_pred_qonly",
}
"""The authors' three UnifiedQA (T5-11B) input formats and their fields: RACE-style and ARC-style prompts, and
the question-only baseline (the authors' script keeps its ambiguous items only)."""


def read_bbq_predictions(source: str | Path, items: BbqItems, field: str) -> np.ndarray:
    """The string ``field`` of every item of ``items``, read from ``source`` (a file or a folder of ``.jsonl``
    files) and matched by ``(category, example_id)``; an object array in the order of ``items``.

    Every item needs a string there: a missing item or field is refused, naming it and the file.
    """
    if not isinstance(field, str) or not field:
        raise ValueError(f"`field` must be the name of a string field, e.g. {UNIFIEDQA_FORMATS['race']!r}")
    path = Path(source).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder; give the .jsonl file(s) holding {field!r}")
    wanted = tuple(items.categories)
    found: dict[tuple[str, int], str] = {}
    for file in collect_files(path, wanted, BBQ_CATEGORIES):
        for number, line in numbered_lines(file):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise BbqFileError(f"{file}: line {number}: not JSON ({err.msg})") from None
            if not isinstance(obj, dict) or obj.get("category") not in wanted:
                continue
            value = obj.get(field)
            if not isinstance(value, str):
                raise BbqFileError(f"{file}: line {number}: field {field!r} must be a string (the model's "
                                   f"answer), got {value!r}")
            found[(obj["category"], int(obj["example_id"]))] = value
    out = np.empty(len(items), dtype=object)
    for i, (cat, eid) in enumerate(zip(items.category.tolist(), items.example_id.tolist(), strict=False)):
        if (cat, eid) not in found:
            raise BbqFileError(f"{path}: no {field!r} for {cat} example_id {eid}; every loaded item needs one")
        out[i] = found[(cat, eid)]
    return out
