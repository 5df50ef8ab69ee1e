"""SSSB (Zhou, Kaneko & Bollegala 2022, section 4): one sentence a line,
``sentence<TAB>[sense-type, sense-key, stereo|anti]``, blocks separated by blank lines; see
:func:`sssb_pairs` for how sentences become pairs."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import PairFileError
from ..text_files import read_utf8
from .download import local_path
from .sentence_pair import SentencePair

__all__ = ["SSSBSentence", "read_sssb", "sssb_pairs"]


@dataclass(frozen=True)
class SSSBSentence:
    """One labelled SSSB line: ``sentence<TAB>[sense_type, sense_key, label]``."""

    sentence: str
    sense_type: str
    sense_key: str
    label: str
    block: int
    line: int


_SSSB_LINE = re.compile(r"^(?P<sentence>.*?)\s*\[(?P<fields>[^\[\]]*)\]\s*$")


def read_sssb(path: str | Path) -> list[SSSBSentence]:
    """SSSB sentences with their sense type, WordNet sense key and stereo/anti label.

    Blank lines separate blocks (the generator writes one block per pair or per
    template and target); the block number is kept for :func:`sssb_pairs`.
    """
    path = local_path(path, None)
    out: list[SSSBSentence] = []
    block = 0
    for number, raw in enumerate(read_utf8(path, what="SSSB file").splitlines(), start=1):
        if not raw.strip():
            block += 1
            continue
        where = f"{path}: line {number}"
        match = _SSSB_LINE.match(raw.strip())
        if not match or not match["sentence"]:
            raise PairFileError(
                f"{where}: expected 'sentence<TAB>[sense-type, sense-key, stereo|anti]', got {raw.strip()!r}"
            )
        fields = [f.strip() for f in match["fields"].split(",")]
        if len(fields) != 3 or not all(fields):
            raise PairFileError(f"{where}: the brackets need three fields (sense-type, sense-key, stereo|anti)")
        sense_type, sense_key, label = fields
        if label.lower() not in ("stereo", "anti"):
            raise PairFileError(f"{where}: label {label!r} must be 'stereo' or 'anti'")
        out.append(SSSBSentence(match["sentence"], sense_type, sense_key, label.lower(), block, number))
    return out


def sssb_pairs(sentences: Iterable[SSSBSentence], *, path: str | Path = "") -> list[SentencePair]:
    """Stereo/anti pairs from SSSB sentences, per sense.

    The paper (Zhou, Kaneko & Bollegala 2022, eq. 6) compares "sentence-pairs"
    without fixing how lines pair up; we read the generator's layout:

    1. a block (lines between blank lines) holding exactly one ``stereo`` and
       one ``anti`` sentence is a pair (the noun/verb gender examples:
       "He was a ... nurse." / "She was a ... nurse.");
    2. the remaining sentences are grouped by (sense type, sense key), and each
       stereo sentence is paired with each anti sentence of its group
       (nationality/language and ethnicity/colour: one block per attribute
       polarity);
    3. a sentence left without a partner (a verb template with a fixed
       pronoun) is not paired.

    ``bias_type`` of a pair is its sense type, so per-bias-type scores are the
    paper's per-sense-type scores.
    """
    items = list(sentences)
    pairs: list[SentencePair] = []
    leftover: list[SSSBSentence] = []
    for _, group in itertools.groupby(items, key=lambda s: s.block):
        block = list(group)
        labels = sorted(s.label for s in block)
        if labels == ["anti", "stereo"]:
            stereo = next(s for s in block if s.label == "stereo")
            anti = next(s for s in block if s.label == "anti")
            if (stereo.sense_type, stereo.sense_key) != (anti.sense_type, anti.sense_key):
                raise PairFileError(
                    f"{path}: lines {stereo.line},{anti.line}: a pair of two senses ({stereo.sense_type}, "
                    f"{stereo.sense_key} and {anti.sense_type}, {anti.sense_key}); give both lines one sense "
                    "or put a blank line between them"
                )
            pairs.append(_sssb_pair(stereo, anti, path))
        else:
            leftover.extend(block)
    pools: dict[tuple[str, str], list[SSSBSentence]] = {}
    for s in leftover:
        pools.setdefault((s.sense_type, s.sense_key), []).append(s)
    for pool in pools.values():
        stereos = [s for s in pool if s.label == "stereo"]
        antis = [s for s in pool if s.label == "anti"]
        pairs.extend(_sssb_pair(st, an, path) for st in stereos for an in antis)
    return pairs


def _sssb_pair(stereo: SSSBSentence, anti: SSSBSentence, path: str | Path) -> SentencePair:
    return SentencePair(
        stereo=stereo.sentence,
        anti=anti.sentence,
        bias_type=stereo.sense_type,
        sense_key=stereo.sense_key,
        source=f"{path}: lines {stereo.line},{anti.line}".lstrip(": "),
    )
