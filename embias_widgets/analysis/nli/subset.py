"""A named probe cut down to a subset that runs in seconds: what the explorer widget scores.

The first ``n_premise_words`` premise words x every hypothesis word x ``n_templates`` templates taken at
an even step through the probe's templates (so every verb group is represented once the subset is large
enough).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...stimuli.nli_probes import TemplateProbe, load_probe, templates


@dataclass(frozen=True)
class ProbeSubset:
    """A subset of a named probe (``source``) and the whole probe it is cut from (``whole``)."""

    source: TemplateProbe
    whole: TemplateProbe

    @classmethod
    def of(cls, probe: str, *, n_premise_words: int, n_templates: int) -> ProbeSubset:
        """The subset of ``probe``; ValueError for fewer than 1 premise word or template."""
        whole = load_probe(probe)
        if n_premise_words < 1 or n_templates < 1:
            raise ValueError("give at least 1 premise word and 1 template")
        all_templates = templates()
        step = max(1, len(all_templates) // n_templates)
        chosen = list(all_templates[::step][:n_templates])
        part = load_probe(probe, premise_words=whole.premise_words[:n_premise_words], template_list=chosen)
        return cls(part, whole)

    @property
    def chunk_size(self) -> int:
        """Pairs of one premise word (the explorer draws after each)."""
        return len(self.source.hypothesis_words) * len(self.source.templates)

    def size(self) -> dict[str, int]:
        """``{n_pairs, whole_pairs, premise_words, hypothesis_words, templates, whole_premise_words,
        whole_templates}``."""
        part, whole = self.source, self.whole
        return {
            "n_pairs": len(part), "whole_pairs": len(whole),
            "premise_words": len(part.premise_words), "hypothesis_words": len(part.hypothesis_words),
            "templates": len(part.templates), "whole_premise_words": len(whole.premise_words),
            "whole_templates": len(whole.templates),
        }
