"""Ethayarajh et al. (2019), Table 1: with one word per set WEAT's effect size is always ±2 (``ddof=0``),
so the choice of attribute words alone decides the verdict for neutral targets.

:func:`contrived_attribute_table` reruns the table on a model; :func:`contrived_attribute_search` tries
every single-word attribute pair to show how easily a verdict is contrived.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...metrics import weat
from ...models import load_model
from ...stimuli.projection_stimuli import ETHAYARAJH_TABLE1, ContrivedAttributeRow
from .validation import RelationInputError


def _verdict(d: float | None, row: ContrivedAttributeRow) -> str:
    x, y = row.targets
    if d is None or d == 0:
        return f"{x} and {y} equally associated"
    label = row.attribute_labels[0] if d > 0 else row.attribute_labels[1]
    return f"{x} more {label}-associated than {y}"


def _single_word_weat(model: Any, row: ContrivedAttributeRow, ddof: int) -> Any:
    words = (*row.targets, *row.attributes)
    enc = model.encode(words)
    if enc.oov:
        raise RelationInputError(
            "; ".join(o.message() for o in enc.oov) + ": choose other words or another model"
        )
    X, Y, A, B = (v[None, :] for v in enc.vectors)
    return weat(X, Y, A, B, ddof=ddof, method="exact")


def contrived_attribute_table(
    model: Any = "glove-6b-50d",
    rows: Iterable[ContrivedAttributeRow] = ETHAYARAJH_TABLE1,
    *,
    ddof: int = 0,
) -> Any:
    """Rerun Ethayarajh et al. (2019), Table 1 on ``model`` (a DataFrame).

    With one target word per set and one attribute word per set, WEAT's
    effect size is ``(s(x) - s(y)) / std{s(x), s(y)} = ±2`` with ``ddof=0``
    (their Proposition 2; ``±sqrt 2`` with ``ddof=1``), whatever the words: the
    sign alone, i.e. the contrived choice of ``A`` and ``B``, decides the
    verdict. The exact permutation test has two splits, so its one-sided
    p-value is 0.5 or 1 here. ``verdict`` reads the sign of ``d``; ``paper_*``
    columns are the published SGNS/Wikipedia numbers; ``flips`` says whether
    the verdicts for that target pair disagree across attribute choices.
    """
    import pandas as pd

    model = load_model(model)
    records = []
    for row in rows:
        core = _single_word_weat(model, row, ddof)
        records.append(
            {
                "targets": " vs ".join(row.targets),
                "attributes": " vs ".join(row.attributes),
                "statistic": core.statistic,
                "effect_size": core.effect_size,
                "pvalue": core.pvalue,
                "verdict": _verdict(core.effect_size, row),
                "paper_statistic": row.paper_statistic,
                "paper_effect_size": row.paper_effect_size,
                "paper_pvalue": row.paper_pvalue,
                "paper_outcome": row.paper_outcome,
            }
        )
    frame = pd.DataFrame(records)
    frame["flips"] = frame.groupby("targets")["verdict"].transform(lambda v: v.nunique() > 1)
    return frame


def contrived_attribute_search(
    targets: tuple[str, str],
    first: Iterable[str],
    second: Iterable[str],
    *,
    labels: tuple[str, str] = ("female", "male"),
    model: Any = "glove-6b-50d",
    ddof: int = 0,
) -> Any:
    """WEAT for every single-word attribute pair ``({a}, {b})``, a in ``first``, b in ``second``.

    Shows how easily a verdict is contrived (Ethayarajh et al. 2019, §4): each
    row is one WEAT with ``X = {targets[0]}``, ``Y = {targets[1]}``,
    ``A = {a}``, ``B = {b}``; ``labels`` name what ``first`` and ``second``
    stand for. Returns a DataFrame sorted by the test statistic.
    """
    import pandas as pd

    model = load_model(model)
    records = []
    for a, b in itertools.product(first, second):
        row = ContrivedAttributeRow(tuple(targets), (a, b), labels, np.nan, np.nan, np.nan, "")
        core = _single_word_weat(model, row, ddof)
        records.append(
            {
                "attributes": f"{a} vs {b}",
                "statistic": core.statistic,
                "effect_size": core.effect_size,
                "verdict": _verdict(core.effect_size, row),
            }
        )
    return pd.DataFrame(records).sort_values("statistic", ignore_index=True)
