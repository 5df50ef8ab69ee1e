"""A named probe cut down to a subset that runs in seconds: what the explorer widget scores.

The premise words the user picked (any of the probe's), or else a seeded random sample of
``n_premise_words`` of them (not the first ones alphabetically: those would be the same few occupations
every time), x every hypothesis word x ``n_templates`` templates taken at an even step through the probe's
templates (so every verb group is represented once the subset is large enough).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...stimuli.nli_probes import TemplateProbe, load_probe, templates


@dataclass(frozen=True)
class ProbeSubset:
    """A subset of a named probe (``source``) and the whole probe it is cut from (``whole``)."""

    source: TemplateProbe
    whole: TemplateProbe

    @classmethod
    def of(cls, probe: str, *, n_premise_words: int, n_templates: int, premise_words: Sequence[str] = (),
           seed: int = 0) -> ProbeSubset:
        """The subset of ``probe``: the given ``premise_words`` (each must be one of the probe's), or else a
        random sample of ``n_premise_words`` drawn with ``seed`` (:func:`sample_premise_words`).

        ValueError for fewer than 1 premise word or template, or a word the probe does not have (naming it,
        with close matches).
        """
        whole = load_probe(probe)
        if n_premise_words < 1 or n_templates < 1:
            raise ValueError("give at least 1 premise word and 1 template")
        words = list(dict.fromkeys(premise_words)) or sample_premise_words(whole.premise_words, n_premise_words,
                                                                           seed)
        check_premise_words(words, whole)
        all_templates = templates()
        step = max(1, len(all_templates) // n_templates)
        chosen = list(all_templates[::step][:n_templates])
        part = load_probe(probe, premise_words=words, template_list=chosen)
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


def sample_premise_words(words: Sequence[str], n: int, seed: int = 0) -> list[str]:
    """``n`` of ``words`` drawn without replacement by ``numpy.random.default_rng(seed)``, in the probe's
    order (all of them when ``n >= len(words)``): the same seed gives the same words."""
    if n >= len(words):
        return list(words)
    picked = np.random.default_rng(seed).choice(len(words), size=n, replace=False)
    return [words[i] for i in sorted(int(i) for i in picked)]


def unknown_premise_words(words: Sequence[str], whole: TemplateProbe | str) -> dict[str, list[str]]:
    """``{word: close matches}`` for each of ``words`` that is not a premise word of ``whole`` (a probe or its
    name), in the order given; ``{}`` when all are known. The close matches are at most 5 of the probe's
    premise words whose :class:`difflib.SequenceMatcher` ratio (Ratcliff/Obershelp, 2M/T) with the word is
    at least 0.6, best first (:func:`difflib.get_close_matches`)."""
    whole = load_probe(whole) if isinstance(whole, str) else whole
    known = set(whole.premise_words)
    return {word: difflib.get_close_matches(word, whole.premise_words, n=5, cutoff=0.6)
            for word in dict.fromkeys(words) if word not in known}


def check_premise_words(words: Sequence[str], whole: TemplateProbe | str) -> None:
    """ValueError naming the first of ``words`` that is not a premise word of ``whole`` (a probe or its
    name), with its close matches (:func:`unknown_premise_words`)."""
    whole = load_probe(whole) if isinstance(whole, str) else whole
    for word, close in unknown_premise_words(words, whole).items():
        hint = f"; close matches: {', '.join(close)}" if close else ""
        raise ValueError(f"premise word {word!r} is not in the {whole.name} probe{hint}")
