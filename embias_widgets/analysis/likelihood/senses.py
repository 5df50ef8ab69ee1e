"""Pairs with WordNet sense keys (SSSB, Zhou, Kaneko & Bollegala 2022): which keys WordNet lacks, the gloss
of a key, and the unpaired mean sentence score per sense key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .rows import PairRow

__all__ = ["SENSE_PAIRING_RULE", "sense_key_problems", "sense_means", "sense_note"]

SENSE_PAIRING_RULE = (
    "pairs per sense (stimuli.sssb_pairs): a block holding one stereo and one anti sentence is a pair; the other "
    "sentences of a (sense type, sense key) are paired every stereo with every anti sentence, so unbalanced sets "
    "(e.g. 144 stereo vs 192 anti) give 144 x 192 pairs; sense_means compares mean sentence scores without pairing"
)


def sense_key_problems(pairs: Sequence[Any]) -> list[str]:
    """One line per sense key of ``pairs`` that is not a WordNet 3.0 key, naming where it occurs.

    ``pairs``: :class:`SentencePair` objects (placed by their ``source``) or SSSB sentences
    (:class:`~embias_widgets.stimuli.pairs.SSSBSentence`, placed by line number).

    The real SSSB files carry two ``$SENSE-ID$`` placeholders; such pairs are still scored
    (and grouped under the key as written), but reported here.
    """
    from ...stimuli.wordnet import UnknownSenseError, WordNet, WordNetNotFoundError, load_wordnet

    where: dict[str, list[str]] = {}
    for i, p in enumerate(pairs):
        if p.sense_key:
            line = getattr(p, "line", None)
            where.setdefault(p.sense_key, []).append(f"line {line}" if line else (p.source or f"pair {i}"))
    if not where:
        return []
    try:
        wordnet: WordNet | None = load_wordnet()
    except WordNetNotFoundError:
        wordnet = None  # only the spelling of a key can be checked
    out = []
    for key, places in where.items():
        if not WordNet.is_key(key):
            problem = "is not written as a WordNet sense key"
        elif wordnet is not None:
            try:
                wordnet.sense(key)
                continue
            except UnknownSenseError:
                problem = "is not in WordNet 3.0"
        else:
            continue
        shown = "; ".join(places[:5]) + (f"; ... ({len(places)} pairs)" if len(places) > 5 else "")
        out.append(f"sense key {key!r} {problem} ({shown})")
    return out


def sense_note(key: str) -> tuple[str, str]:
    """``(short gloss, problem)`` of a sense key: the gloss when WordNet 3.0 has it, else why not."""
    if key in ("", "(none)"):
        return "", "no sense key"
    from ...stimuli.wordnet import UnknownSenseError, WordNetNotFoundError, load_wordnet
    from ..senses.lookup import short_gloss

    try:
        sense = load_wordnet().sense(key)
    except UnknownSenseError as err:
        return "", str(err).split(";")[0]
    except WordNetNotFoundError:
        return "", "WordNet is not installed, so the key cannot be checked"
    return short_gloss(sense.gloss), ""


def sense_means(rows: Sequence[PairRow]) -> list[dict[str, Any]]:
    """Per sense key: mean score of its distinct stereo and anti sentences and their difference.

    Needs no pairing (Zhou et al. Table 4 reports these means, ``diff = stereo - anti``),
    so it reads the same whether a file's stereo and anti sentences are balanced or not.
    """
    groups: dict[str, dict[str, Any]] = {}
    for row in rows:
        p = row.pair
        if row.scores is None or not p.sense_key:
            continue
        g = groups.setdefault(p.sense_key, {"sense_type": p.bias_type, "stereo": {}, "anti": {}})
        g["stereo"][p.stereo] = row.scores.stereo.score
        g["anti"][p.anti] = row.scores.anti.score
    out = []
    for key, g in groups.items():
        st, an = np.array(list(g["stereo"].values())), np.array(list(g["anti"].values()))
        out.append(
            {
                "sense_key": key,
                "sense_type": g["sense_type"],
                "n_stereo": int(st.size),
                "n_anti": int(an.size),
                "mean_stereo": float(st.mean()),
                "mean_anti": float(an.mean()),
                "difference": float(st.mean() - an.mean()),
            }
        )
    return out
