"""The altair chart of a likelihood result: the pair bias score per bias type and overall, with the
unbiased reference line, coloured by which side of it a bar lies."""

from __future__ import annotations

from typing import Any

from ...metrics.likelihood import CONVENTION_LABELS, CONVENTIONS, PairBiasScore
from ...palette import LIKELIHOOD_COLORS

__all__ = ["bias_chart"]


def bias_chart(bias: PairBiasScore, convention: str, title: str) -> Any:
    """Bars of ``bias.score`` ("all pairs") and of each bias type's score on ``[reference - 50, reference + 50]``,
    above the reference (more stereotypical preferred) in the stereo colour, below it in the anti colour."""
    import altair as alt
    import pandas as pd

    from ..charts import setup_charts

    setup_charts()

    data = pd.DataFrame(
        [{"group": "all pairs", "score": bias.score, "n": bias.n}]
        + [{"group": k, "score": v.score, "n": v.n} for k, v in bias.by_bias_type.items()]
    )
    reference = CONVENTIONS[convention]
    bars = (
        alt.Chart(data, title=title)
        .mark_bar()
        .encode(
            x=alt.X(
                "score:Q",
                title=CONVENTION_LABELS[convention],
                scale=alt.Scale(domain=[reference - 50, reference + 50]),
            ),
            y=alt.Y("group:N", sort=None, title=None),
            color=alt.condition(
                alt.datum.score > reference,
                alt.value(LIKELIHOOD_COLORS["stereo"]),
                alt.value(LIKELIHOOD_COLORS["anti"]),
            ),
            tooltip=["group", alt.Tooltip("score:Q", format=".2f"), "n"],
        )
    )
    rule = alt.Chart(pd.DataFrame({"reference": [reference]})).mark_rule(strokeDash=[4, 3]).encode(x="reference:Q")
    return bars + rule
