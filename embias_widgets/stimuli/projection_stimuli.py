"""Stimuli for relation vectors and the contrived-WEAT demonstration, with citations.

``BOLUKBASI_DEFINITIONAL_PAIRS``: the ten gender-definitional pairs of
Bolukbasi, Chang, Zou, Saligrama & Kalai (2016), "Man is to computer
programmer as woman is to homemaker? Debiasing word embeddings", NeurIPS
(the pairs that define their gender direction). Ethayarajh, Duvenaud & Hirst
(2019, footnote 1) list the same ten pairs in the same (female, male) order to
define the gender relation vector of RIPA, so with these pairs a positive RIPA
points towards the female words.

``ETHAYARAJH_TABLE1``: the rows of Ethayarajh et al. (2019), Table 1: neutral
single-word targets with contrived single-word attribute sets, and what the
paper reports (SGNS trained on Wikipedia).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Bolukbasi et al. (2016) definitional pairs, (female, male); transcribed from
#: Ethayarajh et al. (2019), footnote 1, with Bolukbasi et al.'s capitalisation.
BOLUKBASI_DEFINITIONAL_PAIRS: tuple[tuple[str, str], ...] = (
    ("woman", "man"),
    ("girl", "boy"),
    ("she", "he"),
    ("mother", "father"),
    ("daughter", "son"),
    ("gal", "guy"),
    ("female", "male"),
    ("her", "his"),
    ("herself", "himself"),
    ("Mary", "John"),
)


@dataclass(frozen=True)
class ContrivedAttributeRow:
    """One row of Ethayarajh et al. (2019), Table 1.

    ``targets`` are ``(X, Y)`` and ``attributes`` ``(A, B)``, one word each;
    ``attribute_labels`` say what ``A`` and ``B`` stand for (``"male"``,
    ``"female"``). The ``paper_*`` fields are the published statistic, effect
    size, p-value and outcome.
    """

    targets: tuple[str, str]
    attributes: tuple[str, str]
    attribute_labels: tuple[str, str]
    paper_statistic: float
    paper_effect_size: float
    paper_pvalue: float
    paper_outcome: str


_MF, _FM = ("male", "female"), ("female", "male")
_MALE, _FEMALE, _NONE = "more male-associated", "more female-associated", "inconclusive"

#: Ethayarajh et al. (2019), Table 1 (all nine rows, in the paper's order).
ETHAYARAJH_TABLE1: tuple[ContrivedAttributeRow, ...] = (
    ContrivedAttributeRow(
        ("door", "curtain"), ("masculine", "feminine"), _MF, 0.021, 2.0, 0.0, _MALE
    ),
    ContrivedAttributeRow(("door", "curtain"), ("girlish", "boyish"), _FM, 0.042, 2.0, 0.5, _NONE),
    ContrivedAttributeRow(("door", "curtain"), ("woman", "man"), _FM, 0.071, 2.0, 0.0, _FEMALE),
    ContrivedAttributeRow(("dog", "cat"), ("masculine", "feminine"), _MF, 0.063, 2.0, 0.0, _MALE),
    ContrivedAttributeRow(("dog", "cat"), ("actress", "actor"), _FM, 0.075, 2.0, 0.5, _NONE),
    ContrivedAttributeRow(("dog", "cat"), ("womanly", "manly"), _FM, 0.001, 2.0, 0.0, _FEMALE),
    ContrivedAttributeRow(
        ("bowtie", "corsage"), ("masculine", "feminine"), _MF, 0.017, 2.0, 0.0, _MALE
    ),
    ContrivedAttributeRow(
        ("bowtie", "corsage"), ("woman", "masculine"), _FM, 0.071, 2.0, 0.5, _NONE
    ),
    ContrivedAttributeRow(
        ("bowtie", "corsage"), ("girly", "masculine"), _FM, 0.054, 2.0, 0.0, _FEMALE
    ),
)
