"""``ReportViewer`` holds exactly the report it is given; a ``ReportResult`` displays as it in a notebook."""

from __future__ import annotations

import pytest
import traitlets

from embias_widgets.analysis.report import SECTION_KEYS, ReportResult
from embias_widgets.widgets.report_viewer import ReportViewer


def _report() -> dict:
    section = dict.fromkeys(SECTION_KEYS)
    section.update(id="weat--m", title="WEAT", method="weat", model="m", what="One. Two.", status="done",
                   seconds=1.0, table={"columns": ["test", "effect size d"], "rows": [["weat1", 1.25]]},
                   published=[], significance=[{"label": "weat1", "p": 0.001, "p_holm": 0.001, "significant": True}],
                   notes=["<b>not markup</b>"], figure={"svg": None, "svg_path": None, "png_path": None})
    return {"schema": "embias-report/1", "title": "t", "created": "2025-01-01T00:00:00+00:00", "quick": True,
            "provenance": {"package_version": "0", "python": "3", "platform": "p", "seconds": 1.0,
                           "options": {"sizes": "quick"}},
            "models": [{"name": "m", "kind": "static", "fingerprint": "f"}], "data_files": {},
            "sections": [section], "holm": {"alpha": 0.01, "n_tests": 1}}


def test_viewer_holds_the_result_dict_and_refuses_other_dicts():
    result = ReportResult(_report())
    viewer = ReportViewer(result)
    assert viewer.report == result.to_dict()
    with pytest.raises(traitlets.TraitError, match="embias-report/1"):
        viewer.report = {"schema": "something-else"}
    assert viewer.report == result.to_dict()


def test_result_displays_as_the_viewer():
    result = ReportResult(_report())
    data, _ = result._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"] == result.summary()


def test_viewer_front_end_renders_text_only():
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "js" / "report_viewer.js").read_text()
    assert "innerHTML" not in source and "insertAdjacentHTML" not in source


def test_viewer_sends_the_blocks_report_html_is_drawn_from():
    """The front end draws ``page`` (analysis.publish.page of the report): the same blocks as report.html, with
    seed and alpha as written (0 and 0.01, not blanks)."""
    from embias_widgets.analysis.publish import page

    report = _report()
    report["provenance"]["options"].update(seed=0, alpha=0.01)
    viewer = ReportViewer(report)
    assert viewer.page == page(report)
    assert "seed 0 · alpha 0.01" in viewer.page[1]["text"]
    assert viewer.page[0] == {"t": "h", "level": 1, "text": "\u2068t\u2069"}
    with pytest.raises(traitlets.TraitError):
        viewer.report = {"schema": "something-else"}
    assert viewer.page == page(report)  # a refused report leaves the page as it was
    viewer.report = {}
    assert viewer.page == []


@pytest.mark.parametrize(("cut", "needle"), [
    (lambda r: {"schema": "embias-report/1", "title": "ok", "sections": []}, "is missing"),
    (lambda r: {k: v for k, v in r.items() if k != "provenance"}, "'provenance' is missing"),
    (lambda r: {**r, "sections": [{"id": "weat--m", "title": "WEAT"}]}, "section 1 ('weat--m')"),
    (lambda r: {**r, "holm": "0.01"}, "'holm'"),
])
def test_a_partial_or_older_report_is_one_refusal_naming_what_is_missing(cut, needle):
    """As the JupyterLab file viewer refuses it: never a bare KeyError from inside the page."""
    with pytest.raises(traitlets.TraitError, match="is not a whole embias report") as err:
        ReportViewer(cut(_report()))
    assert needle in str(err.value) and "embias report" in str(err.value)
    viewer = ReportViewer(_report())
    with pytest.raises(traitlets.TraitError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        viewer.report = cut(_report())
    assert viewer.report == _report()  # the refused one is not kept
