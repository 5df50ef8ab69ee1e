"""``report.html`` and the JupyterLab report viewer in Chromium (issue 30).

report.html opens with every network request blocked, no console error, user text shown as text. At 390, 600,
1000 and 1400 px in light and dark (prefers-color-scheme; JupyterLab Light and Dark for the viewer), one page load
(or one resize) per width and theme and one evaluate of its checks: no horizontal page scroll, no text outside
its box (``conftest.clipped_text``), text contrast at least 4.5:1 including the figures' text, interval whiskers
and significance marks drawn where the data has them, figure labels at least 11 px, and the viewer's tables
written exactly as report.html writes them.
"""

from __future__ import annotations

import json
import os
import shutil

import nbformat
import pytest

from .conftest import (
    RESULTS,
    SCREENSHOTS,
    check_contrast,
    check_graphics_contrast,
    clipped_text,
    lab_cmd,
    next_frames,
    open_notebook,
    overlapping_text,
    python_notebook,
    screenshot_widgets,
    set_left_area,
    set_theme,
)

pytestmark = pytest.mark.browser

WIDTHS = [390, 600, 1000, 1400]
SCHEMES = ["light", "dark"]
TITLE = "<script>alert(1)</script> audit"

# every check of one page state in one evaluate: page width, whiskers and marks against the data, label sizes,
# and the table cells as text (for comparing the two surfaces)
_CHECKS = r"""
(root) => {
  const top = document.querySelector(root);
  const svgs = [...top.querySelectorAll('svg')];
  const fonts = [];
  for (const svg of svgs) {
    const box = svg.getBoundingClientRect();
    const scale = box.width / (svg.viewBox.baseVal?.width || box.width);
    for (const t of svg.querySelectorAll('text')) fonts.push(parseFloat(getComputedStyle(t).fontSize) * scale);
  }
  const weat = [...top.querySelectorAll('details')]
    .find((d) => d.querySelector('summary').textContent.startsWith('WEAT'));
  const table = weat.querySelector('table');
  const head = [...table.querySelectorAll('th')].map((th) => th.textContent);
  const sigCol = head.indexOf('significant'), ivCol = head.findIndex((h) => h.endsWith('interval'));
  const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent));
  return {
    pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
    rootOverflow: top.scrollWidth - top.clientWidth,
    whiskers: weat.querySelectorAll('.whiskers_marks line').length,
    withInterval: ivCol < 0 ? 0 : rows.filter((r) => r[ivCol].startsWith('[')).length,
    marks: weat.querySelectorAll('.sigmarks_marks text, .sigmarks_neg_marks text').length,
    significant: rows.filter((r) => r[sigCol] === 'yes').length,
    legend: [...weat.querySelectorAll('svg text')].some((t) => t.textContent.includes('alpha')),
    minFont: Math.min(...fonts), nFigures: svgs.length,
    cutShort: svgs.flatMap((svg) => [...svg.querySelectorAll('text')].map((t) => t.textContent))
      .filter((t) => t.endsWith('…')),
    tables: [...top.querySelectorAll('table')].map((t) => [...t.querySelectorAll('td')].map((td) => td.textContent)),
  };
}
"""
TABLES: dict[str, list] = {}


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    from embias_widgets.analysis.report import Report

    out = tmp_path_factory.mktemp("report")
    Report(["glove-6b-50d"], out=out, quick=True, progress=False, title=TITLE).run()
    return out


def _assert_checks(got: dict, label: str) -> None:
    assert got["pageWidth"] <= got["viewport"], f"{label}: the page scrolls sideways ({got['pageWidth']} px)"
    assert got["withInterval"] > 0 and got["whiskers"] == got["withInterval"], label  # one whisker per interval
    assert got["significant"] > 0 and got["marks"] == got["significant"] and got["legend"], label
    assert got["minFont"] >= 11, f"{label}: a figure label is {got['minFont']:.1f} px"
    assert got["nFigures"] == 3, label
    assert got["cutShort"] == [], f"{label}: figure labels cut short: {got['cutShort']}"


def _assert_figures_read(page, root: str, label: str, theme: str) -> None:
    """Every bar, whisker and swatch of the figures at least 3:1 on the page (fill or outline, as drawn), and no
    two texts of a figure drawn into each other (an axis title over its labels, tick labels)."""
    check_graphics_contrast(page, root, label, theme)
    overlaps = overlapping_text(page, root)
    assert overlaps == [], f"{label}: texts drawn into each other: {overlaps[:5]}"


def test_report_html_offline_no_errors_text_only(browser, report_dir):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    requested, errors = [], []

    def block(route):
        requested.append(route.request.url)
        route.abort()

    ctx.route(lambda url: not url.startswith(("file:", "data:")), block)
    page = ctx.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((report_dir / "report.html").as_uri())
    page.wait_for_load_state("load")
    assert requested == [] and errors == []
    assert page.locator("h1").inner_text().startswith("<script>alert(1)</script>")  # text, not markup
    assert page.locator("script").count() == 0 and page.locator("h1 bdi").count() == 1
    assert page.locator("details").count() == 3
    assert page.locator("h2").first.inner_text() == "Findings"
    ctx.close()


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_report_html_at_every_width(browser, report_dir, width, scheme):
    ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = ctx.new_page()
    page.goto((report_dir / "report.html").as_uri())
    label = f"report.html {width}px {scheme}"
    got = page.evaluate(_CHECKS, "body")
    _assert_checks(got, label)
    TABLES.setdefault("html", got["tables"])
    clipped = [c for r in clipped_text(page, "body") for c in r["clipped"]]
    assert clipped == [], f"{label}: text outside its box: {clipped[:5]}"
    check_contrast(page, "body", f"report.html {width}px", scheme)
    _assert_figures_read(page, "body", f"report.html {width}px", scheme)
    if width == 1000:
        _screenshot(page, f"report-html-top-{scheme}.png")
    ctx.close()


def _screenshot(page, name: str) -> None:
    """The first 900 px of the page under test-results/ (and docs/_static/screenshots/ with
    EMBIAS_UPDATE_SCREENSHOTS=1, as conftest.screenshot_widgets)."""
    RESULTS.mkdir(exist_ok=True)
    # the fixture's title is hostile markup (checked above to show as text); the docs' picture carries a title a
    # user would give, every number below it as the report wrote it
    page.evaluate("document.querySelectorAll('h1 bdi').forEach((b) => { b.textContent = 'GloVe 6B 50d audit'; })")
    height = min(900, page.evaluate("document.documentElement.scrollHeight"))
    page.screenshot(path=str(RESULTS / name), clip={"x": 0, "y": 0, "width": page.viewport_size["width"],
                                                   "height": height})
    if os.environ.get("EMBIAS_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(RESULTS / name, SCREENSHOTS / name)


def test_model_card_renders_as_markdown(browser, report_dir):
    """MODEL_CARD_BIAS.md rendered as a Markdown page (CommonMark and tables, as the Hub renders a card's body):
    the results table and caveats show; a screenshot for the docs."""
    from markdown_it import MarkdownIt

    from embias_widgets.analysis.publish import write_model_cards

    (path,) = write_model_cards(json.loads((report_dir / "report.json").read_text()), report_dir)
    body = path.read_text().split("---", 2)[2]  # the YAML front matter is metadata, not shown
    html = MarkdownIt("commonmark").enable("table").render(body)
    ctx = browser.new_context(viewport={"width": 1000, "height": 900})
    page = ctx.new_page()
    page.set_content("<style>body{font:15px/1.5 system-ui,sans-serif;max-width:900px;margin:1rem auto;padding:0 1rem}"
                     "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 6px}</style>" + html)
    assert page.locator("h2").first.inner_text() == "Bias evaluation"
    assert page.locator("table tr").count() > 10 and "Caveats" in page.locator("h3").all_inner_texts()
    _screenshot(page, "model-card-bias.png")
    ctx.close()


@pytest.fixture(scope="module")
def viewer_page(browser, lab_server, report_dir, timings):
    from playwright.sync_api import expect

    folder = lab_server["root"] / "report_view"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(report_dir / "report.json", folder / "report.json")
    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from embias_widgets.analysis.report import ReportResult\n"
        "ReportResult.load('report_view/report.json')")]
    nbformat.write(nb, lab_server["root"] / "report_viewer_test.ipynb")
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    open_notebook(page, lab_server, "report_viewer_test.ipynb", timings)
    set_left_area(page, False)  # the output area a notebook gives at each width, the file browser closed
    lab_cmd(page, "notebook:run-all-cells")
    expect(page.locator(".embias-report-viewer details")).to_have_count(3, timeout=120_000)
    yield page
    ctx.close()


@pytest.mark.parametrize("theme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_viewer_at_every_width(viewer_page, width, theme):
    page = viewer_page
    set_theme(page, theme)
    page.set_viewport_size({"width": width, "height": 1000})
    next_frames(page)
    label = f"viewer {width}px {theme}"
    got = page.evaluate(_CHECKS, ".embias-report-viewer")
    _assert_checks(got, label)
    assert got["rootOverflow"] <= 1, f"{label}: the viewer is wider than its output area"
    clipped = [c for r in clipped_text(page, ".embias-report-viewer") for c in r["clipped"]]
    assert clipped == [], f"{label}: text outside its box: {clipped[:5]}"
    check_contrast(page, ".embias-report-viewer", f"viewer {width}px", theme)
    _assert_figures_read(page, ".embias-report-viewer", f"viewer {width}px", theme)
    if width == 600:
        screenshot_widgets(page, ".embias-report-viewer", "report-viewer", theme)
    assert page.errors == []
    if "html" in TABLES:  # the same report written by both surfaces: every table cell the same text
        assert got["tables"] == TABLES["html"], json.dumps([got["tables"][:1], TABLES["html"][:1]])[:2000]


def _gallery_html() -> str:
    """Figures the glove report does not draw, on report.html's style sheet: a one-row chart (SEAT's
    "sent-weat6", sense WEAT's "sense-weat1") and the debiasing check of two models side by side."""
    from test_report_figures import _debias  # tests/ is on sys.path (rootdir-relative imports)

    from embias_widgets.analysis.report.figures import chart_rows, chart_spec, svg_of
    from embias_widgets.analysis.report.html import CSS

    figures = []
    for label, title in (("sent-weat6", "SEAT suite"), ("sense-weat1", "Sense WEAT")):
        one = [{"label": label, "key": label, "value": 0.41, "model": "all-MiniLM-L6-v2", "low": 0.12, "high": 0.7,
                "group": None, "significant": False}]
        figures.append(chart_spec(one, "effect size d", "test", title=title, subtitle="all-MiniLM-L6-v2", alpha=0.01))
    rows = chart_rows(_debias("glove-6b-50d")) + chart_rows(_debias("glove-6b-100d"))
    figures.append(chart_spec(rows, "effect size d", "test", title="Projection debiasing check against a random "
                              "direction", subtitle="models side by side", alpha=0.01))
    body = "".join(f"<div class='figure scroll'>{svg_of(spec)}</div>" for spec in figures)
    return f"<!doctype html><meta name='viewport' content='width=device-width'><style>{CSS}</style><body>{body}"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_one_row_and_side_by_side_figures_read_at_390px(browser, tmp_path, scheme):
    """The y axis title of a one-row chart clear of its label, every text inside its figure, every bar at 3:1."""
    path = tmp_path / "figures.html"
    path.write_text(_gallery_html(), encoding="utf-8")
    ctx = browser.new_context(viewport={"width": 390, "height": 900}, color_scheme=scheme)
    page = ctx.new_page()
    page.goto(path.as_uri())
    label = f"figures 390px {scheme}"
    assert page.locator(".figure svg").count() == 3
    clipped = [c for r in clipped_text(page, "body") for c in r["clipped"]]
    assert clipped == [], f"{label}: text outside its box: {clipped[:5]}"
    _assert_figures_read(page, "body", label, scheme)
    _screenshot(page, f"report-figures-390px-{scheme}.png")
    ctx.close()
