"""Real browser: type a lemma into a sense selector in JupyterLab, pick a sense with the keyboard,
and see the sense-level bar redrawn with the value Python holds; glosses with markup stay text."""

from __future__ import annotations

import json
import re
import time

import nbformat
import pytest

from embias_widgets.formatting import format_value

from .conftest import RESULTS, TINY_SENSE_EXPLORER, lab_cmd, next_frames, open_notebook, python_notebook, run_last_cell

pytestmark = pytest.mark.browser

MARKUP = "<b>bold</b> <img src=x onerror=alert(1)> & <i>x</i>"

SETUP = '''
import numpy as np
from dataclasses import replace
from embias_widgets.stimuli import AssociationTestSpec, WordSet
from embias_widgets.stimuli.wordnet import load_wordnet
from embias_widgets.widgets.sense_explorer import SenseWeatExplorer
from embias_widgets.widgets.sense_selector import SenseSelector

wn = load_wordnet()
''' + TINY_SENSE_EXPLORER + "explorer\n"

MARKED = f'''
class Marked:
    """WordNet with every gloss replaced by markup (what a hostile sense file could hold)."""
    source = "markup test"
    is_key = staticmethod(wn.is_key)
    def senses(self, lemma, pos=None):
        return [replace(s, gloss={MARKUP!r}) for s in wn.senses(lemma, pos)]
    def sense(self, key):
        return replace(wn.sense(key), gloss={MARKUP!r})

marked = SenseSelector(label="markup", wordnet=Marked())
marked
'''

REPORT = (
    "print('PY-SENSE', repr(explorer.sense_bars.effect_size), repr(explorer.word_bars.effect_size), "
    "' '.join(explorer.selectors['targ2'].selected), ','.join(map(repr, explorer.sense_bars.shared_extent)))"
)


def _write_notebook(root) -> str:
    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.strip()) for c in (SETUP, MARKED, REPORT)]
    name = "sense_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


def test_pick_a_sense_and_see_pythons_bar(lab_server, page, timings):
    from playwright.sync_api import expect

    name = _write_notebook(lab_server["root"])
    open_notebook(page, lab_server, name, timings)
    lab_cmd(page, "notebook:run-all-cells")
    selectors = page.locator(".embias-sense-selector:not(.embias-sense-sets)")
    expect(selectors).to_have_count(5, timeout=120_000)
    sense_bar = page.locator(".embias-sense-sense-level[data-effect-size]")
    word_bar = page.locator(".embias-sense-word-level[data-effect-size]")
    expect(sense_bar).to_have_attribute("data-effect-size", re.compile(r"^-?\d"), timeout=60_000)
    before_sense = float(sense_bar.get_attribute("data-effect-size"))
    expect(page.locator(".jp-OutputArea-output", has_text="PY-SENSE")).to_be_visible(timeout=60_000)

    target_y = selectors.filter(has=page.locator(".ess-label", has_text="Target Y"))
    expect(target_y.locator(".ess-chip")).to_have_count(2)

    # issue 18: the explorer shows the WordNet source line, "?" and import/export once, not once per selector
    explorer_out = page.locator(".jp-OutputArea-output", has=page.locator(".embias-sense-sets"))
    expect(explorer_out.locator(".ess-source")).to_have_count(1)
    expect(explorer_out.get_by_text(re.compile(r"^WordNet 3\.0 \("))).to_have_count(1)
    expect(explorer_out.locator(".embias-sense-selector .embias-help-button:visible")).to_have_count(1)
    expect(explorer_out.locator("summary:visible", has_text="Import / export")).to_have_count(1)
    expect(explorer_out.locator(".embias-sense-sets summary")).to_have_text("Import / export JSON (all four sets)")
    expect(explorer_out.locator(".embias-sense-selector[data-tools='false']")).to_have_count(4)
    box = target_y.locator(".ess-input")
    box.click()
    t0 = time.monotonic()
    box.press_sequentially("nurse", delay=30)
    t_last_key = time.monotonic()
    verb = target_y.locator(".ess-option[data-item='nurse%2:29:00::']")
    expect(verb).to_be_visible(timeout=20_000)
    timings["sense_lemma_first_key_to_listed_s"] = round(time.monotonic() - t0, 3)
    timings["sense_lemma_last_key_to_listed_s"] = round(time.monotonic() - t_last_key, 3)
    expect(target_y.locator(".ess-option .ess-pos").nth(1)).to_have_text("noun")
    expect(verb.locator(".ess-gloss")).to_have_text("try to cure by special care of treatment, of an illness or injury")

    # keyboard: arrows to the verb sense, Enter picks it
    items = target_y.locator(".ess-option").evaluate_all("nodes => nodes.map(n => n.dataset.item)")
    for _ in range(items.index("nurse%2:29:00::") + 1):
        box.press("ArrowDown")
    expect(verb).to_have_class(re.compile(r"\bess-active\b"))
    t1 = time.monotonic()
    box.press("Enter")
    expect(target_y.locator(".ess-chip[data-item='nurse%2:29:00::']")).to_have_count(1, timeout=20_000)
    expect(sense_bar).not_to_have_attribute("data-effect-size", str(before_sense), timeout=20_000)
    timings["sense_pick_to_bar_redrawn_s"] = round(time.monotonic() - t1, 3)
    expect(verb).to_have_attribute("aria-selected", "true")
    after_sense = float(sense_bar.get_attribute("data-effect-size"))
    after_word = float(word_bar.get_attribute("data-effect-size"))
    expect(page.locator(".embias-sense-sense-level .esb-value")).to_contain_text(
        f"d = {format_value(after_sense, 'effect')}")
    expect(page.locator(".embias-sense-sense-level rect.esb-wordbar[data-word='nurse%2:29:00::']")).to_have_count(1)
    # issue 22 §4 (the lemma merge): a lemma counts once at the word level, however many of its senses are picked
    expect(page.locator(".embias-sense-word-level rect.esb-wordbar[data-word='nurse']")).to_have_count(1)

    # the kernel holds exactly the numbers the page shows
    run_last_cell(page)
    out = page.locator(".jp-OutputArea-output", has_text="PY-SENSE").last
    expect(out).to_contain_text("nurse%2:29:00::", timeout=30_000)
    _, py_sense, py_word, *_, py_extent = out.inner_text().split()
    assert float(py_sense) == after_sense and float(py_word) == after_word

    # issue 18: one x scale for both bar sets (equal axis extents), spanning both sets' values, equal ticks
    extents = [page.locator(f".embias-sense-{k}-level").get_attribute("data-word-domain") for k in ("sense", "word")]
    assert extents[0] == extents[1], extents
    lo, hi = map(float, extents[0].split(","))
    ext_lo, ext_hi = map(float, py_extent.split(","))
    assert lo <= ext_lo < ext_hi <= hi, (extents, py_extent)
    ticks = [page.locator(f".embias-sense-{k}-level svg.esb-words text.esb-tick").all_inner_texts()
             for k in ("sense", "word")]
    assert ticks[0] == ticks[1] and ticks[0], ticks
    # a third Target Y item at the sense level; at the word level it is a second sense of the lemma "nurse",
    # merged into the one word "nurse" (issue 22 §4), so the word-level d need not change
    assert after_sense != before_sense

    # remove the chip again: the bar returns to the first value
    target_y.locator(".ess-chip[data-item='nurse%2:29:00::'] .ess-remove").click()
    expect(sense_bar).to_have_attribute("data-effect-size", str(before_sense), timeout=20_000)

    # an unknown lemma offers suggestions; one click looks the suggestion up
    box.fill("")
    box.press_sequentially("nurrse", delay=30)
    suggestion = target_y.locator(".ess-suggest", has_text=re.compile(r"^nurse$"))
    expect(suggestion).to_be_visible(timeout=20_000)
    expect(target_y.locator(".ess-message")).to_contain_text("nurrse")
    suggestion.click()
    expect(target_y.locator(".ess-option[data-item='nurse%1:18:00::']")).to_be_visible(timeout=20_000)

    # issue 18: rows name the part of speech ("nurse n.1", "nurse v.1"); Enter with no highlighted row
    # takes the first sense, and Enter on a picked sense removes it visibly (a notice says so)
    expect(target_y.locator(".ess-option[data-item='nurse%1:18:00::'] .ess-lemma")).to_have_text("nurse n.1")
    expect(target_y.locator(".ess-option[data-item='nurse%2:29:00::'] .ess-lemma")).to_have_text("nurse v.1")
    first = target_y.locator(".ess-option[data-kind='sense']").first  # not the "any sense" row
    was_picked = first.get_attribute("aria-selected") == "true"
    name = first.locator(".ess-lemma").inner_text()
    box.press("Enter")
    notice = target_y.locator(".ess-notice")
    expect(notice).to_have_text(re.compile(("^Removed " if was_picked else "^Picked ") + re.escape(name)),
                                timeout=20_000)
    expect(first).to_have_attribute("aria-selected", "false" if was_picked else "true", timeout=20_000)
    box.press("Enter")
    expect(notice).to_have_text(re.compile(("^Picked " if was_picked else "^Removed ") + re.escape(name)),
                                timeout=20_000)
    expect(first).to_have_attribute("aria-selected", "true" if was_picked else "false", timeout=20_000)

    RESULTS.mkdir(exist_ok=True)
    page.locator(".jp-Notebook").screenshot(path=str(RESULTS / "sense_explorer.png"))
    assert not [e for e in page.errors if "embias" in e.lower() or "ess" in e.lower()], page.errors


def test_gloss_markup_stays_text(lab_server, page, timings):
    from playwright.sync_api import expect

    name = _write_notebook(lab_server["root"])
    open_notebook(page, lab_server, name, timings)
    lab_cmd(page, "notebook:run-all-cells")
    marked = page.locator(".embias-sense-selector").filter(has=page.locator(".ess-label", has_text="markup"))
    expect(marked).to_have_count(1, timeout=120_000)
    box = marked.locator(".ess-input")
    box.click()
    box.press_sequentially("nurse", delay=30)
    gloss = marked.locator(".ess-option .ess-gloss").first
    expect(gloss).to_have_text(MARKUP, timeout=20_000)
    box.press("ArrowDown")
    box.press("Enter")
    chip = marked.locator(".ess-chip").first
    expect(chip).to_have_attribute("title", MARKUP, timeout=20_000)
    expect(chip.locator(".ess-chip-lemma")).to_have_text("nurse")
    assert marked.locator("b, i, img").count() == 0
    page.wait_for_timeout(300)
    assert page.dialogs == []


TABLE = """
import json
from embias_widgets.stimuli.pairs import SentencePair
from embias_widgets.widgets import PairedLikelihoodTable

table = PairedLikelihoodTable(
    [
        SentencePair("She is a talented nurse.", "He is a talented nurse.", "noun", sense_key="nurse%1:18:00::"),
        SentencePair("He is a clumsy nurse.", "She is a clumsy nurse.", "noun", sense_key="nurse%1:18:00::"),
        SentencePair("She carefully nursed the sick child back to health.",
                     "He carefully nursed the sick child back to health.", "verb", sense_key="nurse%2:29:00::"),
    ],
    model="embias-demo-mlm", metric="aul", convention="zhou",
)
table
"""

SELECTOR_TEXT = ".ess-gloss, .ess-lemma, .ess-pos, .ess-key, .ess-example, .ess-status span, .ess-chip-gloss"
TABLE_TEXT = ".plt-group-name, .plt-group-score, .plt-group-gloss, .plt-sense-key"
GROUPS = "print('PY-GROUPS', json.dumps({g['name']: g['score'] for g in table.summary['groups']}), table.group_by)"

CONTRAST = """(root, texts) => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (node) => {
    for (let n = node; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const node of root.querySelectorAll(texts)) {
    const bg = background(node);
    const [r, g, b, alpha = 1] = rgb(getComputedStyle(node).color);  // a translucent colour over its background
    const fg = [r, g, b].map((v, i) => alpha * v + (1 - alpha) * bg[i]);
    const [la, lb] = [lum(fg), lum(bg)];
    out.push([node.className, (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05)]);
  }
  return out;
}"""


def test_likelihood_table_grouped_by_sense_and_selector_in_dark_theme(lab_server, page, timings):
    from playwright.sync_api import expect

    nb = python_notebook()
    selector_cell = "from embias_widgets.widgets import SenseSelector\nSenseSelector(['nurse%2:29:00::'], label='dark')"
    nb.cells = [nbformat.v4.new_code_cell(c.strip()) for c in (TABLE, selector_cell, GROUPS)]
    nbformat.write(nb, lab_server["root"] / "sense_table_browser_test.ipynb")
    open_notebook(page, lab_server, "sense_table_browser_test.ipynb", timings)
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(".embias-paired-likelihood-table").first
    expect(widget.locator("tr.plt-row")).to_have_count(3, timeout=120_000)
    expect(widget.locator(".plt-group")).to_have_count(0)

    t0 = time.monotonic()
    widget.locator("select.plt-group-by").select_option("sense_key")
    verb = widget.locator(".plt-group[data-group='nurse%2:29:00::']")
    expect(verb).to_have_count(1, timeout=30_000)
    timings["likelihood_group_by_sense_s"] = round(time.monotonic() - t0, 3)
    expect(widget.locator("tr.plt-group-row")).to_have_count(2)
    expect(verb.locator(".plt-group-gloss")).to_contain_text("try to cure by special care")
    run_last_cell(page)
    out = page.locator(".jp-OutputArea-output", has_text="PY-GROUPS").last
    expect(out).to_contain_text("sense_key", timeout=30_000)
    groups = json.loads(re.search(r"PY-GROUPS (\{.*\})", out.inner_text()).group(1))
    assert set(groups) == {"nurse%1:18:00::", "nurse%2:29:00::"}
    for name, score in groups.items():
        shown = widget.locator(f".plt-group[data-group='{name}']")
        assert float(shown.get_attribute("data-score")) == score
    # the group's score as the formatter writes it, its Wilson interval, then the decided pairs' share and sign test
    expect(verb.locator(".plt-group-score")).to_contain_text(
        re.compile(rf"^{re.escape(format_value(groups['nurse%2:29:00::'], 'percent'))} \[[^\]]+\]; decided "
                   r"[^\]]+\], sign test p = "))

    # the selector reads in JupyterLab Dark: WCAG contrast of its text against the effective background
    selector = page.locator(".embias-sense-selector").first
    box = selector.locator(".ess-input")
    box.click()
    box.press_sequentially("nurse", delay=20)
    expect(selector.locator(".ess-option")).to_have_count(7, timeout=20_000)
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        lab_cmd(page, "apputils:change-theme", {"theme": theme})
        page.wait_for_function(
            "(dark) => document.body.dataset.jpThemeLight === String(!dark)", arg=theme.endswith("Dark"),
            timeout=30_000)
        next_frames(page)
        ratios = selector.evaluate(CONTRAST, SELECTOR_TEXT)
        assert len(ratios) > 20, ratios  # 7 senses x (lemma, pos, key, gloss) and more
        table_ratios = widget.evaluate(CONTRAST, TABLE_TEXT)
        assert len(table_ratios) >= 8, table_ratios  # 2 groups x (name, score, gloss) in summary and headings
        ratios += table_ratios
        assert all(r == r and r >= 1 for _, r in ratios), ratios  # every ratio measured (no NaN)
        timings[f"sense_selector_min_contrast_{theme.split()[-1].lower()}"] = round(min(r for _, r in ratios), 2)
        low = [(c, round(r, 2)) for c, r in ratios if r < 4.5]
        assert not low, f"{theme}: text below 4.5:1 contrast: {low[:5]}"
        RESULTS.mkdir(exist_ok=True)
        selector.screenshot(path=str(RESULTS / f"sense_selector_{theme.split()[-1].lower()}.png"))
    lab_cmd(page, "apputils:change-theme", {"theme": "JupyterLab Light"})
