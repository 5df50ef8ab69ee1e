"""The sentence pair every pairs reader returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["SentencePair"]


@dataclass(frozen=True)
class SentencePair:
    """A more and a less stereotypical sentence, with what is known about them.

    ``stereo`` is the more stereotypical sentence (CrowS-Pairs' ``sent_more``,
    StereoSet's stereotype, SSSB's ``stereo`` line) and ``anti`` the less
    stereotypical one (``sent_less``, the anti-stereotype, SSSB's ``anti``).
    ``direction`` is CrowS-Pairs' ``stereo_antistereo`` label: whether the
    pair's more stereotypical sentence expresses a stereotype about a
    disadvantaged group (``"stereo"``) or violates one about an advantaged
    group (``"antistereo"``). It never swaps the sentences; it only says which
    sub-score the pair counts under. ``unrelated`` is StereoSet's third
    option; ``sense_key`` is an SSSB WordNet sense key.
    """

    stereo: str
    anti: str
    bias_type: str = ""
    direction: str = "stereo"
    unrelated: str | None = None
    target: str = ""
    sense_key: str = ""
    pair_id: str = ""
    source: str = ""

    @property
    def sent_more(self) -> str:
        """CrowS-Pairs' name for the more stereotypical sentence (``stereo``), in both directions."""
        return self.stereo

    @property
    def sent_less(self) -> str:
        """CrowS-Pairs' name for the less stereotypical sentence (``anti``), in both directions."""
        return self.anti

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record, empty fields left out."""
        return {k: v for k, v in asdict(self).items() if v not in ("", None)}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any], *, where: str = "pair") -> SentencePair:
        """From ``{"stereo", "anti", ...}`` or CrowS names ``{"sent_more", "sent_less",
        "stereo_antistereo", ...}`` (``sent_more`` is ``stereo`` in both directions);
        raises ``ValueError`` naming ``where`` and the fix."""
        rec = dict(record)
        if "stereo" not in rec and "sent_more" in rec:
            direction = str(rec.get("stereo_antistereo", rec.get("direction", "stereo"))).strip()
            if direction not in ("stereo", "antistereo"):
                raise ValueError(f"{where}: stereo_antistereo must be 'stereo' or 'antistereo', got {direction!r}")
            rec = {**rec, "stereo": rec["sent_more"], "anti": rec.get("sent_less", ""), "direction": direction}
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(rec) - known - {"sent_more", "sent_less", "stereo_antistereo"})
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {unknown}; use {sorted(known)}")
        pair = cls(**{k: v for k, v in rec.items() if k in known})
        pair.check(where)
        return pair

    def check(self, where: str = "pair") -> None:
        """Raise ``ValueError`` if a sentence is empty or the direction unknown."""
        for role in ("stereo", "anti"):
            value = getattr(self, role)
            if not isinstance(value, str):
                raise ValueError(
                    f"{where}: the {role} sentence must be text, got {type(value).__name__} {value!r}; type a sentence"
                )
            if not value.strip():
                raise ValueError(f"{where}: the {role} sentence is empty; type a sentence")
        if self.direction not in ("stereo", "antistereo"):
            raise ValueError(f"{where}: direction must be 'stereo' or 'antistereo', got {self.direction!r}")
