"""Real browser: every widget lays out for its container's width.

One notebook shows every widget (the WEAT explorer, the relation projection, the paired likelihood table, a
sense selector, the sense WEAT explorer, the NLI explorer and a SEAT explorer). At 1400 px, at 1000 px with the
file browser open (an output area of about 570 px), at 600 px, at 600 px with the file browser open (JupyterLab's
default side bar: a widget gets about 240 px), at 390 px and at 360 px, in JupyterLab Light and Dark, no text of
any widget lies outside its visible box (``conftest.clipped_text``: inside every clipping ancestor, reachable in
every scrolling one, inside the widget's own box and what the page shows of it; an input's hint whole; no word
split across two lines), no two texts of a figure overlap (``conftest.overlapping_text``: tick labels, titles),
and every data mark reaches 3:1 against the theme's background (``conftest.graphics_contrast``, WCAG 1.4.11);
360 px is the floor every widget must fit. Every problem found is written to
test-results/layout-clipped-texts.json. Screenshots of each widget at 600 px in both themes go to
test-results/ (and docs/_static/screenshots/ with EMBIAS_UPDATE_SCREENSHOTS=1). The counts are written to
test-results/layout-clipped.json; the WEAT explorer's edit latencies (Enter to the redrawn d) to
test-results/browser-timings.json.
"""

from __future__ import annotations

import json
import statistics
import time

import nbformat
import pytest

from embias_widgets.formatting import format_value

from .conftest import (
    RESULTS,
    TINY_SENSE_EXPLORER,
    clipped_text,
    graphics_contrast,
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

ROOTS = ".embias-widget"
WIDGETS = {  # name in the report -> CSS selector of its root(s)
    "word_set_editor": ".embias-word-set-editor",
    "effect_size_bars": ".embias-effect-size-bars",
    "relation_projection": ".embias-relation-projection",
    "paired_likelihood_table": ".embias-paired-likelihood-table",
    "sense_selector": ".embias-sense-selector",
    "nli_explorer": ".embias-nli-explorer",
}
WIDTHS = [(1400, False), (1000, True), (600, False), (600, True), (390, False), (360, False)]  # (viewport px, file
# browser open): at 600 px with JupyterLab's default side bar open, a widget gets about 240 px
# 360 px is the floor the widgets must fit: an output area of about 244 px (sense keys cut at a key boundary,
# axis labels wrapped at words, the test picker's short labels with the full title below)
CLIPPED: dict[str, dict[str, int]] = {}
PROBLEMS: dict[str, list] = {}

CELLS = [
    '''
import os
os.environ["HF_HUB_OFFLINE"] = "1"
import numpy as np
from embias_widgets.analysis import PairedLikelihood
from embias_widgets.models import load_model
from embias_widgets.stimuli import AssociationTestSpec, WordSet
from embias_widgets.stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS
from embias_widgets.stimuli.wordnet import load_wordnet
from embias_widgets.widgets import (NliExplorer, PairedLikelihoodTable, RelationProjectionWidget, SenseSelector,
                                    SenseWeatExplorer, WeatExplorer)
glove = load_model("glove-6b-50d")
weat = WeatExplorer("weat6", model=glove)
weat
''',
    '''
RelationProjectionWidget(
    BOLUKBASI_DEFINITIONAL_PAIRS,
    {"occupations": ["nurse", "homemaker", "receptionist", "engineer", "programmer", "carpenter"],
     "neutral": ["door", "dog", "speed"]},
    model=glove,
)
''',
    '''
pairs = [
    ("Women are too emotional to run a company.", "Men are too emotional to run a company.", "gender"),
    ("The nurse said she would be back in a minute.", "The nurse said he would be back in a minute.", "gender"),
    ("Poor families do not care about school.", "Rich families do not care about school.", "socioeconomic"),
]
PairedLikelihoodTable(study=PairedLikelihood(pairs, model="embias-demo-mlm", progress=False))
''',
    '''
selector = SenseSelector(["nurse%1:18:00::"], label="pick senses")
selector.query = "nurse"
selector
''',
    TINY_SENSE_EXPLORER + "explorer\n",
    '''
NliExplorer("gender-occupation", model="embias-demo-nli", n_premise_words=3, n_templates=3)
''',
    '''
WeatExplorer("sent-weat6", model="cbow-glove-6b-50d", n_samples=2_000)  # SEAT: a row per word
''',
]


def _write_notebook(root) -> str:
    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.strip()) for c in CELLS]
    name = "layout_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


@pytest.fixture(scope="module")
def all_widgets(browser, lab_server, timings):
    """A page showing every widget, computed (module-scoped: the widths and themes share it)."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("dialog", lambda d: d.dismiss())
    name = _write_notebook(lab_server["root"])
    open_notebook(page, lab_server, name, timings)
    set_theme(page, "light")
    lab_cmd(page, "notebook:run-all-cells")
    expect(page.locator(".embias-effect-size-bars rect.esb-wordbar").first).to_be_visible(timeout=180_000)
    expect(page.locator(".embias-effect-size-bars")).to_have_count(4, timeout=180_000)
    expect(page.locator(".embias-relation-projection circle, .embias-relation-projection .erp-point").first
           ).to_be_attached(timeout=120_000)
    expect(page.locator(".embias-paired-likelihood-table tr.plt-row")).to_have_count(3, timeout=120_000)
    expect(page.locator(".embias-sense-selector .ess-option").first).to_be_visible(timeout=60_000)
    expect(page.locator(".embias-nli-explorer .nle-progress-text")).to_contain_text("pairs in", timeout=180_000)
    page.wait_for_timeout(500)
    yield page
    ctx.close()


def _set_width(page, width: int, file_browser: bool) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    next_frames(page)
    set_left_area(page, file_browser)  # then waits the frames in which ResizeObservers redraw


def test_weat_edit_latency(all_widgets, timings):
    """Enter on a typed name -> Python recomputes -> the redrawn d (median of five edits)."""
    from playwright.sync_api import expect

    page = all_widgets
    _set_width(page, 1400, False)
    bars = page.locator(".embias-effect-size-bars").first
    adder = page.locator(".ewe-add[data-set='targ2']").first
    seconds = []
    for word in ("Mary", "Anna", "Emma", "Julia", "Laura"):
        before = bars.get_attribute("data-effect-size")
        adder.click()
        adder.press_sequentially(word, delay=5)
        t0 = time.monotonic()
        adder.press("Enter")
        expect(bars).not_to_have_attribute("data-effect-size", before, timeout=30_000)
        expect(bars.locator(".esb-value")).to_contain_text(
            f"d = {format_value(float(bars.get_attribute('data-effect-size')), 'effect')}")
        seconds.append(time.monotonic() - t0)
    timings["weat_layout_enter_to_redrawn_d_median_s"] = round(statistics.median(seconds), 3)
    timings["weat_layout_enter_to_redrawn_d_max_s"] = round(max(seconds), 3)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("width", "file_browser"), WIDTHS,
                         ids=[f"{w}px{'-filebrowser' if f else ''}" for w, f in WIDTHS])
def test_no_text_outside_its_box(all_widgets, width, file_browser, theme):
    page = all_widgets
    set_theme(page, theme)
    _set_width(page, width, file_browser)
    label = f"{width}px{' + file browser' if file_browser else ''} {theme}"
    report, problems = _layout_problems(page)
    if problems:  # a widget still settling (a ResizeObserver's redraw a frame late on a loaded machine): look again
        page.wait_for_timeout(1_000)
        report, problems = _layout_problems(page)
    CLIPPED[label] = report
    PROBLEMS[label] = problems
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "layout-clipped.json").write_text(json.dumps(CLIPPED, indent=2))
    (RESULTS / "layout-clipped-texts.json").write_text(json.dumps(PROBLEMS, indent=1))
    if width == 600 and not file_browser:
        for widget, selector in WIDGETS.items():
            screenshot_widgets(page, selector, f"{widget}-600px", theme)
    assert not problems, f"{label}: {len(problems)} texts outside their box, e.g. {problems[:6]}"
    assert not [e for e in page.errors if "embias" in e.lower()], page.errors


def _layout_problems(page) -> tuple[dict[str, int], list]:
    """Per widget, its texts cut short; and every text outside its box, figure texts drawn into each other and
    marks below 3:1 on the theme's background."""
    report, problems = {}, []
    for widget, selector in WIDGETS.items():
        # as a person sees each widget: scrolled to (JupyterLab skips the layout of cells off screen,
        # so their ResizeObservers report when they come into view)
        for node in page.locator(selector).all():
            node.scroll_into_view_if_needed()
            next_frames(page)
        roots = clipped_text(page, selector)
        assert roots, f"no {widget} on the page"
        assert all(r["measured"] > 0 for r in roots), f"{widget}: no text measured: {roots}"
        report[widget] = sum(len(r["clipped"]) for r in roots)
        problems += [(widget, r["width"], r["visible"], c) for r in roots for c in r["clipped"]]
    overlaps = overlapping_text(page, ROOTS)  # texts of one figure drawn into each other (tick labels, titles)
    problems += [("overlap", o) for o in overlaps]
    # every mark at 3:1 on the theme's background (WCAG 1.4.11), its fill or its outline
    shapes = graphics_contrast(page, ROOTS)
    assert shapes, "no graphics measured"
    problems += [("graphics below 3:1", g) for g in shapes if g["ratio"] < 3]
    return report, problems
