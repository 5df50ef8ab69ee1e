"""Real browser: the WEAT explorer in JupyterLab, used as a person would, in the
Light and Dark themes: type a word and see Python's new effect size drawn; rename
with Enter, cancel with Escape; click a suggestion; undo; empty a set and see the
old result cleared; pick another test; export CSV/SVG/PNG and read the files
back; every text element readable (WCAG AA contrast); user text stays text."""

from __future__ import annotations

import csv
import io
import re
import time

import pytest

from embias_widgets.formatting import format_value

from .conftest import (
    RESULTS,
    check_contrast,
    lab_cmd,
    open_notebook,
    python_notebook,
    run_code,
    screenshot_widgets,
    set_theme,
)

pytestmark = pytest.mark.browser
WIDGETS = ".embias-word-set-editor, .embias-effect-size-bars"
PRINT_EFFECT = 'print("PY-EFFECT", repr(explorer.result.effect_size), explorer.result.items["targ2"][-1])'


def kernel_effect(page):
    """Rerun the last cell and read what the kernel holds (waits until its printed line changes)."""
    from playwright.sync_api import expect

    outputs = page.locator(".jp-OutputArea-output", has_text="PY-EFFECT")
    old = outputs.last.inner_text() if outputs.count() else None
    run_code(page, PRINT_EFFECT)
    out = outputs.last
    expect(out).to_be_visible(timeout=30_000)
    if old is not None:
        expect(out).not_to_have_text(old, timeout=30_000)
    return out.inner_text()


def download(page, button):
    with page.expect_download(timeout=20_000) as info:
        button.click()
    dl = info.value
    return dl.suggested_filename, dl.path().read_bytes()


def test_explorer_as_a_person_uses_it(lab_server, page, timings):
    from playwright.sync_api import expect

    open_notebook(page, lab_server, "quickstart.ipynb", timings)
    set_theme(page, "light")
    t1 = time.monotonic()
    lab_cmd(page, "notebook:run-all-cells")
    bars = page.locator(".embias-effect-size-bars").first
    editor = page.locator(".embias-word-set-editor").first
    expect(bars).to_have_attribute("data-effect-size", re.compile(r"^1\.70"), timeout=90_000)
    expect(page.locator(".vega-embed").first).to_be_visible(timeout=90_000)  # altair chart drew
    timings["quickstart_run_all_to_widgets_s"] = round(time.monotonic() - t1, 2)
    expect(bars.locator(".esb-title")).to_have_text(re.compile(r"^WEAT 6: Male vs female names with career"))
    expect(bars.locator(".esb-value")).to_contain_text("α = 0.01")  # one default level on every surface
    before = float(bars.get_attribute("data-effect-size"))
    value_text = bars.locator(".esb-value")
    expect(value_text).to_contain_text(f"d = {format_value(before, 'effect')}")

    # Light theme: every text readable, with the help panel open; screenshots.
    editor.locator(".embias-help-button").click()
    expect(editor.locator(".embias-help")).to_contain_text("Caliskan")
    check_contrast(page, WIDGETS, "weat explorer", "light")
    screenshot_widgets(page, WIDGETS, "weat", "light")
    editor.locator(".embias-help-button").click()

    # Type a female name into Target Y: JS -> trait -> Python reruns -> bars redraw.
    adder = editor.locator(".ewe-add[data-set='targ2']")
    adder.click()
    adder.press_sequentially("Mary", delay=20)
    t2 = time.monotonic()
    adder.press("Enter")
    expect(bars).not_to_have_attribute("data-effect-size", str(before), timeout=20_000)
    timings["weat_enter_to_redraw_s"] = round(time.monotonic() - t2, 3)
    expect(editor.locator(".ewe-chips[data-set='targ2'] .ewe-chip[data-word='Mary']")).to_have_count(1)
    after = float(bars.get_attribute("data-effect-size"))
    expect(value_text).to_contain_text(f"d = {format_value(after, 'effect')}")
    expect(bars.locator("rect.esb-wordbar[data-word='Mary']")).to_have_count(1)
    printed = kernel_effect(page)
    assert "Mary" in printed and float(re.search(r"PY-EFFECT (\S+)", printed).group(1)) == after

    # Hover a word's bar: its s(w) and both cosine terms, as Python sent them.
    bars.locator("rect.esb-wordbar[data-word='Mary']").hover()
    tip = bars.locator(".esb-tooltip")
    expect(tip).to_be_visible()
    association = float(bars.locator("rect.esb-wordbar[data-word='Mary']").get_attribute("data-association"))
    expect(tip).to_contain_text(f"s(w, A, B) = {association:+.4f}")
    expect(tip).to_contain_text("mean cos(w, Career)")

    # Rename with Enter (applies at once); Escape cancels an edit.
    category = editor.locator(".ewe-category[data-set='attr1']")
    category.click()
    category.fill("Work")
    category.press("Enter")
    expect(bars.locator(".esb-axis-title")).to_contain_text("cos(w, Work)", timeout=10_000)
    category.click()
    category.fill("Nope")
    category.press("Escape")
    expect(category).to_have_value("Work")
    page.wait_for_timeout(300)
    expect(bars.locator(".esb-axis-title")).to_contain_text("cos(w, Work)")
    # a long category name shows in full: its box grows instead of hiding text
    long_name = "Family, home, children and the relatives one visits on holidays"
    family = editor.locator(".ewe-category[data-set='attr2']")
    family.click()
    family.fill(long_name)
    family.press("Enter")
    expect(bars.locator(".embias-legend")).to_contain_text(long_name, timeout=10_000)
    hidden = family.evaluate("(e) => [e.scrollHeight - e.clientHeight, e.scrollWidth - e.clientWidth]")
    assert max(hidden) <= 1, hidden

    # A misspelt name is struck through; clicking its suggestion replaces it; Undo brings it back.
    adder = editor.locator(".ewe-add[data-set='targ1']")
    adder.click()
    adder.press_sequentially("Jonh", delay=20)
    adder.press("Enter")
    oov = editor.locator(".ewe-chip.ewe-oov[data-word='Jonh']")
    expect(oov).to_have_count(1, timeout=20_000)
    oov.locator("button.ewe-suggest", has_text=re.compile(r"^john$")).click()
    # "john" beside "John" under a lowercasing model is one item: one chip, marked merged, counted once
    merged = editor.locator(".ewe-chips[data-set='targ1'] .ewe-chip.ewe-merged[data-word='John']")
    expect(merged).to_have_count(1, timeout=20_000)
    expect(merged.locator(".ewe-variant")).to_have_text("= john")
    expect(editor.locator(".ewe-chips[data-set='targ1'] .ewe-chip[data-word='john']")).to_have_count(0)
    expect(editor.locator(".ewe-chip[data-word='Jonh']")).to_have_count(0)
    expect(bars.locator("rect.esb-wordbar[data-word='John']")).to_have_count(1)
    expect(bars.locator("rect.esb-wordbar[data-word='john']")).to_have_count(0)
    editor.locator(".ewe-undo").click()
    expect(editor.locator(".ewe-chip.ewe-oov[data-word='Jonh']")).to_have_count(1, timeout=20_000)

    # Export: file names after test and model; the CSV holds Python's numbers.
    name, data = download(page, bars.locator("button[data-export='csv']"))
    assert name == "weat6_glove-6b-50d.csv"
    table = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    drawn = {r.get_attribute("data-word"): float(r.get_attribute("data-association"))
             for r in bars.locator("rect.esb-wordbar").all()}
    assert {r["word"]: float(r["association"]) for r in table} == drawn
    d_now = float(bars.get_attribute("data-effect-size"))
    assert {float(r["effect_size"]) for r in table} == {d_now}
    mary = next(r for r in table if r["word"] == "Mary")
    assert float(mary["cos_a"]) - float(mary["cos_b"]) == pytest.approx(float(mary["association"]), abs=1e-12)
    name, data = download(page, bars.locator("button[data-export='svg']"))
    assert name == "weat6_glove-6b-50d.svg"
    svg = data.decode("utf-8")
    assert svg.startswith("<svg") and ">Mary<" in svg and "var(--" not in svg
    name, data = download(page, bars.locator("button[data-export='png']"))
    assert name == "weat6_glove-6b-50d.png" and data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2_000

    # Empty attribute set B: the error shows and the old d, p and bars are cleared.
    removes = editor.locator(".ewe-chips[data-set='attr2'] .ewe-remove")
    while removes.count():
        n = removes.count()
        removes.first.click()
        expect(removes).to_have_count(n - 1, timeout=10_000)
    expect(bars).to_have_attribute("data-stale", "true", timeout=20_000)
    expect(bars).to_have_attribute("data-effect-size", "")
    expect(bars.locator(".embias-error")).to_contain_text("empty")
    expect(bars.locator("rect.esb-bar, rect.esb-wordbar")).to_have_count(0)
    expect(value_text).to_contain_text("not computed")
    editor.locator(".embias-help-button").click()
    check_contrast(page, WIDGETS, "weat explorer (error shown)", "light")
    editor.locator(".embias-help-button").click()
    editor.locator(".ewe-reset").click()
    expect(bars).to_have_attribute("data-stale", "false", timeout=20_000)
    expect(bars).to_have_attribute("data-effect-size", re.compile(r"^1\.70"))

    # Pick another bundled test: its published sets, its title, Python's d.
    editor.locator("select.ewe-test-picker").select_option("weat1")
    expect(bars.locator(".esb-title")).to_have_text(re.compile(r"^WEAT 1: Flowers vs insects"), timeout=30_000)
    expect(editor.locator(".ewe-category[data-set='targ1']")).to_have_value("Flowers")
    # weat1 is sampled: a provisional p comes first, then the full-precision p (busy until then)
    expect(bars).to_have_attribute("data-p-provisional", "false", timeout=30_000)
    expect(bars).to_have_attribute("data-busy", "false", timeout=30_000)
    printed = kernel_effect(page)
    expect(bars).to_have_attribute("data-effect-size", re.search(r"PY-EFFECT (\S+)", printed).group(1))

    # A hostile "word" is shown as text and runs nothing.
    evil = "<img src=x onerror=alert(1)>"
    adder = editor.locator(".ewe-add[data-set='targ2']")
    adder.click()
    adder.fill(evil)
    adder.press("Enter")
    chip = editor.locator(".ewe-chips[data-set='targ2'] .ewe-chip.ewe-oov .ewe-word").last
    expect(chip).to_have_text(evil, timeout=20_000)
    assert page.locator(".embias-word-set-editor img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []
    expect(bars).to_have_attribute("data-busy", "false", timeout=30_000)  # the recompute drawn, not dimmed

    # Dark theme: the same widgets, every text readable; screenshots.
    set_theme(page, "dark")
    editor.locator(".embias-help-button").click()
    check_contrast(page, WIDGETS, "weat explorer", "dark")
    screenshot_widgets(page, WIDGETS, "weat", "dark")
    editor.locator(".embias-help-button").click()

    # Narrow window: the four sets wrap instead of squeezing.
    page.set_viewport_size({"width": 1000, "height": 1000})
    page.wait_for_timeout(300)
    tops = {round(c.bounding_box()["y"]) for c in editor.locator(".ewe-column").all()}
    assert len(tops) >= 2
    screenshot_widgets(page, ".embias-word-set-editor", "weat-editor-1000px", "dark")
    set_theme(page, "light")
    RESULTS.mkdir(exist_ok=True)
    assert not [e for e in page.errors if "embias" in e.lower() or "ewe" in e.lower()], page.errors


def test_seat_shows_one_row_per_word_expandable_to_its_sentences(lab_server, page, timings):
    """Issue 18: SEAT draws a row per word (the mean s of its sentences, with their range), never a label cut
    mid-word; clicking a word opens its sentences; an edit redraws the rows."""
    import nbformat
    from playwright.sync_api import expect

    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "from embias_widgets.widgets import WeatExplorer\n"
        "explorer = WeatExplorer('sent-weat6', model='cbow-glove-6b-50d', n_samples=2_000)\nexplorer")]
    nbformat.write(nb, lab_server["root"] / "seat_browser_test.ipynb")
    open_notebook(page, lab_server, "seat_browser_test.ipynb", timings)
    lab_cmd(page, "notebook:run-all-cells")
    bars = page.locator(".embias-effect-size-bars").first
    groups = bars.locator("rect.esb-groupbar")
    expect(groups.first).to_be_visible(timeout=90_000)
    assert groups.count() == 16  # 8 + 8 names, not one bar per sentence
    assert bars.locator("rect.esb-sentencebar").count() == 0
    words = groups.evaluate_all("ns => ns.map(n => n.dataset.word)")
    for label in bars.locator("text.esb-group").evaluate_all("ns => ns.map(n => n.textContent)"):
        shown = label.lstrip("▸▾ ").replace("…", "").strip()
        assert shown in words, f"label {label!r} cuts a word"
    john = bars.locator("text.esb-group[data-word='John']")
    john.click()
    opened = bars.locator("rect.esb-sentencebar[data-word='John']")
    expect(opened.first).to_be_visible(timeout=10_000)
    for text in bars.locator("text.esb-sentence").evaluate_all("ns => ns.map(n => n.textContent)"):
        assert "John" in text  # a shortened sentence keeps its slot word
    expect(john).to_have_attribute("aria-expanded", "true")
    mean = float(bars.locator("rect.esb-groupbar[data-word='John']").get_attribute("data-mean"))
    values = [float(v) for v in opened.evaluate_all("ns => ns.map(n => n.dataset.association)")]
    assert abs(mean - sum(values) / len(values)) < 1e-9
    editor = page.locator(".embias-word-set-editor").first
    adder = editor.locator(".ewe-add[data-set='targ2']")
    adder.click()
    adder.press_sequentially("Mary", delay=20)
    t0 = time.monotonic()
    adder.press("Enter")
    expect(bars.locator("rect.esb-groupbar[data-word='Mary']")).to_have_count(1, timeout=30_000)
    timings["seat_enter_to_word_row_s"] = round(time.monotonic() - t0, 3)
    RESULTS.mkdir(exist_ok=True)
    bars.screenshot(path=str(RESULTS / "seat_per_word.png"))
