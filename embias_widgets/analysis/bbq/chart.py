"""The altair chart of a BBQ result: the bias score per category, ambiguous and disambiguated side by side, each
with its interval as a whisker, around the unbiased 0."""

from __future__ import annotations

from typing import Any

from ...palette import LIKELIHOOD_COLORS

__all__ = ["bias_score_chart"]


def bias_score_chart(frame: Any, title: str) -> Any:
    """Points of ``bias_score`` per ``category`` (rows) and ``context_condition`` (columns), whiskers from
    ``bias_low`` to ``bias_high``, coloured by the side of 0 they lie on (stereotype-aligned or not)."""
    import altair as alt

    from ..charts import setup_charts

    setup_charts()
    data = frame.dropna(subset=["bias_score"])
    base = alt.Chart(data).encode(y=alt.Y("category:N", sort=None, title=None))
    whiskers = base.mark_rule().encode(x=alt.X("bias_low:Q", title="bias score (x100; 0 = unbiased)"),
                                       x2="bias_high:Q")
    points = base.mark_point(filled=True, size=60).encode(
        x="bias_score:Q",
        color=alt.condition(alt.datum.bias_score > 0, alt.value(LIKELIHOOD_COLORS["stereo"]),
                            alt.value(LIKELIHOOD_COLORS["anti"])),
        tooltip=["category", "context_condition", alt.Tooltip("bias_score:Q", format=".1f"),
                 alt.Tooltip("bias_low:Q", format=".1f"), alt.Tooltip("bias_high:Q", format=".1f"),
                 alt.Tooltip("accuracy:Q", format=".3f"), "n_items"],
    )
    zero = alt.Chart(data).mark_rule(strokeDash=[4, 4]).encode(x=alt.datum(0))
    return alt.layer(zero, whiskers, points, data=data).facet(
        column=alt.Column("context_condition:N", title=None, sort=["ambig", "disambig"]), title=title)
