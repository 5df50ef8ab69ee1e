"""Real browser: the BbqExplorer in JupyterLab draws the result's bias scores with their whiskers, lists a clicked
category's items with the model's three answer probabilities, and draws the probabilities Python computes for a
typed context, question and answers (a typed "<b>" stays text). At 390, 600, 1000 and 1400 px, in JupyterLab Light
and Dark, no text lies outside its box (``conftest.clipped_text``). The typed item's latency (Score clicked to bars
drawn) goes to test-results/browser-timings.json; screenshots at 600 px to test-results/."""

from __future__ import annotations

import time

import nbformat
import pytest

from embias_widgets.formatting import format_value

from .conftest import (
    RESULTS,
    ROOT,
    clipped_text,
    lab_cmd,
    next_frames,
    open_notebook,
    py_state,
    python_notebook,
    run_last_cell,
    screenshot_widgets,
    set_left_area,
    set_theme,
)

pytestmark = pytest.mark.browser
WIDGET = ".embias-bbq-explorer"
WIDTHS = [1400, 1000, 600, 390]
TYPED = {"context": "<b>Alex</b> and Sam met at the clinic after work.", "question": "Who was bad at math?",
         "answers": ["Alex", "Sam", "Unknown"]}


def _write_notebook(root, bbq) -> str:
    nb = python_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import json, os, sys\n"
            "os.environ['HF_HUB_OFFLINE'] = '1'\n"
            "from pathlib import Path\n"
            "import torch; torch.set_num_threads(1)\n"
            f"sys.path.insert(0, {str(ROOT / 'tests')!r})\n"
            "from _tiny_causal import save_gpt2\n"
            "from embias_widgets.analysis.bbq import BbqStudy\n"
            "from embias_widgets.stimuli.bbq import load_bbq\n"
            "from embias_widgets.widgets import BbqExplorer\n"
            "model = str(save_gpt2(Path('tiny-gpt2-bbq')))\n"
            f"items = load_bbq({str(bbq)!r}, categories=['Age', 'Religion'], limit=6)\n"
            "w = BbqExplorer(BbqStudy(model, items, model_options={'device': 'cpu', 'progress': False}))\n"
            "w"
        ),
        nbformat.v4.new_code_cell("print('PY-STATE', json.dumps({'cells': w.cells, 'own': w.own_result}))"),
    ]
    name = "bbq_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


@pytest.fixture(scope="module")
def bbq_page(browser, lab_server, timings, shared_data):
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    name = _write_notebook(lab_server["root"], shared_data / "bbq" / "data")
    open_notebook(page, lab_server, name, timings)
    set_theme(page, "light")
    lab_cmd(page, "notebook:run-all-cells")
    expect(page.locator(f"{WIDGET} .bbq-row")).to_have_count(2, timeout=180_000)
    yield page
    ctx.close()


def test_scores_items_and_a_typed_question(bbq_page, lab_server, timings):
    from playwright.sync_api import expect

    page = bbq_page
    widget = page.locator(WIDGET).first
    state = py_state(page)
    for cell in state["cells"]:  # each drawn number is the result's
        row = widget.locator(f".bbq-row[data-category='{cell['category']}']")
        label = {"ambig": "ambiguous", "disambig": "disambiguated"}[cell["context_condition"]]
        shown = row.locator(f".bbq-value-{cell['context_condition']}")
        expect(shown).to_contain_text(f"{label}: {format_value(cell['bias_score'], 'percent')}")
        if cell["low"] is not None:
            expect(shown).to_contain_text(f"[{format_value(cell['low'], 'percent')}, "
                                          f"{format_value(cell['high'], 'percent')}]")
    assert widget.locator(".bbq-whisker").count() >= 1 and widget.locator(".bbq-dot").count() == 2

    widget.locator("button.bbq-category", has_text="Religion").click()
    expect(widget.locator(".bbq-item")).to_have_count(6, timeout=30_000)
    expect(widget.locator(".bbq-items-title")).to_contain_text("Religion: 6 items, page 1 of 1")
    expect(widget.locator(".bbq-item .bbq-answer")).to_have_count(18)
    probs = [float(t) for t in widget.locator(".bbq-item").first.locator(".bbq-prob").all_inner_texts()]
    assert abs(sum(probs) - 1) < 0.003

    widget.locator(".bbq-own-context").fill(TYPED["context"])
    widget.locator(".bbq-own-question").fill(TYPED["question"])
    for k, answer in enumerate(TYPED["answers"]):
        widget.locator(f".bbq-own-answer-{k}").fill(answer)
    t0 = time.monotonic()
    widget.locator(".bbq-own-score").click()
    expect(widget.locator(".bbq-own-result .bbq-answer")).to_have_count(3, timeout=30_000)
    timings["bbq_own_question_click_to_bars_s"] = round(time.monotonic() - t0, 3)
    run_last_cell(page)
    page.wait_for_timeout(300)
    own = py_state(page)["own"]
    timings["bbq_own_question_python_ms"] = round(own["elapsed_ms"], 1)
    assert own["answers"] == TYPED["answers"]
    expect(widget.locator(".bbq-own-result .bbq-prob")).to_have_text([f"{p:.3f}" for p in own["probabilities"]])
    predicted = widget.locator(".bbq-own-result .bbq-answer[data-predicted='true'] .bbq-answer-text")
    expect(predicted).to_have_text(TYPED["answers"][own["predicted"]])
    assert widget.locator(".bbq-own-context").input_value().startswith("<b>Alex</b>")  # text, never markup
    assert widget.locator("b").count() == 0
    assert not [e for e in page.errors if "embias" in e.lower() or "bbq" in e.lower()], page.errors


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def test_no_text_outside_its_box(bbq_page, width, theme):
    page = bbq_page
    set_theme(page, theme)
    page.set_viewport_size({"width": width, "height": 1000})
    next_frames(page)
    set_left_area(page, False)
    node = page.locator(WIDGET).first
    node.scroll_into_view_if_needed()
    next_frames(page)
    roots = clipped_text(page, WIDGET)
    assert roots and all(r["measured"] > 0 for r in roots)
    problems = [c for r in roots for c in r["clipped"]]
    if width == 600:
        screenshot_widgets(page, WIDGET, "bbq_explorer-600px", theme)
        chart = node.locator(".bbq-chart")
        chart.scroll_into_view_if_needed()
        chart.screenshot(path=str(RESULTS / f"bbq_explorer-chart-600px-{theme}.png"))
    assert not problems, f"{width}px {theme}: {len(problems)} texts outside their box, e.g. {problems[:6]}"
    box = node.bounding_box()
    assert box["width"] <= width  # fits the page: nothing wider than the viewport
