"""BBQ, the Bias Benchmark for QA (Parrish et al. 2022, Findings of ACL; github nyu-mll/BBQ, CC BY 4.0).

Public API (stable):

- :func:`load_bbq` ``(source, *, categories=None, limit=None, metadata=None) -> BbqItems``: the official JSON
  Lines (a folder of ``<Category>.jsonl`` files, the ``bbq/`` folder ``embias data fetch bbq`` writes, or one
  file), or a user's file of the same layout; extra fields (e.g. the authors' UnifiedQA predictions) are
  ignored. Anything else is refused with the file, the line, the field and the fix (:class:`BbqFileError`).
- :class:`BbqItems`: a frozen, columnar container (numpy arrays, one row per item): ``example_id``,
  ``category``, ``question_index``, ``question_polarity`` (``"neg"``/``"nonneg"``), ``context_condition``
  (``"ambig"``/``"disambig"``), ``context``, ``question``, ``answers`` (n x 3), ``label`` (0-2),
  ``answer_info`` (n x 3 groups, ``"unknown"`` for the unknown answer), ``answer_text`` (n x 3, the first
  element of each ``answer_info`` pair), ``stereotyped_groups`` (tuple of tuples), ``subcategory``,
  ``unknown_loc``, ``target_loc`` (the biased answer, ``-1`` where undefined; see
  :mod:`~embias_widgets.stimuli.bbq_targets`), ``label_type`` (``"name"``/``"label"``), the derived
  ``score_category`` (``"<category> (names)"`` for names, as the authors' script groups), ``len()``,
  :attr:`BbqItems.content_hash` and :meth:`BbqItems.subset`.
- :func:`bbq_category_names`: the eleven categories of the release.
- :func:`~embias_widgets.stimuli.bbq_predictions.read_bbq_predictions`: a string field of the same files (the
  authors' UnifiedQA predictions), aligned to loaded items.

One item::

    {"example_id": 0, "question_index": "1", "question_polarity": "neg", "context_condition": "ambig",
     "category": "Age", "answer_info": {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"],
     "ans2": ["Can't be determined", "unknown"]}, "additional_metadata": {"stereotyped_groups": ["old"], ...},
     "context": "...", "question": "Who was not comfortable using the phone?", "ans0": "The grandfather",
     "ans1": "The grandson", "ans2": "Can't be determined", "label": 2}
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .bbq_rows import BbqFileError, collect_files, item_row, numbered_lines, read_metadata
from .bbq_targets import derive_label_type, derive_target_loc

__all__ = ["BBQ_CATEGORIES", "BbqFileError", "BbqItems", "bbq_category_names", "load_bbq"]

BBQ_CATEGORIES = ("Age", "Disability_status", "Gender_identity", "Nationality", "Physical_appearance",
                  "Race_ethnicity", "Race_x_SES", "Race_x_gender", "Religion", "SES", "Sexual_orientation")
_TEXT_COLUMNS = ("category", "question_polarity", "context_condition", "context", "question", "label_type",
                 "subcategory")


def bbq_category_names() -> tuple[str, ...]:
    """The eleven categories of the BBQ release (file names ``data/<Category>.jsonl``)."""
    return BBQ_CATEGORIES


@dataclass(frozen=True, eq=False)
class BbqItems:
    """BBQ items as columns (one row per item; see the module docstring for each column).

    ``target_source`` says where ``target_loc`` and ``label_type`` came from: ``"derived"`` (from
    ``answer_info`` and ``stereotyped_groups`` by the authors' metadata rules) or ``"metadata"`` (the authors'
    ``additional_metadata.csv``).
    """

    example_id: np.ndarray
    category: np.ndarray
    question_index: np.ndarray
    question_polarity: np.ndarray
    context_condition: np.ndarray
    context: np.ndarray
    question: np.ndarray
    answers: np.ndarray
    label: np.ndarray
    answer_info: np.ndarray
    answer_text: np.ndarray
    stereotyped_groups: tuple[tuple[str, ...], ...]
    subcategory: np.ndarray
    unknown_loc: np.ndarray
    target_loc: np.ndarray
    label_type: np.ndarray
    target_source: str = "derived"

    def __len__(self) -> int:
        return int(self.example_id.shape[0])

    @cached_property
    def score_category(self) -> np.ndarray:
        """The category the authors' script reports each item under: ``"<category> (names)"`` for
        ``label_type == "name"``, else the category."""
        names = self.label_type == "name"
        out = self.category.astype(object).copy()
        out[names] = np.char.add(self.category[names].astype(str), " (names)").astype(object)
        return out

    @property
    def categories(self) -> list[str]:
        """The categories present, in first-seen order."""
        return list(dict.fromkeys(self.category.tolist()))

    @cached_property
    def content_hash(self) -> str:
        """sha256 (hex) of every column's content: the key of caches and resumes (equal items, equal hash)."""
        h = hashlib.sha256(b"bbq-items-v1\0")
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                h.update(json.dumps(value.tolist(), ensure_ascii=False).encode())
            else:
                h.update(json.dumps(value, ensure_ascii=False).encode())
            h.update(b"\0")
        return h.hexdigest()

    def subset(self, index: Any) -> BbqItems:
        """The items at ``index`` (a boolean mask or integer positions), as a new :class:`BbqItems`."""
        idx = np.arange(len(self))[np.asarray(index)] if np.asarray(index).dtype == bool else np.asarray(index)
        kw = {f.name: getattr(self, f.name) for f in fields(self)}
        for name, value in kw.items():
            if isinstance(value, np.ndarray):
                kw[name] = value[idx]
            elif name == "stereotyped_groups":
                kw[name] = tuple(value[i] for i in idx.tolist())
        return BbqItems(**kw)

    def item(self, i: int) -> dict[str, Any]:
        """Item ``i`` as a plain dict (for display)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray):
                out[f.name] = value[i].tolist() if value.ndim > 1 else value[i].item() if hasattr(value[i], "item") \
                    else value[i]
            elif f.name == "stereotyped_groups":
                out[f.name] = list(value[i])
        out["score_category"] = self.score_category[i]
        return out


def _load_iv(source: Any, categories: Any, limit: Any, metadata: Any) -> tuple[Path, tuple[str, ...] | None,
                                                                                int | None, Path | None]:
    if not isinstance(source, str | Path):
        raise TypeError(f"`source` must be a path to a BBQ .jsonl file or a folder of them, got "
                        f"{type(source).__name__}")
    path = Path(source).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder; give a BBQ .jsonl file or a folder holding "
                                "<Category>.jsonl files (embias data fetch bbq downloads them)")
    if categories is not None:
        categories = (categories,) if isinstance(categories, str) else tuple(categories)
        if not categories or not all(isinstance(c, str) and c for c in categories):
            raise ValueError(f"`categories` must be category names, e.g. {BBQ_CATEGORIES[:2]}, got {categories!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 1):
        raise ValueError(f"`limit` must be a whole number of items per category, at least 1, got {limit!r}")
    meta = None if metadata is None else Path(metadata).expanduser()
    if meta is not None and not meta.is_file():
        raise FileNotFoundError(f"{meta}: no such file; give the authors' analysis_scripts/additional_metadata.csv")
    return path, categories, None if limit is None else int(limit), meta


def _spread_limit(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` rows of one category, spread over its templates: round robin over the templates in
    file order, taking each template's rows in file order (so a small limit still reaches every template)."""
    by_template: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_template.setdefault(row["question_index"], []).append(row)
    queues = list(by_template.values())
    picked: list[tuple[int, int]] = []
    depth = 0
    while len(picked) < limit and any(depth < len(q) for q in queues):
        for t, q in enumerate(queues):
            if depth < len(q) and len(picked) < limit:
                picked.append((t, depth))
        depth += 1
    keep = {id(queues[t][d]) for t, d in picked}
    return [row for row in rows if id(row) in keep]


def load_bbq(source: str | Path, *, categories: str | list[str] | tuple[str, ...] | None = None,
             limit: int | None = None, metadata: str | Path | None = None) -> BbqItems:
    """Read BBQ items (Parrish et al. 2022) into a :class:`BbqItems`.

    ``source``: one ``.jsonl`` file, or a folder holding ``<Category>.jsonl`` files (also ``preds_*.jsonl``, or a
    ``data/`` subfolder, as in the BBQ repository). ``categories``: keep only these (the items' ``category``
    field); ``limit``: at most this many items per category, spread over its templates (round robin over the
    ``question_index`` values, each template's items in file order). ``metadata``: the authors'
    ``additional_metadata.csv``; when given, ``target_loc`` and ``label_type`` are read from it (items it lacks,
    or lists without a target, get ``-1``) instead of derived (:mod:`~embias_widgets.stimuli.bbq_targets`).
    """
    path, wanted, limit, meta = _load_iv(source, categories, limit, metadata)
    rows: list[dict[str, Any]] = []
    for file in collect_files(path, wanted, BBQ_CATEGORIES):
        for number, line in numbered_lines(file):
            if line.strip():
                row = item_row(line, file, number)
                if wanted is None or row["category"] in wanted:
                    rows.append(row)
    present = list(dict.fromkeys(r["category"] for r in rows))
    if wanted is not None:
        missing = [c for c in wanted if c not in present]
        if missing:
            raise ValueError(f"{path}: no items of categories {missing}; it holds {present or 'none'}"
                             f" (BBQ has {', '.join(BBQ_CATEGORIES)})")
    if not rows:
        raise BbqFileError(f"{path}: no BBQ items found; give a .jsonl file with one BBQ item per line")
    seen: dict[tuple[str, int], str] = {}
    for r in rows:
        key = (r["category"], r["example_id"])
        if key in seen:
            raise BbqFileError(f"{r['where']}: example_id {key[1]} of {key[0]} repeats {seen[key]}; "
                               "each item of a category needs its own example_id")
        seen[key] = r["where"]
    if limit is not None:
        rows = [r for c in present for r in _spread_limit([r for r in rows if r["category"] == c], limit)]
    return _columns(rows, read_metadata(meta) if meta is not None else None)


def _columns(rows: list[dict[str, Any]], meta: dict[tuple[str, int, int], tuple[int, str]] | None) -> BbqItems:
    if meta is None:
        targets = [derive_target_loc(r["category"], r["question_polarity"], r["answer_info"], r["answer_text"],
                                     r["stereotyped_groups"]) for r in rows]
        label_types = [derive_label_type(r["category"], r["question_index"]) for r in rows]
    else:
        found = [meta.get((r["category"], r["question_index"], r["example_id"]), (-1, "label")) for r in rows]
        targets, label_types = [f[0] for f in found], [f[1] for f in found]
    obj = {name: np.array([r[name] for r in rows], dtype=object) for name in _TEXT_COLUMNS if name != "label_type"}
    return BbqItems(
        example_id=np.array([r["example_id"] for r in rows], dtype=np.int64),
        question_index=np.array([r["question_index"] for r in rows], dtype=np.int64),
        answers=np.array([r["answers"] for r in rows], dtype=object).reshape(len(rows), 3),
        label=np.array([r["label"] for r in rows], dtype=np.int64),
        answer_info=np.array([r["answer_info"] for r in rows], dtype=object).reshape(len(rows), 3),
        answer_text=np.array([r["answer_text"] for r in rows], dtype=object).reshape(len(rows), 3),
        stereotyped_groups=tuple(tuple(r["stereotyped_groups"]) for r in rows),
        unknown_loc=np.array([r["unknown_loc"] for r in rows], dtype=np.int64),
        target_loc=np.array(targets, dtype=np.int64),
        label_type=np.array(label_types, dtype=object),
        target_source="derived" if meta is None else "metadata",
        **obj,
    )
