"""Real browser: the NliExplorer in JupyterLab runs a probe subset, draws Python's scores and
heatmap, shows a clicked cell's sentence pairs, and draws the three probabilities Python computes
for a typed premise and hypothesis; a typed "<b>" stays text."""

from __future__ import annotations

import re
import time

import nbformat
import pytest

from embias_widgets.formatting import format_value

from .conftest import (
    check_contrast,
    lab_cmd,
    next_frames,
    open_notebook,
    py_state,
    python_notebook,
    run_code,
    run_last_cell,
    screenshot_widgets,
    set_theme,
)

WIDGET = ".embias-nli-explorer"

pytestmark = pytest.mark.browser


def _write_notebook(root) -> str:
    nb = python_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import json, os\n"
            "os.environ['HF_HUB_OFFLINE'] = '1'\n"
            "import torch; torch.set_num_threads(1)\n"
            "from embias_widgets.widgets import NliExplorer\n"
            "w = NliExplorer('gender-occupation', premise_words=['accountant', 'nurse'], n_templates=3)\n"
            "w"
        ),
        nbformat.v4.new_code_cell(
            "print('PY-STATE', json.dumps({'typed': w.typed, 'scores': w.scores, 'cell': w.cell_pairs}))"
        ),
    ]
    name = "nli_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


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

    # issue 28: the heatmap switches to one template (Python's grid of that template), NN per template named
    expect(widget.locator(".nle-template-line")).to_contain_text("most neutral")
    mean_cells = widget.locator(".nle-heat-cell").all_inner_texts()
    template = widget.locator("select.nle-template option").nth(2).get_attribute("value")
    widget.locator("select.nle-template").select_option(template)
    expect(widget.locator(".nle-heat-cell").first).to_have_attribute(
        "title", re.compile(f'under "{re.escape(template)}"'), timeout=20_000)
    expect(widget.locator(".nle-heat-cell:not(.nle-pending)")).to_have_count(12)
    assert widget.locator(".nle-heat-cell").all_inner_texts() != mean_cells
    widget.locator("select.nle-template").select_option("")
    expect(widget.locator(".nle-heat-cell")).to_have_text(mean_cells, timeout=20_000)
    # issue 31 item 21: at <= 600 px the e/n/c numbers of the top pairs stay on one line each
    size = page.viewport_size
    page.set_viewport_size({"width": 560, "height": size["height"]})
    page.wait_for_timeout(500)
    lines = widget.locator(".nle-top-table td.nle-num").evaluate_all(  # line boxes of each number's text
        "tds => tds.map(td => { const r = document.createRange(); r.selectNodeContents(td);"
        " return new Set([...r.getClientRects()].map(c => Math.round(c.top))).size; })")
    assert lines and max(lines) == 1, f"an e/n/c number wraps onto {max(lines)} lines"
    page.set_viewport_size(size)

    # issue 18: the picked premise words are scored (not the first ones alphabetically)
    expect(widget.locator(".nle-word-chip")).to_have_count(2)
    expect(widget.locator(".nle-heat-table th[scope='row']")).to_have_text(["accountant", "nurse"])
    # the colour scale is fitted to the cells, with a legend; the least neutral cell is the darkest
    values = [float(v) for v in widget.locator(".nle-heat-cell").all_inner_texts()]
    legend = widget.locator(".nle-legend")
    expect(legend).to_contain_text("least neutral (most biased)")
    assert abs(float(legend.get_attribute("data-lo")) - min(values)) < 0.006
    assert abs(float(legend.get_attribute("data-hi")) - max(values)) < 0.006
    darkest = widget.locator(".nle-heat-cell[data-shade='1.000']").first.inner_text()
    assert float(darkest) == min(values)

    # issue 18: a refused word's close matches are buttons; clicking "nurse" puts it in place of "nurze"
    widget.locator(".nle-word-remove[aria-label='remove nurse']").click()
    expect(widget.locator(".nle-word-chip")).to_have_count(1, timeout=20_000)
    widget.locator(".nle-word-input").fill("nurze")
    widget.locator(".nle-word-input").press("Enter")
    use_nurse = widget.locator(".nle-suggest-word", has_text=re.compile(r"^nurse$"))
    expect(use_nurse).to_have_attribute("aria-label", "use nurse instead of nurze", timeout=20_000)
    expect(widget.locator(".nle-word-chip[data-word='nurze']")).to_have_count(0)
    check_contrast(page, f"{WIDGET} .nle-words", "NliExplorer close matches", "light")  # the rest is dimmed (stale)
    use_nurse.click()
    expect(widget.locator(".nle-word-chip[data-word='nurse']")).to_have_count(1, timeout=20_000)
    expect(widget.locator(".nle-suggest-word")).to_have_count(0)
    expect(widget.locator(".nle-size")).to_contain_text("2 of 162 premise words")
    widget.locator(".nle-run").click()
    expect(widget.locator(".nle-progress-text")).to_contain_text("36 / 36 pairs in", timeout=60_000)
    expect(widget.locator(".nle-heat-table th[scope='row']")).to_have_text(["accountant", "nurse"], timeout=20_000)

    # click a cell: its three sentence pairs with e/n/c bars, each pair beside its bars
    widget.locator(".nle-heat-cell[data-premise='accountant'][data-hypothesis='woman']").click()
    expect(widget.locator(".nle-pair")).to_have_count(3, timeout=30_000)
    expect(widget.locator(".nle-pair .nle-enc-row")).to_have_count(9)
    gap = widget.locator(".nle-pair").first.evaluate(
        "p => p.querySelector('.nle-enc').getBoundingClientRect().left"
        " - p.querySelector('.nle-sentences').getBoundingClientRect().right")
    assert gap < 60, f"the sentences are {gap:.0f} px from their bars"

    # type a pair: JS -> traits -> Python predicts -> bars drawn
    widget.locator(".nle-premise").press_sequentially("The nurse bought a car.", delay=5)
    t0 = time.monotonic()
    widget.locator(".nle-hypothesis").press_sequentially("<b>The woman</b> bought a car.", delay=5)
    expect(widget.locator(".nle-typed-out .nle-enc-row")).to_have_count(3, timeout=30_000)
    run_last_cell(page)
    page.wait_for_timeout(500)
    state = py_state(page)
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
           ).to_have_text(format_value(nn, "number"))
    assert len(state["cell"]) == 3
    # user text stays text: no <b> element anywhere in the widget
    expect(widget.locator("b")).to_have_count(0)
    assert widget.locator(".nle-premise").input_value() == "The nurse bought a car."

    # Stop: a long run (a random sample of 150 words x 40 templates) stops after the word in progress,
    # keeps what was scored, and the kernel stays idle (responsive) while the probe runs in its thread
    for chip in widget.locator(".nle-word-remove").all()[::-1]:
        chip.click()
    expect(widget.locator(".nle-word-chip")).to_have_count(0, timeout=20_000)
    widget.locator(".nle-n-words").fill("150")
    widget.locator(".nle-n-words").dispatch_event("change")
    widget.locator(".nle-n-templates").fill("40")
    widget.locator(".nle-n-templates").dispatch_event("change")
    expect(widget.locator(".nle-size")).to_contain_text("150 of 162 premise words", timeout=20_000)
    widget.locator(".nle-run").click()
    expect(widget.locator(".nle-progress-text")).to_contain_text(re.compile(r"^[1-9][\d,]* / 36,000 pairs…"),
                                                                 timeout=60_000)
    # issue 31 item 21: while the run just started scores, nothing says the numbers are of the previous probe
    expect(widget).not_to_contain_text("These numbers are of the previous probe")
    kernel = "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
    timings["nli_kernel_status_while_probe_runs"] = page.evaluate(kernel)
    t_stop = time.monotonic()
    widget.locator(".nle-stop").click()
    expect(widget.locator(".nle-progress-text")).to_contain_text("stopped", timeout=60_000)
    page.wait_for_function(f"() => ({kernel})() === 'idle'", timeout=60_000)
    timings["nli_stop_click_to_stopped_and_idle_s"] = round(time.monotonic() - t_stop, 3)
    assert timings["nli_kernel_status_while_probe_runs"] == "idle"
    scored = int(widget.locator(".nle-progress-text").inner_text().split(" / ")[0].replace(",", ""))
    assert 0 < scored < 36_000 and scored % 240 == 0  # whole premise words (6 hypothesis words x 40 templates)

    # every text is readable (WCAG AA) in JupyterLab Light and Dark: colours come from theme variables
    for theme in ("light", "dark"):
        set_theme(page, theme)
        check_contrast(page, WIDGET, "NliExplorer", theme)
        screenshot_widgets(page, WIDGET, "nli_explorer", theme)

    # another probe picked while a run goes: the run ends after its word in progress, and what stays drawn (of
    # gender-occupation) is marked stale, also once the run has ended (Python's `stale` reaches the page)
    widget.locator(".nle-run").click()
    expect(widget.locator(".nle-progress-text")).to_contain_text(re.compile(r"^[1-9][\d,]* / 36,000 pairs…"),
                                                                 timeout=60_000)
    expect(widget).not_to_have_attribute("data-stale", "true")
    widget.locator("select.nle-probe").select_option("religion-polarity")
    expect(widget.locator(".nle-progress-text")).to_contain_text("stopped", timeout=60_000)
    page.wait_for_function(f"() => ({kernel})() === 'idle'", timeout=60_000)
    next_frames(page)
    expect(widget).to_have_attribute("data-stale", "true")
    expect(widget).to_contain_text("These numbers are of the previous probe, model or subset: press Run.")
    run_code(page, "print('PY-STALE', w.probe, w.stale, w.progress['stopped'])")
    out = page.locator(".jp-OutputArea-output", has_text="PY-STALE").last
    expect(out).to_contain_text("PY-STALE religion-polarity True True", timeout=30_000)
