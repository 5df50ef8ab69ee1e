"""Real browser: edit a pair and a word group of the relation-projection widget in
JupyterLab and see the points Python recomputed; user text stays text."""

from __future__ import annotations

import re
import time

import pytest

from .conftest import RESULTS, lab_cmd, open_notebook, run_last_cell

pytestmark = pytest.mark.browser


def kernel_ripa(page, word):
    """Rerun the notebook's last cell and read the RIPA it prints for ``word``."""
    from playwright.sync_api import expect

    run_last_cell(page)
    out = page.locator(".jp-OutputArea-output", has_text="RIPA nurse").last
    expect(out).to_contain_text(f"RIPA {word} ", timeout=30_000)
    return float(re.search(rf"RIPA {re.escape(word)} (\S+)", out.inner_text()).group(1))


def test_edits_redraw_points_with_python_values(lab_server, page, timings):
    from playwright.sync_api import expect

    open_notebook(page, lab_server, "relation_projection.ipynb", timings)
    t1 = time.monotonic()
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(".embias-relation-projection").first
    nurse = widget.locator("circle.erp-point[data-word='nurse']")
    expect(nurse).to_have_count(1, timeout=120_000)
    timings["relation_run_all_to_widget_s"] = round(time.monotonic() - t1, 2)
    expect(widget.locator("circle.erp-point")).to_have_count(26)  # 10 pairs x 2 + 6 words
    before = float(nurse.get_attribute("data-ripa"))
    assert before == pytest.approx(kernel_ripa(page, "nurse"), abs=1e-6)

    # Replace the first word of pair 3 (she -> queen): b changes, so does nurse's RIPA.
    revision = widget.get_attribute("data-revision")
    box = widget.locator(".erp-pair-word[data-pair='2'][data-side='0']")
    expect(box).to_have_value("she")
    box.fill("")
    t2 = time.monotonic()
    box.press_sequentially("queen", delay=20)
    box.press("Enter")
    expect(widget).not_to_have_attribute("data-revision", revision, timeout=20_000)
    timings["relation_pair_edit_to_redraw_s"] = round(time.monotonic() - t2, 3)
    after = float(nurse.get_attribute("data-ripa"))
    assert after != before
    assert after == pytest.approx(kernel_ripa(page, "nurse"), abs=1e-6)
    expect(widget.locator("circle.erp-point[data-word='queen'][data-group='pairs: first']")).to_have_count(1)

    # Add a word to a group: a new point, at the position Python computed.
    adder = widget.locator(".erp-add-word[data-group='neutral']")
    adder.click()
    adder.press_sequentially("curtain", delay=20)
    adder.press("Enter")
    curtain = widget.locator("circle.erp-point[data-word='curtain']")
    expect(curtain).to_have_count(1, timeout=20_000)
    assert float(curtain.get_attribute("data-ripa")) == pytest.approx(kernel_ripa(page, "curtain"), abs=1e-6)

    # A hostile "word" is shown as text, flagged unknown, and runs nothing.
    evil = "<img src=x onerror=alert(1)>"
    adder.click()
    adder.fill(evil)
    adder.press("Enter")
    chip = widget.locator(".erp-chip.erp-oov .erp-word")
    expect(chip).to_have_text(evil, timeout=20_000)
    assert widget.locator("img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []
    RESULTS.mkdir(exist_ok=True)
    widget.screenshot(path=str(RESULTS / "relation_projection.png"))
    assert not [e for e in page.errors if "erp" in e.lower() or "relation" in e.lower()], page.errors
