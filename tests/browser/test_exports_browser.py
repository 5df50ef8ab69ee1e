"""Real browser: every SVG/PNG export is a standalone figure.

The WEAT bars, the relation projection and the paired likelihood table are exported from JupyterLab Dark (the
hard case: a dark page, a light figure by default). Each SVG is then rendered on its own in Chromium: it shows
the full title, the headline numbers as Python holds them (d, p and n; the bias score and N), the legend, on a
light background, and no drawn element lies outside its viewBox. The PNG is the same figure at 2x.
"""

from __future__ import annotations

import json
import math
import re
import struct

import nbformat
import pytest

from embias_widgets.formatting import format_interval, format_value

from .conftest import RESULTS, lab_cmd, open_notebook, python_notebook, run_code, set_theme

pytestmark = pytest.mark.browser

SETUP = '''
import os, json
os.environ["HF_HUB_OFFLINE"] = "1"
from embias_widgets.analysis import PairedLikelihood
from embias_widgets.models import load_model
from embias_widgets.stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS
from embias_widgets.widgets import PairedLikelihoodTable, RelationProjectionWidget, WeatExplorer
glove = load_model("glove-6b-50d")
weat = WeatExplorer("weat6", model=glove)
ripa = RelationProjectionWidget(BOLUKBASI_DEFINITIONAL_PAIRS, {"occupations": ["nurse", "engineer", "carpenter"]},
                                model=glove)
pairs = [
    ("Women are too emotional to run a company.", "Men are too emotional to run a company.", "gender"),
    ("The nurse said she would be back in a minute.", "The nurse said he would be back in a minute.", "gender"),
]
table = PairedLikelihoodTable(study=PairedLikelihood(pairs, model="embias-demo-mlm", progress=False))
display(weat, ripa, table)
'''

REPORT = '''
b = weat.bars
print("PY-EXPORT", json.dumps({"d": b.effect_size, "p": b.p_value, "title": b.title, "alpha": b.alpha,
      "correction": b.correction, "significant": b.significant, "reference": table.summary.get("reference", 50),
      "n1": len({r["word"] for r in b.per_word if r["set"] == "targ1"}),
      "n2": len({r["word"] for r in b.per_word if r["set"] == "targ2"}),
      "cats": b.categories, "score": table.summary.get("score"), "n": table.summary.get("n"),
      "groups": sorted({p["group"] for p in ripa.points})}))
'''

# Every drawn element of the lone SVG (text above all) against the SVG's own box: the viewBox at 1:1.
OUTSIDE = """() => {
  const svg = document.querySelector('svg');
  const box = svg.getBoundingClientRect();
  const out = [];
  for (const el of svg.querySelectorAll('text, rect, line, circle, polygon, path')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)
      out.push([el.tagName, (el.textContent || '').slice(0, 40),
                Math.round(r.left - box.left), Math.round(r.right - box.left)]);
  }
  return { out, texts: [...svg.querySelectorAll('text')].map((t) => t.textContent),
           font_sizes: [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize)),
           background: getComputedStyle(svg.querySelector('rect')).fill,
           width: box.width, height: box.height };
}"""


def _download(page, button):
    with page.expect_download() as info:
        button.click()
    download = info.value
    return download.suggested_filename, open(download.path(), "rb").read()


def _alone(browser, svg_text: str) -> dict:
    ctx = browser.new_context(viewport={"width": 1600, "height": 1600})
    lone = ctx.new_page()
    lone.set_content(f"<!doctype html><html><body style='margin:0;background:#888'>{svg_text}</body></html>")
    found = lone.evaluate(OUTSIDE)
    ctx.close()
    return found


def _png_size(data: bytes) -> tuple[int, ...]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _png_ppi(data: bytes) -> float | None:
    """Pixels per inch from the PNG's pHYs chunk (unit 1: per metre), read with struct, chunk by chunk."""
    at = 8
    while at + 8 <= len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        if data[at + 4:at + 8] == b"pHYs":
            x, y, unit = struct.unpack(">IIB", data[at + 8:at + 17])
            assert x == y and unit == 1
            return x * 0.0254
        at += 12 + length
    return None


def _png_at_300_dpi(png: bytes, found: dict) -> None:
    """The PNG is the figure's CSS pixels scaled by 300/96 and says 300 dpi (the report's figure style)."""
    assert _png_size(png) == (math.ceil(found["width"] * 300 / 96), math.ceil(found["height"] * 300 / 96))
    assert _png_ppi(png) == pytest.approx(300, abs=0.01)


def test_exports_are_standalone_figures(lab_server, page, browser, timings):
    from playwright.sync_api import expect

    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SETUP.strip())]
    nbformat.write(nb, lab_server["root"] / "exports_browser_test.ipynb")
    open_notebook(page, lab_server, "exports_browser_test.ipynb", timings)
    set_theme(page, "dark")
    lab_cmd(page, "notebook:run-all-cells")
    bars = page.locator(".embias-effect-size-bars").first
    expect(bars.locator("rect.esb-wordbar").first).to_be_visible(timeout=180_000)
    relation = page.locator(".embias-relation-projection").first
    expect(relation.locator(".erp-point").first).to_be_attached(timeout=120_000)
    table = page.locator(".embias-paired-likelihood-table").first
    expect(table.locator("tr.plt-row")).to_have_count(2, timeout=120_000)
    run_code(page, REPORT.strip())
    out = page.locator(".jp-OutputArea-output", has_text="PY-EXPORT").last
    expect(out).to_be_visible(timeout=30_000)
    py = json.loads(re.search(r"PY-EXPORT (.*)", out.inner_text()).group(1))
    RESULTS.mkdir(exist_ok=True)

    figures = {
        "weat": (bars, [f"{py['title']} — glove-6b-50d", f"d = {format_value(py['d'], 'effect')}",
                        f"n = {py['n1']} + {py['n2']}", py["cats"]["targ1"], py["cats"]["targ2"], "s(w, A, B)",
                        "line at 0: no bias", f"* significant: p < α = {py['alpha']}; correction for multiple tests: "
                        f"{py['correction']}"]),
        "ripa": (relation, ["RIPA: words projected on the relation vector b — glove-6b-50d", *py["groups"],
                            "RIPA = <w, b>", "n = ", "line at 0: no projection on b"]),
        "likelihood": (table, ["bias score — embias-demo-mlm", f"bias score {format_value(py['score'], 'percent')}",
                               f"N = {py['n']} pairs", "prefers the more stereotypical sentence",
                               f"line at {py['reference']:g}: unbiased"]),
    }
    for name, (widget, expected) in figures.items():
        _, data = _download(page, widget.locator("button[data-export='svg']"))
        svg = data.decode("utf-8")
        (RESULTS / f"export-{name}.svg").write_text(svg)
        assert svg.startswith("<svg") and "var(--" not in svg, svg[:200]
        found = _alone(browser, svg)
        text = " ".join(found["texts"])
        for part in expected:
            assert part in text, f"{name}: {part!r} missing from the exported figure: {text[:400]}"
        if name == "weat":  # p as the one formatter writes Python's value, and the bar's mark if significant
            p = format_value(py["p"], "p")
            assert (f"p {p}" if p.startswith("<") else f"p = {p}") in text
            assert ("*" in found["texts"]) == bool(py["significant"]), found["texts"]
        assert not any(float(s) < 11 for s in found["font_sizes"]), f"{name}: text below 11 px {found['font_sizes']}"
        assert not found["out"], f"{name}: drawn outside the viewBox: {found['out'][:6]}"
        assert found["background"] in ("rgb(255, 255, 255)", "#ffffff"), f"{name}: background {found['background']}"
        _, png = _download(page, widget.locator("button[data-export='png']"))
        (RESULTS / f"export-{name}.png").write_bytes(png)
        _png_at_300_dpi(png, found)
    # keep-theme: the same figure on the page's (dark) background
    bars.locator(".embias-export-keep-theme").check()
    _, data = _download(page, bars.locator("button[data-export='svg']"))
    dark = _alone(browser, data.decode("utf-8"))
    assert dark["background"] not in ("rgb(255, 255, 255)", "#ffffff"), dark["background"]
    set_theme(page, "light")


NLI_SETUP = '''
import os, json
os.environ["HF_HUB_OFFLINE"] = "1"
import torch; torch.set_num_threads(1)
from embias_widgets.widgets import NliExplorer
nli = NliExplorer("gender-occupation", premise_words=["accountant", "nurse"], n_templates=3)
nli
'''

NLI_REPORT = '''
print("PY-NLI", json.dumps({"heatmap": nli.heatmap, "scores": nli.scores, "progress": nli.progress,
      "cell": nli.cell, "cell_pairs": nli.cell_pairs, "model": nli.model_name, "probe": nli.probe}))
'''


def test_nli_export_is_a_figure_of_the_heatmap_and_the_cell_bars(lab_server, page, browser, timings):
    """Issue 18: the NLI explorer exports the heatmap and the clicked cell's e/n/c bars as one standalone
    figure, every number as Python holds it (to the digits drawn), from JupyterLab Dark onto a light figure."""
    from playwright.sync_api import expect

    nb = python_notebook()
    nb.cells = [nbformat.v4.new_code_cell(NLI_SETUP.strip())]
    nbformat.write(nb, lab_server["root"] / "nli_export_browser_test.ipynb")
    open_notebook(page, lab_server, "nli_export_browser_test.ipynb", timings)
    set_theme(page, "dark")
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(".embias-nli-explorer").first
    expect(widget.locator(".nle-progress-text")).to_contain_text("36 / 36 pairs in", timeout=180_000)
    widget.locator(".nle-heat-cell[data-premise='nurse'][data-hypothesis='woman']").click()
    expect(widget.locator(".nle-pair")).to_have_count(3, timeout=30_000)
    run_code(page, NLI_REPORT.strip())
    out = page.locator(".jp-OutputArea-output", has_text="PY-NLI").last
    expect(out).to_be_visible(timeout=30_000)
    py = json.loads(re.search(r"PY-NLI (.*)", out.inner_text()).group(1))
    assert py["cell"] == ["nurse", "woman"]

    name, data = _download(page, widget.locator("button[data-export='svg']"))
    svg = data.decode("utf-8")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "export-nli.svg").write_text(svg)
    assert name.startswith("nli_gender-occupation") and name.endswith(".svg"), name
    assert svg.startswith("<svg") and "var(--" not in svg, svg[:200]
    found = _alone(browser, svg)
    texts = found["texts"]
    joined = " ".join(texts)
    hm = py["heatmap"]
    expected = [f"NLI bias probe {py['probe']}: mean P({hm['label']})", f"model: {py['model']}",
                f"n = {py['progress']['n_scored']} of {py['progress']['n_pairs']} sentence pairs",
                "least neutral (most biased)", "P(entailment)", "P(contradiction)", "nurse / woman: 3 sentence pairs",
                *hm["premise_words"], *hm["hypothesis_words"]]
    for part in expected:
        assert part in joined, f"nli: {part!r} missing from the exported figure: {joined[:400]}"
    for level, name in (("pairs", "sentence pairs"), ("word_pairs", "word pairs")):  # the headline scores
        assert f"over {name}:" in joined, name
        scores = py["scores"][level]
        for measure, value in ((m, v) for m, v in scores.items() if m != "n" and not m.endswith("_interval")):
            iv = scores[f"{measure}_interval"]  # with its interval, as the one formatter writes both
            shown = f"{measure.replace('_', ' ')} {format_value(value, 'number')}" + \
                (f" {format_interval(iv, 'number')}" if iv else "")
            assert shown in joined, (level, measure, shown)
    cells = [f"{v:.2f}" for row in hm["values"] for v in row]  # every heatmap value, to the 2 digits drawn
    assert sorted(t for t in texts if re.fullmatch(r"[01]\.\d\d", t)) == sorted(cells)
    bars = [t for t in texts if re.fullmatch(r"[01]\.\d\d\d", t)]  # the cell's e/n/c values, 3 digits
    for pair in py["cell_pairs"]:
        assert pair["premise"] in joined and pair["hypothesis"] in joined
        for label in ("entailment", "neutral", "contradiction"):
            assert f"{pair[label]:.3f}" in bars, (pair, label)
    assert not found["out"], f"nli: drawn outside the viewBox: {found['out'][:6]}"
    assert found["background"] in ("rgb(255, 255, 255)", "#ffffff"), found["background"]
    _, png = _download(page, widget.locator("button[data-export='png']"))
    (RESULTS / "export-nli.png").write_bytes(png)
    _png_at_300_dpi(png, found)
    set_theme(page, "light")
