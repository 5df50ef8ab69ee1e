"""The CI gate of ``embias compare --fail-if RULE``: which rows of a comparison breach a rule.

A rule is ``NAME[:THRESHOLD][@METHOD,METHOD...]``; several ``--fail-if`` rules fail if any breaches:

- ``worse``: a bias measure whose bias grew significantly: its paired test survives Holm-Bonferroni over the
  comparison's gated rows and the interval of the change in bias (distance from the no-bias value) lies above 0
  (the row's verdict is ``"bias grew"``);
- ``worse:T``: as ``worse``, and the bias grew by more than ``T`` in the row's own unit (d for WEAT and SEAT,
  percentage points for pair scores and StereoSet's SS, NN or FN for NLI);
- ``grows:T``: the estimated growth of the bias exceeds ``T``, significant or not (for small test sets where a
  test cannot be significant);
- ``changed``: any bias measure changed significantly, in either direction (a model that must not move).

``@METHOD,...`` limits a rule to those methods (report method names: ``weat``, ``seat``, ``crows-pairs``,
``stereoset``, ``sense-pairs``, ``sssb``, ``nli`` for every NLI probe or one probe's name). Only gated rows
(bias measures with a paired test) are ever judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["RULE_NAMES", "GateRule", "breaches", "parse_rule"]

RULE_NAMES = ("worse", "grows", "changed")
_RULE = re.compile(r"^(?P<name>[a-z]+)(?::(?P<t>[^@]+))?(?:@(?P<methods>[a-z0-9,\-]+))?$")


@dataclass(frozen=True)
class GateRule:
    """A parsed rule: ``name``, ``threshold`` (None for none) and the ``methods`` it is limited to (empty: all)."""

    name: str
    threshold: float | None
    methods: tuple[str, ...]
    text: str

    def applies(self, method: str) -> bool:
        return not self.methods or any(method == m or method.startswith(f"{m}-") for m in self.methods)

    def breached_by(self, row: dict[str, Any]) -> bool:
        if not row.get("gated") or not self.applies(row["method"]):
            return False
        if self.name == "changed":
            return bool(row.get("significant"))
        grew_by = row["bias_change"]
        if self.name == "grows":
            return grew_by > self.threshold
        return row.get("verdict") == "bias grew" and (self.threshold is None or grew_by > self.threshold)


def parse_rule(text: str) -> GateRule:
    """A :class:`GateRule` from ``text``; ``ValueError`` naming the rule and the accepted forms."""
    forms = "worse, worse:T, grows:T or changed, optionally @METHOD[,METHOD] (e.g. worse:0.2@weat,seat)"
    m = _RULE.match(str(text).strip())
    if not m or m["name"] not in RULE_NAMES:
        raise ValueError(f"--fail-if {text!r} is not a rule: give {forms}")
    threshold = None
    if m["t"] is not None:
        try:
            threshold = float(m["t"])
        except ValueError:
            raise ValueError(f"--fail-if {text!r}: the threshold {m['t']!r} is not a number; give {forms}") from None
        if not threshold >= 0:
            raise ValueError(f"--fail-if {text!r}: the threshold must be a number >= 0")
    if m["name"] == "grows" and threshold is None:
        raise ValueError(f"--fail-if {text!r}: 'grows' needs a threshold (grows:T)")
    if m["name"] == "changed" and threshold is not None:
        raise ValueError(f"--fail-if {text!r}: 'changed' takes no threshold")
    methods = tuple(x for x in (m["methods"] or "").split(",") if x)
    return GateRule(m["name"], threshold, methods, str(text).strip())


def breaches(comparison: dict[str, Any], rules: list[GateRule]) -> list[str]:
    """One line per (rule, row) breach, e.g. ``worse: WEAT weat6 [effect size d]: 0.42 -> 1.10, bias +0.68
    [0.21, 1.05], p (Holm) 0.003``."""
    from ...formatting import format_interval, format_value

    lines = []
    for rule in rules:
        for r in comparison["rows"]:
            if rule.breached_by(r):
                iv = format_interval(r["bias_change_interval"], "number") if r["bias_change_interval"] else ""
                p = format_value(r["p_holm"], "p") if r.get("p_holm") is not None else "-"
                lines.append(f"{rule.text}: {r.get('title', r['method'])} {r['row']} [{r['measure']}]: "
                             f"{format_value(r['before'], 'number')} -> {format_value(r['after'], 'number')}, bias "
                             f"{r['bias_change']:+.4g} {iv}, p (Holm) {p}")
    return lines
