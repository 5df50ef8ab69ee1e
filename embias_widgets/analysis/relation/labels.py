"""Which points of a relation plot get a text label, so labels do not crowd in clusters.

Words that sit close on the RIPA axis (himself, guy, he, his) would draw their labels on top of each other.
:func:`label_lanes` labels, per group, at most ``top_k`` words, chosen by ``|RIPA|`` (the words furthest from
0 say most about the relation; Ethayarajh et al. 2019), in two lanes (above and below the dots), each label
placed only where it overlaps no label already in its lane; every other word keeps its tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

LANES = 2
"""Label lanes: 0 above the dots, 1 below."""


def label_lanes(points: Sequence[dict[str, Any]], *, top_k: int = 8, width_px: float = 560.0,
                char_px: float = 6.0, gap_px: float = 4.0) -> list[int | None]:
    """Per point (``{"word", "group", "ripa"}``), the lane of its label, or None for no label.

    Geometry only: a label of ``n`` characters spans ``n * char_px`` pixels centred on its dot, on an axis
    of ``width_px`` pixels over the points' RIPA range; within a group, labels go in order of decreasing
    ``|ripa|`` to the first lane where they overlap no other label (``gap_px`` apart).
    """
    if not points:
        return []
    values = [float(p["ripa"]) for p in points]
    span = (max(values) - min(values)) or 1.0
    per_px = span / width_px
    lanes: list[int | None] = [None] * len(points)
    taken: dict[tuple[str, int], list[tuple[float, float]]] = {}
    shown: dict[str, int] = {}
    for i in sorted(range(len(points)), key=lambda i: -abs(values[i])):
        group = str(points[i]["group"])
        if shown.get(group, 0) >= top_k:
            continue
        half = (len(str(points[i]["word"])) * char_px + gap_px) / 2 * per_px
        lo, hi = values[i] - half, values[i] + half
        for lane in range(LANES):
            spans = taken.setdefault((group, lane), [])
            if all(hi <= a or lo >= b for a, b in spans):
                spans.append((lo, hi))
                lanes[i] = lane
                shown[group] = shown.get(group, 0) + 1
                break
    return lanes
