"""What a section keeps per item, so that two models' sections can be paired item by item (``embias compare``,
``embias report --baseline``).

A section's outcome may carry ``items``: a JSON-ready dict of the per-item data its comparison needs, saved with
the section under ``sections/`` (checksummed and fingerprinted like the rest of the record) and never written
to ``report.json``. Items are keyed by content (the first 16 hex digits of the sha256 of their text), never by
position or name, so two runs pair only what is the same item:

- ``association`` (WEAT, SEAT): per test, the items of the four sets and the (targets x A), (targets x B) cosine
  matrices (targets X then Y), with the variant and ddof;
- ``pairs`` (CrowS-Pairs, sense pairs, SSSB): per pair its key, a label, bias type, and per metric the
  preference after the metric's rounding (1 more stereotypical, -1 less, 0 tie, None unscored);
- ``stereoset``: per item its key, target, bias type, and per metric ``stereo_win`` (0/1) and ``related_win``
  (0, 1/2, 1);
- ``nli``: per sentence pair its id, template and word pair, and (e, n, c);
- ``relation`` (RIPA): the words, the relation pairs, and each one's vector.

Arrays travel as ``{"dtype": "<f8", "shape": [...], "b64": ...}``: exact float64, a third of the size of decimal
text.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import numpy as np

ITEMS_FORMAT = 1
"""Bumped when the shape of ``items`` changes (a comparison refuses items of another format)."""


def item_key(*texts: str) -> str:
    """The content key of an item: the first 16 hex digits of the sha256 of its texts (joined by NUL)."""
    return hashlib.sha256("\0".join(texts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def pack(array: np.ndarray) -> dict[str, Any]:
    """An exact float64 array as JSON (see the module docstring)."""
    a = np.ascontiguousarray(np.asarray(array, dtype="<f8"))
    return {"dtype": "<f8", "shape": list(a.shape), "b64": base64.b64encode(a.tobytes()).decode("ascii")}


def unpack(packed: dict[str, Any]) -> np.ndarray:
    """The array :func:`pack` wrote; ``ValueError`` when the bytes do not fit the shape."""
    raw = base64.b64decode(packed["b64"])
    shape = tuple(int(s) for s in packed["shape"])
    if len(raw) != 8 * int(np.prod(shape)):
        raise ValueError(f"a packed array of shape {shape} holds {len(raw)} bytes")
    return np.frombuffer(raw, dtype="<f8").reshape(shape).copy()


def association_items(results: list[Any]) -> dict[str, Any]:
    """``association`` items of WEAT/SEAT results (:class:`~..association.AssociationTestResult` with cosines)."""
    tests = {}
    for r in results:
        if r.cosines is None:
            continue
        sets = {"X": list(r.items["targ1"]), "Y": list(r.items["targ2"]), "A": list(r.items["attr1"]),
                "B": list(r.items["attr2"])}
        tests[r.test] = {"variant": r.core.variant, "ddof": int(r.core.ddof), "sets": sets,
                         "cos_a": pack(r.cosines[0]), "cos_b": pack(r.cosines[1])}
    return {"format": ITEMS_FORMAT, "kind": "association", "tests": tests}


def _label(pair: Any) -> str:
    text = pair.stereo if len(pair.stereo) <= 60 else pair.stereo[:57] + "..."
    return f"{pair.pair_id}: {text}" if getattr(pair, "pair_id", None) else text


def pair_items(results: dict[str, Any]) -> dict[str, Any]:
    """``pairs`` items of :class:`~..likelihood.PairedLikelihoodResult` runs of one pair list, per metric name."""
    from ..likelihood.rows import rounded_preference

    first = next(iter(results.values()))
    pairs = [{"key": item_key(r.pair.stereo, r.pair.anti), "label": _label(r.pair),
              "bias_type": r.pair.bias_type or "(none)", "direction": r.pair.direction} for r in first.rows]
    prefs = {name: [rounded_preference(row, res.decimals) for row in res.rows] for name, res in results.items()}
    return {"format": ITEMS_FORMAT, "kind": "pairs", "pairs": pairs, "preferred": prefs,
            "metrics": {name: res.metric for name, res in results.items()}}


def stereoset_items(result: Any) -> dict[str, Any]:
    """``stereoset`` items of a StereoSet :class:`~..likelihood.PairedLikelihoodResult`."""
    items, stereo, related = [], [], []
    for r in result.rows:
        items.append({"key": item_key(r.pair.stereo, r.pair.anti, r.pair.unrelated or ""), "label": _label(r.pair),
                      "bias_type": r.pair.bias_type or "(none)", "target": r.pair.target or ""})
        ok = r.scores is not None and r.unrelated_wins is not None
        stereo.append(int(r.scores.preferred == "stereo") if ok else None)
        related.append((int(r.unrelated_wins[0]) + int(r.unrelated_wins[1])) / 2 if ok else None)
    return {"format": ITEMS_FORMAT, "kind": "stereoset", "items": items, "metric": result.metric,
            "stereo_win": stereo, "related_win": related}


def nli_items(source: Any, per_pair: Any) -> dict[str, Any]:
    """``nli`` items: each scored sentence pair's id, template (type, verb, object), word pair and (e, n, c)."""
    by_index = {int(i): k for k, i in enumerate(per_pair["index"])}
    probs = per_pair[["entailment", "neutral", "contradiction"]].to_numpy(dtype=np.float64)
    keys, templates, words, rows = [], [], [], []
    for position, pair in enumerate(source.iter_pairs()):  # the table's index is the position in the sample
        k = by_index.get(position)
        if k is None:
            continue
        keys.append(item_key(pair.premise, pair.hypothesis))
        templates.append(f"{pair.template_type} | {pair.verb} | {pair.object}")
        words.append(f"{pair.premise_word} | {pair.hypothesis_word}")
        rows.append(k)
    return {"format": ITEMS_FORMAT, "kind": "nli", "keys": keys, "templates": templates, "word_pairs": words,
            "probs": pack(probs[rows] if rows else np.zeros((0, 3)))}


def relation_items(study: Any, result: Any) -> dict[str, Any]:
    """``relation`` items of a RIPA run: its words and their vectors, the pairs in the vocabulary and theirs."""
    pairs, X, Y, _, _ = study.encoded_pairs()
    words = list(result.words)
    vectors = study.model.encode(words).vectors if words else np.zeros((0, X.shape[1]))
    return {"format": ITEMS_FORMAT, "kind": "relation", "words": words, "groups": list(result.groups),
            "pairs": [list(p) for p in pairs], "word_vectors": pack(vectors), "pair_x": pack(X), "pair_y": pack(Y)}
