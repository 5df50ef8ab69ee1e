"""Real browser: edit a pair and a word group of the relation-projection widget in
JupyterLab and see the points Python recomputed; Escape cancels; the axis keeps
its range; labels do not overlap; export; Light and Dark readable; user text stays text."""

from __future__ import annotations

import csv
import io
import re
import time

import pytest

from .conftest import RESULTS, check_contrast, lab_cmd, open_notebook, run_last_cell, screenshot_widgets, set_theme

pytestmark = pytest.mark.browser
WIDGET = ".embias-relation-projection"


def kernel_ripa(page, word):
    """Rerun the notebook's last cell and read the RIPA it prints for ``word``."""
    from playwright.sync_api import expect

    run_last_cell(page)
    out = page.locator(".jp-OutputArea-output", has_text="RIPA nurse").last
    expect(out).to_contain_text(f"RIPA {word} ", timeout=30_000)
    return float(re.search(rf"RIPA {re.escape(word)} (\S+)", out.inner_text()).group(1))


def overlapping_labels(widget) -> list[tuple[str, str]]:
    """Pairs of drawn point labels whose boxes intersect."""
    boxes = [(t.text_content(), t.bounding_box()) for t in widget.locator("text.erp-label").all()]
    hits = []
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            if (ba["x"] < bb["x"] + bb["width"] and bb["x"] < ba["x"] + ba["width"]
                    and ba["y"] < bb["y"] + bb["height"] and bb["y"] < ba["y"] + ba["height"]):
                hits.append((a, b))
    return hits


def test_edits_redraw_points_with_python_values(lab_server, page, timings):
    from playwright.sync_api import expect

    open_notebook(page, lab_server, "relation_projection.ipynb", timings)
    set_theme(page, "light")
    t1 = time.monotonic()
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(WIDGET).first
    nurse = widget.locator("circle.erp-point[data-word='nurse']")
    expect(nurse).to_have_count(1, timeout=120_000)
    timings["relation_run_all_to_widget_s"] = round(time.monotonic() - t1, 2)
    expect(widget.locator("circle.erp-point")).to_have_count(26)  # 10 pairs x 2 + 6 words
    before = float(nurse.get_attribute("data-ripa"))
    assert before == pytest.approx(kernel_ripa(page, "nurse"), abs=1e-6)
    assert overlapping_labels(widget) == []
    expect(widget.locator(".erp-legend")).to_contain_text("pairs: first")
    # issue 18: the legend names the colours the dots are drawn in (palette.json), in the notebook's words
    from embias_widgets.palette import PAIR_COLORS, color_name

    words = f"{color_name(PAIR_COLORS['pairs: first'])} and {color_name(PAIR_COLORS['pairs: second'])} dots"
    assert words == "crimson and grey dots"
    expect(widget.locator(".erp-legend-pairs")).to_contain_text(words)
    fills = {c.get_attribute("fill") for c in widget.locator("circle.erp-point").all()}
    assert set(PAIR_COLORS.values()) <= fills, fills  # the named colours are the ones drawn
    widget.locator(".embias-help-button").click()
    expect(widget.locator(".embias-help")).to_contain_text("Ethayarajh")
    # issue 28: each point's bootstrap interval over the pairs is a whisker through the dot, inside the plot
    expect(widget.locator("line.erp-whisker")).to_have_count(26)
    whisker = widget.locator("line.erp-whisker[data-word='nurse']")
    x1, x2 = (float(whisker.get_attribute(k)) for k in ("x1", "x2"))
    assert x1 <= float(nurse.get_attribute("cx")) <= x2
    plot_width = float(widget.locator("svg.erp-plot").get_attribute("width"))
    assert all(0 <= float(w.get_attribute(k)) <= plot_width for w in widget.locator("line.erp-whisker").all()
               for k in ("x1", "x2"))
    expect(widget.locator(".erp-legend-whisker")).to_contain_text("bootstrap interval")
    check_contrast(page, WIDGET, "relation projection", "light")
    screenshot_widgets(page, WIDGET, "relation", "light")
    widget.locator(".embias-help-button").click()
    domain = widget.get_attribute("data-domain")

    # Escape cancels a pair edit: nothing is sent.
    revision = widget.get_attribute("data-revision")
    box = widget.locator(".erp-pair-word[data-pair='2'][data-side='0']")
    expect(box).to_have_value("she")
    box.fill("zzz")
    box.press("Escape")
    expect(box).to_have_value("she")
    page.wait_for_timeout(500)
    expect(widget).to_have_attribute("data-revision", revision)

    # Replace the first word of pair 3 (she -> queen) with Enter: b changes, so does nurse's RIPA.
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
    ripas = [float(c.get_attribute("data-ripa")) for c in widget.locator("circle.erp-point").all()]
    ripas += [float(w.get_attribute(k)) for w in widget.locator("line.erp-whisker").all()
              for k in ("data-low", "data-high")]  # the axis holds every interval too
    low, high = map(float, domain.split(","))
    if all(low <= r <= high for r in ripas):  # every point and interval still fits: the axis did not move
        expect(widget).to_have_attribute("data-domain", domain)

    # Add a word to a group: a new point, at the position Python computed; Undo removes it.
    adder = widget.locator(".erp-add-word[data-group='neutral']")
    adder.click()
    adder.press_sequentially("curtain", delay=20)
    adder.press("Enter")
    curtain = widget.locator("circle.erp-point[data-word='curtain']")
    expect(curtain).to_have_count(1, timeout=20_000)
    assert float(curtain.get_attribute("data-ripa")) == pytest.approx(kernel_ripa(page, "curtain"), abs=1e-6)
    assert overlapping_labels(widget) == []

    # Export: the CSV holds the drawn values; the SVG and PNG are real files named after the model.
    with page.expect_download() as info:
        widget.locator("button[data-export='csv']").click()
    assert info.value.suggested_filename == "ripa_glove-6b-50d.csv"
    rows = list(csv.DictReader(io.StringIO(info.value.path().read_text())))
    drawn = {(c.get_attribute("data-group"), c.get_attribute("data-word")): float(c.get_attribute("data-ripa"))
             for c in widget.locator("circle.erp-point").all()}
    assert {(r["group"], r["word"]): float(r["ripa"]) for r in rows} == drawn
    with page.expect_download() as info:
        widget.locator("button[data-export='svg']").click()
    svg = info.value.path().read_text()
    assert info.value.suggested_filename == "ripa_glove-6b-50d.svg" and svg.startswith("<svg") and ">curtain<" in svg
    with page.expect_download() as info:
        widget.locator("button[data-export='png']").click()
    assert info.value.path().read_bytes()[:4] == b"\x89PNG"

    widget.locator(".erp-undo").click()
    expect(curtain).to_have_count(0, timeout=20_000)

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

    set_theme(page, "dark")
    widget.locator(".embias-help-button").click()
    check_contrast(page, WIDGET, "relation projection", "dark")
    screenshot_widgets(page, WIDGET, "relation", "dark")
    set_theme(page, "light")
    RESULTS.mkdir(exist_ok=True)
    assert not [e for e in page.errors if "erp" in e.lower() or "relation" in e.lower()], page.errors
