"""Real browser: how far to trust d, as drawn (issue 28, section 5; issue 31, item 21).

One notebook (a WEAT explorer on GloVe and the sense WEAT explorer on a tiny sense file), loaded once per theme
(Light, Dark) and resized within it to 360, 600, 1000 and 1400 px: the interval's whiskers are visible (a stroke
that differs from the background) and lie inside the effect-size chart and inside the widget, around d, at the
interval Python holds; the stability verdict and the alpha and correction behind the star are shown; the sense
explorer lays its four selectors 4 in a row at 1400 px and 2 + 2 at 600 px, with no chip's remove button alone
on a line. In Light, the word-influence view: clicking a word shows d without it as the kernel computed it, and
an edit redraws the view (the new word gets its row, the picked word's d without it changes); switching to
another test and back keeps the edit, and Undo still undoes it.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from .conftest import (
    RESULTS,
    TINY_SENSE_EXPLORER,
    lab_cmd,
    next_frames,
    open_notebook,
    python_notebook,
    run_code,
    set_left_area,
    set_theme,
)

pytestmark = pytest.mark.browser

CELLS = [
    '''
import os
os.environ["HF_HUB_OFFLINE"] = "1"
from embias_widgets.models import load_model
from embias_widgets.widgets import SenseWeatExplorer, WeatExplorer
weat = WeatExplorer("weat6", model=load_model("glove-6b-50d"))
weat
''',
    TINY_SENSE_EXPLORER + "explorer\n",
]
WIDTHS = [1400, 1000, 600, 360]

# Where the whiskers lie, and whether they can be seen: the stroke against the effective background.
_WHISKER_JS = r"""
(root) => {
  const svg = root.querySelector("svg.esb-effect");
  const track = svg.querySelector("rect.esb-track").getBoundingClientRect();
  const box = root.getBoundingClientRect();
  const bar = svg.querySelector("rect.esb-bar").getBoundingClientRect();
  const lines = [...svg.querySelectorAll("line.esb-whisker")];
  const main = lines.find((l) => l.hasAttribute("data-low"));
  const rgb = (t) => (t.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  let bg = null;
  for (let n = root; n && !bg; n = n.parentElement) {
    const c = getComputedStyle(n).backgroundColor;
    if (c && c !== "transparent" && !/rgba\(.*,\s*0\)$/.test(c)) bg = rgb(c);
  }
  bg = bg || [255, 255, 255];
  const stroke = rgb(getComputedStyle(main).stroke);
  const r = main.getBoundingClientRect();
  return {
    n: lines.length, low: Number(main.dataset.low), high: Number(main.dataset.high),
    left: r.left, right: r.right, width: r.width, top: r.top, bottom: r.bottom,
    track: { left: track.left, right: track.right, top: track.top, bottom: track.bottom },
    root: { left: box.left, right: box.right },
    barEnd: Number(svg.querySelector("rect.esb-bar").getAttribute("data-effect-size")) >= 0 ? bar.right : bar.left,
    strokeWidth: parseFloat(getComputedStyle(main).strokeWidth),
    colourDistance: Math.hypot(stroke[0] - bg[0], stroke[1] - bg[1], stroke[2] - bg[2]),
  };
}
"""

# Each chip's remove button: on the same line as the chip's text (it overlaps the text's last line box).
_CHIPS_JS = r"""
(root) => [...root.querySelectorAll(".ess-chip")].map((chip) => {
  const text = chip.querySelector(".ess-chip-text").getClientRects();
  const last = text[text.length - 1];
  const b = chip.querySelector("button.ess-remove").getBoundingClientRect();
  return { item: chip.dataset.item, alone: b.top >= last.bottom - 1 || b.bottom <= last.top + 1 };
})
"""


def _notebook(root) -> str:
    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.strip()) for c in CELLS]
    name = "trust_browser_test.ipynb"
    nbformat.write(nb, root / name)
    return name


def _width(page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    page.wait_for_timeout(300)
    set_left_area(page, False)
    page.wait_for_timeout(400)


def _kernel(page, code: str, tag: str) -> str:
    from playwright.sync_api import expect

    run_code(page, code)
    out = page.locator(".jp-OutputArea-output", has_text=tag).last
    expect(out).to_be_visible(timeout=30_000)
    return out.inner_text()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_whiskers_verdict_layout_and_influence(lab_server, page, timings, theme):
    from playwright.sync_api import expect

    open_notebook(page, lab_server, _notebook(lab_server["root"]), timings)
    set_theme(page, theme)
    lab_cmd(page, "notebook:run-all-cells")
    bars = page.locator(".embias-effect-size-bars").first
    expect(bars).to_have_attribute("data-interval", re.compile(r"^1\.\d+,1\.\d+$"), timeout=120_000)
    expect(bars).to_have_attribute("data-verdict", re.compile("^(stable|fragile)$"))
    expect(page.locator(".embias-sense-explorer .embias-sense-grid")).to_have_count(1, timeout=120_000)
    expect(page.locator(".embias-sense-explorer .ess-chip").first).to_be_visible(timeout=120_000)
    printed = _kernel(page, 'r = weat.bars.effect_size_interval; print("PY-CI", r["low"], r["high"], '
                      'weat.bars.stability["verdict"])', "PY-CI")
    _, low, high, verdict = printed.split()
    value = bars.locator(".esb-value")
    expect(value).to_contain_text("95% CI [")
    expect(value).to_contain_text("correction for multiple tests: none (one test)")
    expect(value.locator(".esb-verdict")).to_have_text(verdict)
    expect(bars.locator(".esb-rule")).to_contain_text("Rule: stable when the test is significant")
    # weat6 on GloVe: significant, and its interval excludes 0: p and interval agree, so no story sentence
    expect(bars).to_have_attribute("data-story", "")
    expect(bars.locator(".esb-story")).to_have_count(0)

    sense = page.locator(".embias-sense-explorer").first
    for width in WIDTHS:
        _width(page, width)
        bars.scroll_into_view_if_needed()
        next_frames(page)
        w = bars.evaluate(_WHISKER_JS)
        where = f"{theme} {width}px: {w}"
        assert (w["low"], w["high"]) == (float(low), float(high)), where  # Python's interval, as held
        assert w["width"] > 4 and w["strokeWidth"] >= 1.5 and w["colourDistance"] > 100, where  # visible
        assert w["track"]["left"] - 0.5 <= w["left"] < w["right"] <= w["track"]["right"] + 0.5, where  # in the chart
        assert w["root"]["left"] <= w["left"] and w["right"] <= w["root"]["right"], where  # in the widget
        assert w["top"] >= w["track"]["top"] - 8 and w["bottom"] <= w["track"]["bottom"] + 8, where
        assert w["left"] < w["barEnd"] < w["right"], where  # d lies inside its interval
        sense.scroll_into_view_if_needed()
        next_frames(page)
        tops = [round(t) for t in sense.locator(".embias-sense-grid .embias-sense-selector").evaluate_all(
            "(ns) => ns.map((n) => n.getBoundingClientRect().top)")]
        grid_width = sense.locator(".embias-sense-grid").evaluate("(n) => n.getBoundingClientRect().width")
        rows = len(set(tops))
        if grid_width >= 1000:
            assert rows == 1, (theme, width, grid_width, tops)  # four in a row
        elif grid_width >= 560:
            assert rows == 2 and tops.count(tops[0]) == 2, (theme, width, grid_width, tops)  # 2 + 2, never 3 + 1
        else:
            assert rows == 4, (theme, width, grid_width, tops)
        alone = [c for c in sense.evaluate(_CHIPS_JS) if c["alone"]]
        assert not alone, (theme, width, alone)
        if width == 1400:
            RESULTS.mkdir(exist_ok=True)
            bars.screenshot(path=str(RESULTS / f"trust-weat-1400-{theme}.png"))
    if theme == "dark":
        assert not [e for e in page.errors if "embias" in e.lower()], page.errors
        return

    # The word-influence view (Light): click a marked word, read d without it; edit; the view redraws.
    _width(page, 1000)
    bars.scroll_into_view_if_needed()
    infl = bars.locator(".esb-influence")
    mover = infl.locator("g.esb-infl-row[data-mover='true']").first
    word, key = mover.get_attribute("data-word"), mover.get_attribute("data-set")
    mover.click()
    detail = infl.locator(".esb-infl-detail")
    expect(detail).to_contain_text(f"Without {word} (")
    expect(bars).to_have_attribute("data-without", re.compile(r"^-?\d"))
    code = (f'r = next(x for x in weat.bars.influence if x["word"] == {word!r} and x["set"] == {key!r}); '
            'print("PY-WITHOUT", r["effect_size_without"], len(weat.bars.influence))')
    _, without, n = _kernel(page, code, "PY-WITHOUT").split()
    assert float(bars.get_attribute("data-without")) == float(without)
    assert f"{float(without):.2f}" in detail.inner_text()
    expect(infl.locator(".esb-infl-heading")).to_contain_text(f"({n} words;")

    editor = page.locator(".embias-word-set-editor").first
    before = bars.get_attribute("data-effect-size")
    adder = editor.locator(".ewe-add[data-set='targ2']")
    adder.click()
    adder.press_sequentially("Alice", delay=10)
    adder.press("Enter")
    expect(bars).not_to_have_attribute("data-effect-size", before, timeout=30_000)
    expect(infl.locator(".esb-infl-heading")).to_contain_text(f"({int(n) + 1} words;", timeout=30_000)
    expect(detail).to_contain_text(f"Without {word} (")  # the picked word stays picked, with its new number
    _, without_now, _ = _kernel(page, code.replace("PY-WITHOUT", "PY-AFTER"), "PY-AFTER").split()
    assert float(without_now) != float(without)
    assert float(bars.get_attribute("data-without")) == float(without_now)
    infl.locator("button.esb-infl-more").click()
    expect(infl.locator("g.esb-infl-row[data-word='Alice'][data-set='targ2']")).to_have_count(1)

    # Switching test keeps the edit (issue 31, item 10): back on weat6, Alice is there and Undo removes her.
    chip = editor.locator(".ewe-chips[data-set='targ2'] .ewe-chip[data-word='Alice']")
    editor.locator("select.ewe-test-picker").select_option("weat7")
    expect(bars.locator(".esb-title")).to_contain_text("WEAT 7", timeout=30_000)
    expect(chip).to_have_count(0)
    editor.locator("select.ewe-test-picker").select_option("weat6")
    expect(chip).to_have_count(1, timeout=30_000)
    expect(editor.locator(".ewe-undo")).to_be_enabled()
    editor.locator(".ewe-undo").click()
    expect(chip).to_have_count(0, timeout=30_000)
    expect(bars).to_have_attribute("data-effect-size", before, timeout=30_000)  # the published weat6 again
    assert not [e for e in page.errors if "embias" in e.lower()], page.errors
