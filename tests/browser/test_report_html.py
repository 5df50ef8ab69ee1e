"""``report.html`` in Chromium: opens with every network request blocked, no console error, text contrast at
least 4.5:1 in light and dark (prefers-color-scheme), user text shown as text."""

from __future__ import annotations

import pytest

from .conftest import check_contrast

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def report_html(tmp_path_factory):
    from embias_widgets.analysis.report import Report

    out = tmp_path_factory.mktemp("report")
    Report(["glove-6b-50d"], out=out, quick=True, progress=False, title="<script>alert(1)</script> audit").run()
    return out / "report.html"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_report_html_offline_no_errors_contrast(browser, report_html, scheme):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, color_scheme=scheme)
    requested, errors = [], []

    def block(route):
        requested.append(route.request.url)
        route.abort()

    ctx.route(lambda url: not url.startswith(("file:", "data:")), block)
    page = ctx.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(report_html.as_uri())
    page.wait_for_load_state("load")
    assert requested == [] and errors == []
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    assert page.locator("h1").inner_text().startswith("<script>alert(1)</script>")  # text, not markup
    assert page.locator("script").count() == 0
    assert page.locator("details").count() == 3
    assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
    check_contrast(page, "body", "report.html", scheme)
    ctx.close()
