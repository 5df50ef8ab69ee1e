"""Pair two models' sections item by item and compute each change with the paired metric core.

Input: two section records of one method (the baseline's and the other model's), each with the ``items`` it
kept (:mod:`embias_widgets.analysis.report.items`). Items are matched by content key; an item only one model
could score is left out of the pairing and named (:class:`Paired`'s ``unpaired``). Output: rows, one per
measure and group, each a :meth:`~embias_widgets.metrics.paired.PairedChange.to_dict` plus ``method``,
``row``, ``measure`` and ``gated`` (whether the CI gate and Holm's correction count it: the bias measures
with a test; descriptive measures are shown and never gated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...metrics.paired import PairedChange, pair_score_change
from ...metrics.paired_association import effect_size_change
from ...metrics.paired_resampling import neutrality_change, ripa_change, stereoset_change
from ..report.items import ITEMS_FORMAT, unpack

__all__ = ["ITEM_LEVEL_NOTE", "Paired", "pair_sections"]

ITEM_LEVEL_NOTE = ("compared at the level of items: each model's own preference between the sentences of an item, "
                   "never its raw scores, so models with different tokenizers or metrics are compared fairly")
LABELS_SHOWN = 20
"""At most this many unpaired items are named per section (the count says how many there are)."""


@dataclass
class Paired:
    """The rows of one method's comparison, what could not be paired, and notes."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    unpaired: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _row(method: str, row: str, measure: str, change: PairedChange, gated: bool) -> dict[str, Any]:
    return {"method": method, "row": row, "measure": measure, **change.to_dict(), "gated": gated}


def _unpaired(paired: Paired, method: str, model: str, labels: list[str], why: str) -> None:
    if labels:
        paired.unpaired.append({"method": method, "model": model, "n": len(labels), "why": why,
                                "items": labels[:LABELS_SHOWN]})


def _association(before: dict, after: dict, method: str, names: tuple[str, str], opts: dict) -> Paired:
    out = Paired()
    rng = np.random.default_rng(opts["seed"])
    for test, tb in before["tests"].items():
        ta = after["tests"].get(test)
        if ta is None:
            out.notes.append(f"{test}: ran on {names[0]} only")
            continue
        keep: dict[str, tuple[list[int], list[int]]] = {}
        for key in ("X", "Y", "A", "B"):
            ib, ia, only_b, only_a = _aligned(tb["sets"][key], ta["sets"][key])  # a set's words are distinct
            keep[key] = (ib, ia)
            for model, items, only in ((names[0], tb["sets"][key], only_b), (names[1], ta["sets"][key], only_a)):
                _unpaired(out, method, model, [f"{test} {key}: {items[i]}" for i in only],
                          "out of the other model's vocabulary")
        if min(len(keep["X"][0]), len(keep["Y"][0])) < 2 or not keep["A"][0] or not keep["B"][0]:
            out.notes.append(f"{test}: too few words both models know (X and Y need 2, A and B 1): not compared")
            continue
        cos = []
        for side, t in ((0, tb), (1, ta)):
            nx_all = len(t["sets"]["X"])
            rows = [*keep["X"][side], *(nx_all + i for i in keep["Y"][side])]
            cos.append((unpack(t["cos_a"])[np.ix_(rows, keep["A"][side])],
                        unpack(t["cos_b"])[np.ix_(rows, keep["B"][side])]))
        change = effect_size_change(cos[0], cos[1], len(keep["X"][0]), variant=tb["variant"], ddof=tb["ddof"],
                                    level=opts["level"], n_resamples=opts["resamples"], rng=rng)
        out.rows.append(_row(method, test, "effect size d", change, True))
        if change.warning:
            out.notes.append(f"{test}: {change.warning}")
    return out


def _aligned(before: list[str], after: list[str]) -> tuple[list[int], list[int], list[int], list[int]]:
    """Indices of the shared keys in each list (before's order), and the indices only one list has."""
    where = {k: i for i, k in enumerate(after)}
    shared = [i for i, k in enumerate(before) if k in where]
    keys = {before[i] for i in shared}
    return (shared, [where[before[i]] for i in shared], [i for i, k in enumerate(before) if k not in keys],
            [i for i, k in enumerate(after) if k not in keys])


def _keys(items: list[dict]) -> list[str]:
    return [it["key"] for it in items]


def _pairs(before: dict, after: dict, method: str, names: tuple[str, str], opts: dict) -> Paired:
    out = Paired()
    ib, ia, only_b, only_a = _aligned(_keys(before["pairs"]), _keys(after["pairs"]))
    _unpaired(out, method, names[0], [before["pairs"][i]["label"] for i in only_b], "not in the other run's pairs")
    _unpaired(out, method, names[1], [after["pairs"][i]["label"] for i in only_a], "not in the other run's pairs")
    rng = np.random.default_rng(opts["seed"])
    for slot, pb in before["preferred"].items():
        pa = after["preferred"].get(slot)
        if pa is None:
            continue
        scored = [(i, j) for i, j in zip(ib, ia, strict=True) if pb[i] is not None and pa[j] is not None]
        for model, side in ((names[0], 0), (names[1], 1)):
            prefs, idx = (pb, ib) if side == 0 else (pa, ia)
            _unpaired(out, method, model, [before["pairs"][ib[k]]["label"] for k, i in enumerate(idx)
                                           if prefs[i] is None], f"not scored ({slot})")
        if not scored:
            continue
        mb, ma = before["metrics"][slot], after["metrics"][slot]
        measure = f"{mb.upper()} %" if mb == ma else f"{mb.upper()} % -> {ma.upper()} %"
        if mb != ma:
            out.notes.append(f"{measure}: the models were scored with different metrics; " + ITEM_LEVEL_NOTE)
        x = np.array([pb[i] == 1 for i, _ in scored])
        y = np.array([pa[j] == 1 for _, j in scored])
        types = np.array([before["pairs"][i]["bias_type"] for i, _ in scored], dtype=object)
        groups = [("all", np.ones(len(scored), bool))] + [(t, types == t) for t in sorted(set(types.tolist()))]
        for label, mask in groups:
            if label != "all" and len(groups) == 2:
                continue
            change = pair_score_change(x[mask], y[mask], level=opts["level"], n_resamples=opts["resamples"], rng=rng)
            out.rows.append(_row(method, label, measure, change, True))
    out.notes.append(ITEM_LEVEL_NOTE)
    return out


def _stereoset(before: dict, after: dict, method: str, names: tuple[str, str], opts: dict) -> Paired:
    out = Paired()
    ib, ia, only_b, only_a = _aligned(_keys(before["items"]), _keys(after["items"]))
    _unpaired(out, method, names[0], [before["items"][i]["label"] for i in only_b], "not in the other run's items")
    _unpaired(out, method, names[1], [after["items"][i]["label"] for i in only_a], "not in the other run's items")
    both = [(i, j) for i, j in zip(ib, ia, strict=True) if before["stereo_win"][i] is not None
            and after["stereo_win"][j] is not None]
    if not both:
        return out
    rng = np.random.default_rng(opts["seed"])
    items = [before["items"][i] for i, _ in both]
    sw = [np.array([src["stereo_win"][k] for k in col], float) for src, col in
          ((before, [i for i, _ in both]), (after, [j for _, j in both]))]
    rw = [np.array([src["related_win"][k] for k in col], float) for src, col in
          ((before, [i for i, _ in both]), (after, [j for _, j in both]))]
    targets = np.array([it["target"] for it in items], dtype=object)
    types = np.array([it["bias_type"] for it in items], dtype=object)
    use_targets = all(targets)
    for label in ["all", *sorted(set(types.tolist()))]:
        m = np.ones(len(items), bool) if label == "all" else types == label
        got = stereoset_change((sw[0][m], sw[1][m]), (rw[0][m], rw[1][m]), targets[m] if use_targets else None,
                               level=opts["level"], n_resamples=opts["resamples"], rng=rng)
        for name, gated in (("ss", True), ("lms", False), ("icat", False)):
            out.rows.append(_row(method, label, name.upper(), got[name], gated))
    out.notes.append(ITEM_LEVEL_NOTE)
    return out


def _nli(before: dict, after: dict, method: str, names: tuple[str, str], opts: dict) -> Paired:
    out = Paired()
    ib, ia, only_b, only_a = _aligned(before["keys"], after["keys"])
    _unpaired(out, method, names[0], [before["keys"][i] for i in only_b], "not in the other run's sample")
    _unpaired(out, method, names[1], [after["keys"][i] for i in only_a], "not in the other run's sample")
    if len(ib) < 2:
        return out
    pb, pa = unpack(before["probs"])[ib], unpack(after["probs"])[ia]
    got = neutrality_change((pb, pa), [before["templates"][i] for i in ib], [before["word_pairs"][i] for i in ib],
                            level=opts["level"], n_resamples=opts["resamples"], rng=opts["seed"])
    labels = {"net_neutral": "NN (pairs)", "fraction_neutral": "FN (pairs)"}
    for name, change in got.items():
        label = labels.get(name, f"T:{name.removeprefix('threshold_')} (pairs)")
        out.rows.append(_row(method, label, label.split(" ")[0], change, name in labels))
    return out


def _relation(before: dict, after: dict, method: str, names: tuple[str, str], opts: dict) -> Paired:
    out = Paired()
    words = [w for w in before["words"] if w in after["words"]]
    pairs = [p for p in before["pairs"] if p in after["pairs"]]
    for model, src in ((names[0], before), (names[1], after)):
        _unpaired(out, method, model, [w for w in src["words"] if w not in words], "out of the other vocabulary")
    if len(pairs) < 2 or not words:
        out.notes.append("fewer than 2 relation pairs or no word both models know: RIPA not compared")
        return out
    sides = []
    for src in (before, after):
        wi = [src["words"].index(w) for w in words]
        pi = [src["pairs"].index(p) for p in pairs]
        sides.append(((unpack(src["pair_x"])[pi], unpack(src["pair_y"])[pi]), unpack(src["word_vectors"])[wi]))
    got = ripa_change((sides[0][0], sides[1][0]), (sides[0][1], sides[1][1]), level=opts["level"],
                      n_resamples=min(opts["resamples"], 1_000), rng=opts["seed"])
    out.rows.append(_row(method, "mean |RIPA| over the words", "mean |RIPA|", got.mean_abs, False))
    for k, w in enumerate(words):
        iv = {"low": float(got.low[k]), "high": float(got.high[k]), "level": got.level, "method": got.method}
        out.rows.append({"method": method, "row": w, "measure": "RIPA", "before": float(got.before[k]),
                         "after": float(got.after[k]), "change": float(got.change[k]), "change_interval": iv,
                         "p_value": None, "test": "descriptive (no test per word)", "reference": 0.0,
                         "bias_change": float(abs(got.after[k]) - abs(got.before[k])), "bias_change_interval": None,
                         "n": len(pairs), "counts": {"pairs": len(pairs)}, "gated": False})
    out.notes.append("RIPA is an inner product with each model's raw vectors along its own relation vector, so its "
                     "scale and direction are the model's own (after projection debiasing, what is left of the "
                     "pairs' differences defines another direction): the change is descriptive and never gated")
    return out


KINDS = {"association": _association, "pairs": _pairs, "stereoset": _stereoset, "nli": _nli,
         "relation": _relation}


def pair_sections(before: dict[str, Any], after: dict[str, Any], *, seed: int, level: float,
                  resamples: int) -> Paired:
    """The comparison of one method's two section records (see the module docstring); an empty
    :class:`Paired` with a note when either has no items of this format."""
    method = before["method"]
    ib, ia = before.get("items"), after.get("items")
    if not ib or not ia:
        return Paired(notes=["no per-item data kept (a report.json without its sections/ folder, or a method "
                             "that keeps none): not compared"])
    if ib.get("format") != ITEMS_FORMAT or ia.get("format") != ITEMS_FORMAT or ib["kind"] != ia["kind"]:
        return Paired(notes=[f"per-item data of another format ({ib.get('format')}, {ia.get('format')}): run the "
                             "baseline again with this version"])
    opts = {"seed": seed, "level": level, "resamples": resamples}
    return KINDS[ib["kind"]](ib, ia, method, (before["model"], after["model"]), opts)
