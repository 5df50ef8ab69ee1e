"""One check, used by each study's tests, that a result answers the four questions of ``StudyResult``."""

from __future__ import annotations

import json
from typing import Any


def assert_study_result(result: Any) -> None:
    """``result`` implements ``StudyResult``: a str summary, a JSON-ready dict, a tidy frame, an altair chart."""
    import altair as alt
    import pandas as pd

    from embias_widgets.analysis import StudyResult

    assert isinstance(result, StudyResult), f"{type(result).__name__} lacks summary/to_dict/frame/chart"
    summary = result.summary()
    assert isinstance(summary, str) and summary.strip()
    data = result.to_dict()
    assert isinstance(data, dict) and data
    assert json.loads(json.dumps(data)) == json.loads(json.dumps(data, sort_keys=True))  # plain JSON types
    frame = result.frame()
    assert isinstance(frame, pd.DataFrame) and len(frame.columns) > 0
    assert frame.columns.is_unique
    chart = result.chart()
    assert isinstance(chart, alt.TopLevelMixin)
    chart.to_dict()  # the spec validates
