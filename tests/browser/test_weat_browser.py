"""Real browser: type into the word-set editor in JupyterLab and see Python's
new effect size drawn; user text stays text."""

from __future__ import annotations

import re
import time

import pytest

from .conftest import RESULTS, lab_cmd, open_notebook, run_last_cell

pytestmark = pytest.mark.browser


def test_typed_word_redraws_bar_with_python_value(lab_server, page, timings):
    from playwright.sync_api import expect

    open_notebook(page, lab_server, "quickstart.ipynb", timings)
    t1 = time.monotonic()
    lab_cmd(page, "notebook:run-all-cells")
    bars = page.locator(".embias-effect-size-bars").first
    expect(bars).to_have_attribute("data-effect-size", re.compile(r"^1\.70"), timeout=90_000)
    expect(page.locator(".vega-embed").first).to_be_visible(timeout=90_000)  # altair chart drew
    expect(page.locator(".jp-OutputArea-output", has_text="PY-EFFECT")).to_be_visible(timeout=60_000)
    timings["quickstart_run_all_to_widgets_s"] = round(time.monotonic() - t1, 2)
    before = float(bars.get_attribute("data-effect-size"))
    value_text = page.locator(".esb-value").first
    expect(value_text).to_contain_text(f"d = {before:+.4f}")

    # Type a female name into Target Y: JS -> trait -> Python reruns -> bars redraw.
    adder = page.locator(".ewe-add[data-set='targ2']").first
    adder.click()
    t2 = time.monotonic()
    adder.press_sequentially("Mary", delay=20)
    adder.press("Enter")
    expect(bars).not_to_have_attribute("data-effect-size", str(before), timeout=20_000)
    expect(page.locator(".ewe-chips[data-set='targ2'] .ewe-chip[data-word='Mary']")).to_have_count(1)
    timings["type_to_redraw_s"] = round(time.monotonic() - t2, 3)
    after = float(bars.get_attribute("data-effect-size"))
    expect(value_text).to_contain_text(f"d = {after:+.4f}")
    expect(page.locator("rect.esb-wordbar[data-word='Mary']")).to_have_count(1)

    # The kernel holds exactly the number the page shows.
    run_last_cell(page)
    out = page.locator(".jp-OutputArea-output", has_text="PY-EFFECT").last
    expect(out).to_contain_text("Mary", timeout=30_000)
    printed = float(re.search(r"PY-EFFECT (\S+)", out.inner_text()).group(1))
    assert printed == after

    # A hostile "word" is shown as text and runs nothing.
    evil = "<img src=x onerror=alert(1)>"
    adder.click()
    adder.fill(evil)
    adder.press("Enter")
    chip = page.locator(".ewe-chips[data-set='targ2'] .ewe-chip.ewe-oov .ewe-word").last
    expect(chip).to_have_text(evil, timeout=20_000)
    assert page.locator(".embias-word-set-editor img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []
    RESULTS.mkdir(exist_ok=True)
    page.locator(".jp-Notebook").screenshot(path=str(RESULTS / "quickstart.png"))
    assert not [e for e in page.errors if "embias" in e.lower() or "ewe" in e.lower()], page.errors
