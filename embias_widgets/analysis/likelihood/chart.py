"""The altair chart of a likelihood result: the pair bias score per bias type and overall, with the
unbiased reference line, coloured by which side of it a bar lies."""

from __future__ import annotations

from typing import Any

from ...metrics.likelihood import CONVENTION_LABELS, CONVENTIONS, PairBiasScore
from ...metrics.likelihood.pair_intervals import pair_score_interval
from ...palette import LIKELIHOOD_COLORS

__all__ = ["bias_chart"]


def _row(group: str, g: Any, reference: float) -> dict[str, Any]:
    iv = pair_score_interval(g.n_stereo_preferred, g.n, reference=reference)
    return {"group": group, "score": g.score, "n": g.n, "low": None if iv is None else iv.low,
            "high": None if iv is None else iv.high}


def bias_chart(bias: PairBiasScore, convention: str, title: str) -> Any:
    """Bars of ``bias.score`` ("all pairs") and of each bias type's score on ``[reference - 50, reference + 50]``,
    above the reference (more stereotypical preferred) in the stereo colour, below it in the anti colour, each
    with its 95% Wilson interval as a whisker (:func:`~embias_widgets.metrics.likelihood.pair_intervals.
    pair_score_interval`)."""
    import altair as alt
    import pandas as pd

    from ..charts import setup_charts

    setup_charts()

    reference = CONVENTIONS[convention]
    data = pd.DataFrame([_row("all pairs", bias, reference)]
                        + [_row(k, v, reference) for k, v in bias.by_bias_type.items()])
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
            tooltip=["group", alt.Tooltip("score:Q", format=".2f"), alt.Tooltip("low:Q", format=".2f"),
                     alt.Tooltip("high:Q", format=".2f"), "n"],
        )
    )
    whiskers = alt.Chart(data).mark_rule(strokeWidth=1.5).encode(x="low:Q", x2="high:Q",
                                                                 y=alt.Y("group:N", sort=None))
    rule = alt.Chart(pd.DataFrame({"reference": [reference]})).mark_rule(strokeDash=[4, 3]).encode(x="reference:Q")
    return bars + whiskers + rule
