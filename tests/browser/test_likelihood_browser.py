"""Real browser: the paired-likelihood table in JupyterLab shows Python's scores,
marks the preferred sentence, scores a pair typed into it, and keeps text as text."""

from __future__ import annotations

import csv
import io
import json
import re
import time

import nbformat
import pytest

from embias_widgets.formatting import format_value

from .conftest import (
    RESULTS,
    check_contrast,
    lab_cmd,
    next_frames,
    open_notebook,
    python_notebook,
    run_last_cell,
    screenshot_widgets,
    set_left_area,
    set_theme,
)

WIDGET = ".embias-paired-likelihood-table"

pytestmark = pytest.mark.browser


def _write_notebook(root, model_dir) -> str:
    nb = python_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import json, os\n"
            "os.environ['HF_HUB_OFFLINE'] = '1'\n"
            "from embias_widgets.models.language_models.loading import load_likelihood_model\n"
            "from embias_widgets.widgets import PairedLikelihoodTable\n"
            f"scorer = load_likelihood_model({str(model_dir)!r}, device='cpu', progress=False)\n"
            "table = PairedLikelihoodTable([('She is a nurse.', 'He is a nurse.', 'gender')], model=scorer)\n"
            "table"
        ),
        nbformat.v4.new_code_cell(
            "print('PY-ROWS', json.dumps([[r['stereo']['text'], r['stereo']['score'], r['anti']['score'], "
            "r['preferred']] for r in table.rows]))"
        ),
    ]
    name = "likelihood_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


def _py_rows(page):
    from playwright.sync_api import expect

    out = page.locator(".jp-OutputArea-output", has_text="PY-ROWS").last
    expect(out).to_be_visible(timeout=30_000)
    return json.loads(re.search(r"PY-ROWS (.*)", out.inner_text()).group(1))


def _check_row(page, index, stereo_score, anti_score, preferred):
    from playwright.sync_api import expect

    row = page.locator(f".embias-paired-likelihood-table tr.plt-row[data-index='{index}']")
    expect(row.locator(".plt-stereo-score")).to_have_text(format_value(stereo_score, "number"), timeout=30_000)
    expect(row.locator(".plt-anti-score")).to_have_text(format_value(anti_score, "number"))
    expect(row).to_have_attribute("data-preferred", preferred)
    marked = row.locator("td.plt-preferred")
    expect(marked).to_have_count(1)
    expect(marked).to_have_attribute("data-role", preferred)
    expect(marked.locator(".plt-mark")).to_have_text("preferred")


def test_pair_scores_appear_and_preferred_side_is_marked(lab_server, page, timings):
    from _tiny_lm import tiny_mlm_dir
    from playwright.sync_api import expect

    name = _write_notebook(lab_server["root"], tiny_mlm_dir())
    open_notebook(page, lab_server, name, timings)
    set_theme(page, "light")
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(".embias-paired-likelihood-table").first
    expect(widget.locator("tr.plt-row")).to_have_count(1, timeout=90_000)
    ((text, stereo, anti, preferred),) = _py_rows(page)
    assert text == "She is a nurse."
    _check_row(page, 0, stereo, anti, preferred)
    # the differing word is highlighted; the summary bar has its 50 line
    expect(widget.locator("td.plt-stereo .plt-token.plt-modified")).to_have_text("She")
    expect(widget.locator("line.plt-reference")).to_have_attribute("data-reference", "50")
    expect(widget.locator(".plt-summary-text")).to_contain_text("CPS bias score (all pairs)")
    # the score's Wilson interval (a whisker on the bar) and the sign test of the decided pairs
    expect(widget.locator(".plt-summary-text")).to_contain_text("95% Wilson interval [")
    expect(widget.locator(".plt-summary-text")).to_contain_text(re.compile(r"sign test p|every pair a tie"))
    expect(widget.locator("svg.plt-summary g.plt-whisker")).to_have_count(1)

    # Enter in the first box moves on; it never adds a half-empty pair.
    widget.locator(".plt-new-stereo").press_sequentially("Old people are slow.", delay=5)
    widget.locator(".plt-new-stereo").press("Enter")
    expect(widget.locator(".plt-new-anti")).to_be_focused()
    page.wait_for_timeout(300)
    expect(widget.locator("tr.plt-row")).to_have_count(1)
    # Type a new pair: JS -> pairs trait -> Python scores it -> a new row is drawn.
    widget.locator(".plt-new-anti").press_sequentially("Young people are slow.", delay=5)
    widget.locator(".plt-new-type").fill("age")
    t0 = time.monotonic()
    widget.locator(".plt-new-type").press("Enter")
    expect(widget.locator("tr.plt-row")).to_have_count(2, timeout=30_000)
    timings["likelihood_enter_to_row_s"] = round(time.monotonic() - t0, 3)
    for box in ("stereo", "anti", "type"):  # every box is empty again, the bias type too
        expect(widget.locator(f".plt-new-{box}")).to_have_value("")
    run_last_cell(page)
    page.wait_for_timeout(500)
    rows = _py_rows(page)
    assert rows[1][0] == "Old people are slow."
    _check_row(page, 1, rows[1][1], rows[1][2], rows[1][3])

    # A pair that is not a minimal edit is scored with a warning beside it.
    widget.locator(".plt-new-stereo").fill("Men fix old cars.")
    widget.locator(".plt-new-anti").fill("Women bake bread.")
    widget.locator(".plt-add").click()
    expect(widget.locator("tr.plt-row")).to_have_count(3, timeout=30_000)
    expect(widget.locator("tr.plt-row[data-index='2'] .plt-pair-warning")).to_contain_text("not a minimal edit")
    expect(widget.locator(".plt-pair-warning")).to_have_count(1)

    # Editing a pair: Enter saves, Escape cancels; the edit boxes are wide enough to read.
    widget.locator("tr.plt-row[data-index='2'] .plt-edit").click()
    box = widget.locator("tr.plt-editing input[data-field='stereo']")
    assert box.bounding_box()["width"] >= 250
    box.fill("Nobody is here.")
    box.press("Escape")
    expect(widget.locator("tr.plt-row[data-index='2'] td.plt-stereo")).to_contain_text("Men fix old cars.")

    # Export: the CSV has the drawn scores; the figure as SVG and PNG; the pairs as JSON.
    with page.expect_download() as info:
        widget.locator("button[data-export='csv']").click()
    assert info.value.suggested_filename.endswith("_cps.csv")
    exported = list(csv.DictReader(io.StringIO(info.value.path().read_text())))
    assert [r["sent_more"] for r in exported] == ["She is a nurse.", "Old people are slow.", "Men fix old cars."]
    assert float(exported[1]["more_score"]) == rows[1][1] and float(exported[1]["less_score"]) == rows[1][2]
    assert "not a minimal edit" in exported[2]["warning"]
    with page.expect_download() as info:
        widget.locator("button[data-export='svg']").click()
    assert info.value.suggested_filename.endswith(".svg") and info.value.path().read_text().startswith("<svg")
    with page.expect_download() as info:
        widget.locator("button[data-export='json']").click()
    assert json.loads(info.value.path().read_text())[1] == {
        "stereo": "Old people are slow.", "anti": "Young people are slow.", "bias_type": "age"}

    widget.locator(".embias-help-button").click()
    expect(widget.locator(".embias-help")).to_contain_text("Nangia")
    check_contrast(page, WIDGET, "paired likelihood table", "light")
    screenshot_widgets(page, WIDGET, "likelihood", "light")
    set_theme(page, "dark")
    check_contrast(page, WIDGET, "paired likelihood table", "dark")
    screenshot_widgets(page, WIDGET, "likelihood", "dark")
    set_theme(page, "light")
    widget.locator(".embias-help-button").click()

    # Undo removes the last added pair.
    widget.locator(".plt-undo").click()
    expect(widget.locator("tr.plt-row")).to_have_count(2, timeout=30_000)

    # A hostile sentence is drawn as text and runs nothing.
    evil = "<img src=x onerror=alert(1)> is here."
    widget.locator(".plt-new-stereo").fill(evil)
    widget.locator(".plt-new-anti").fill("Nothing is here.")
    widget.locator(".plt-add").click()
    expect(widget.locator("tr.plt-row")).to_have_count(3, timeout=30_000)
    assert widget.locator("img").count() == 0
    expect(widget.locator("tr.plt-row[data-index='2'] td.plt-stereo")).to_contain_text("img")
    page.wait_for_timeout(300)
    assert page.dialogs == []
    RESULTS.mkdir(exist_ok=True)
    widget.screenshot(path=str(RESULTS / "paired_likelihood_table.png"))
    assert not [e for e in page.errors if "plt" in e.lower() or "likelihood" in e.lower()], page.errors


def _write_many_pairs_notebook(root, model_dir) -> str:
    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import os\n"
        "os.environ['HF_HUB_OFFLINE'] = '1'\n"
        "from embias_widgets.models.language_models.loading import load_likelihood_model\n"
        "from embias_widgets.widgets import PairedLikelihoodTable\n"
        f"scorer = load_likelihood_model({str(model_dir)!r}, device='cpu', progress=False)\n"
        "keys = ('nurse%1:18:00::', 'nurse%1:18:01::')\n"
        "pairs = [{'stereo': f'The nurse number {i} said she was tired.', 'anti': f'The nurse number {i} said he was "
        "tired.', 'bias_type': 'gender', 'sense_key': keys[i % 2]} for i in range(90)]\n"
        "PairedLikelihoodTable(pairs, model=scorer)"
    )]
    name = "likelihood_pages_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


def _column_widths(widget) -> list[float]:
    widths = "ths => ths.map(th => th.getBoundingClientRect().width)"
    return widget.locator("table.plt-table thead th").evaluate_all(widths)


def test_ninety_pairs_in_pages_with_columns_that_stay(lab_server, page, timings):
    """90 sense pairs: 50 rows a page with Prev/Next and "rows 1–50 of 90" (was one 5,357 px table); the columns
    keep their widths when a row opens for editing; grouped by sense key, each key sits on its bar's line; the
    summary bar is drawn at the widget's width down to a 360 px screen."""
    from _tiny_lm import tiny_mlm_dir
    from playwright.sync_api import expect

    open_notebook(page, lab_server, _write_many_pairs_notebook(lab_server["root"], tiny_mlm_dir()), timings)
    set_theme(page, "light")
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(WIDGET).first
    rows = widget.locator("tr.plt-row")
    expect(rows).to_have_count(50, timeout=120_000)
    expect(widget).to_have_attribute("data-n-rows", "90")
    text = widget.locator(".plt-page-text")
    expect(text).to_have_text("rows 1–50 of 90")
    expect(widget.locator(".plt-prev")).to_be_disabled()
    timings["likelihood_90_pairs_page_height_px"] = round(widget.bounding_box()["height"])
    widget.locator(".plt-next").click()
    expect(text).to_have_text("rows 51–90 of 90")
    expect(rows).to_have_count(40)
    expect(rows.first).to_have_attribute("data-index", "50")
    expect(widget.locator(".plt-next")).to_be_disabled()
    widget.locator(".plt-prev").click()
    expect(rows.first).to_have_attribute("data-index", "0")

    # columns do not jump while editing (fixed layout): the header widths are the same with an editor open
    before = _column_widths(widget)
    rows.nth(3).locator(".plt-edit").click()
    expect(widget.locator("tr.plt-editing")).to_have_count(1)
    after = _column_widths(widget)
    assert len(before) == 8 and max(abs(a - b) for a, b in zip(before, after, strict=True)) < 0.5, (before, after)
    widget.locator("tr.plt-editing .plt-cancel").click()
    expect(widget.locator("tr.plt-editing")).to_have_count(0)

    # grouped by sense key: back to the first page, and every key on the same line as its own bar
    widget.locator(".plt-next").click()
    expect(text).to_have_text("rows 51–90 of 90")
    widget.locator("select.plt-group-by").select_option("sense_key")
    expect(text).to_have_text("rows 1–50 of 90", timeout=30_000)
    expect(widget.locator(".plt-group")).to_have_count(2, timeout=30_000)
    for line in widget.locator(".plt-group").all():
        name, bar = line.locator(".plt-group-name").bounding_box(), line.locator("svg.plt-group-bar").bounding_box()
        assert name["y"] < bar["y"] + bar["height"] and bar["y"] < name["y"] + name["height"], (name, bar)
        assert bar["x"] >= name["x"] + name["width"] - 0.5

    # the summary bar follows the widget's width, its end ticks inside it
    for width in (1400, 360):
        page.set_viewport_size({"width": width, "height": 1000})
        set_left_area(page, False)
        widget.scroll_into_view_if_needed()
        next_frames(page)
        box = widget.bounding_box()
        svg = widget.locator("svg.plt-summary")
        drawn = float(svg.get_attribute("width"))
        assert drawn <= box["width"] + 0.5, (width, drawn, box)
        for tick in svg.locator("text.plt-tick").all():
            t = tick.bounding_box()
            assert box["x"] - 0.5 <= t["x"] and t["x"] + t["width"] <= box["x"] + box["width"] + 0.5, (width, t, box)
        if width == 1400:
            assert drawn == 420
    assert not [e for e in page.errors if "plt" in e.lower() or "likelihood" in e.lower()], page.errors
