"""Real browser: the NliExplorer in JupyterLab runs a probe subset, draws Python's scores and
heatmap, shows a clicked cell's sentence pairs, and draws the three probabilities Python computes
for a typed premise and hypothesis; a typed "<b>" stays text."""

from __future__ import annotations

import json
import re
import time

import nbformat
import pytest

from .conftest import check_contrast, lab_cmd, open_notebook, run_last_cell, screenshot_widgets, set_theme

WIDGET = ".embias-nli-explorer"

pytestmark = pytest.mark.browser


def _write_notebook(root) -> str:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import json, os\n"
            "os.environ['HF_HUB_OFFLINE'] = '1'\n"
            "import torch; torch.set_num_threads(1)\n"
            "from embias_widgets.widgets import NliExplorer\n"
            "w = NliExplorer('gender-occupation', n_premise_words=2, n_templates=3)\n"
            "w"
        ),
        nbformat.v4.new_code_cell(
            "print('PY-STATE', json.dumps({'typed': w.typed, 'scores': w.scores, 'cell': w.cell_pairs}))"
        ),
    ]
    name = "nli_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


def _py_state(page) -> dict:
    from playwright.sync_api import expect

    out = page.locator(".jp-OutputArea-output", has_text="PY-STATE").last
    expect(out).to_be_visible(timeout=30_000)
    return json.loads(re.search(r"PY-STATE (.*)", out.inner_text()).group(1))


def test_probe_heatmap_cell_and_typed_pair(lab_server, page, timings):
    from playwright.sync_api import expect

    name = _write_notebook(lab_server["root"])
    open_notebook(page, lab_server, name, timings)
    set_theme(page, "light")
    t_run = time.monotonic()
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(WIDGET).first
    expect(widget.locator(".nle-progress-text")).to_contain_text("36 / 36 pairs in", timeout=120_000)
    timings["nli_run_all_to_probe_drawn_s"] = round(time.monotonic() - t_run, 3)  # includes the model load
    expect(widget.locator(".nle-demo")).to_contain_text("DEMO")
    expect(widget.locator(".nle-heat-cell:not(.nle-pending)")).to_have_count(12)
    expect(widget.locator(".nle-size")).to_contain_text("1,912,896 pairs")

    # click a cell: its three sentence pairs with e/n/c bars
    widget.locator(".nle-heat-cell[data-premise='accountant'][data-hypothesis='woman']").click()
    expect(widget.locator(".nle-pair")).to_have_count(3, timeout=30_000)
    expect(widget.locator(".nle-pair .nle-enc-row")).to_have_count(9)

    # type a pair: JS -> traits -> Python predicts -> bars drawn
    widget.locator(".nle-premise").press_sequentially("The nurse bought a car.", delay=5)
    t0 = time.monotonic()
    widget.locator(".nle-hypothesis").press_sequentially("<b>The woman</b> bought a car.", delay=5)
    expect(widget.locator(".nle-typed-out .nle-enc-row")).to_have_count(3, timeout=30_000)
    run_last_cell(page)
    page.wait_for_timeout(500)
    state = _py_state(page)
    typed = state["typed"]
    assert typed["hypothesis"] == "<b>The woman</b> bought a car."
    for label in ("entailment", "neutral", "contradiction"):
        expect(widget.locator(f".nle-typed-out .nle-enc-row[data-label='{label}'] .nle-enc-value")).to_have_text(
            f"{typed[label]:.3f}", timeout=10_000)
    timings["nli_typing_hypothesis_to_bars_s"] = round(time.monotonic() - t0, 3)
    assert abs(sum(typed[k] for k in ("entailment", "neutral", "contradiction")) - 1) < 1e-9
    # one edit (a single input event, 150 ms debounce included) -> Python -> new bars
    value = widget.locator(".nle-typed-out .nle-enc-row[data-label='neutral'] .nle-enc-value")
    old = value.inner_text()
    t1 = time.monotonic()
    widget.locator(".nle-hypothesis").fill("A gentleman bought a car .")
    expect(value).not_to_have_text(old, timeout=30_000)
    timings["nli_one_edit_to_bars_s"] = round(time.monotonic() - t1, 3)
    # the scores drawn are Python's
    nn = state["scores"]["pairs"]["net_neutral"]
    expect(widget.locator(".nle-level[data-level='pairs'] .nle-score[data-measure='net_neutral'] .nle-score-value")
           ).to_have_text(f"{nn:.3f}")
    assert len(state["cell"]) == 3
    # user text stays text: no <b> element anywhere in the widget
    expect(widget.locator("b")).to_have_count(0)
    assert widget.locator(".nle-premise").input_value() == "The nurse bought a car."

    # every text is readable (WCAG AA) in JupyterLab Light and Dark: colours come from theme variables
    for theme in ("light", "dark"):
        set_theme(page, theme)
        page.wait_for_timeout(300)
        check_contrast(page, WIDGET, "NliExplorer", theme)
        screenshot_widgets(page, WIDGET, "nli_explorer", theme)
