"""``embias compare``'s report.html in Chromium, light and dark, at a phone's and a desktop's width: the paired
comparison's table (change, its interval, the paired test's mark, the verdict), the change figure with one whisker
per interval, the "change" column of models side by side; no sideways page scroll, no clipped text, contrast at
least 4.5:1."""

from __future__ import annotations

import pytest

from .conftest import RESULTS, check_contrast, clipped_text

pytestmark = pytest.mark.browser

_CHECKS = r"""
() => {
  const h2 = [...document.querySelectorAll('h2')].find((h) => h.textContent.startsWith('Change from'));
  let node = h2.nextElementSibling, table = null, figure = null;
  while (node && node.tagName !== 'H2') {
    if (!table && node.querySelector('table')) table = node.querySelector('table');
    if (!figure && node.classList.contains('figure')) figure = node;
    node = node.nextElementSibling;
  }
  const head = [...table.querySelectorAll('th')].map((th) => th.textContent);
  const rows = [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent));
  const side = [...document.querySelectorAll('table')].find((t) =>
    [...t.querySelectorAll('th')].map((th) => th.textContent).includes('paired test') && t !== table);
  return {
    pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth, head, rows,
    whiskers: figure ? figure.querySelectorAll('.whiskers_marks line').length : -1,
    marks: figure ? figure.querySelectorAll('.sigmarks_marks text, .sigmarks_neg_marks text').length : -1,
    sideHead: side ? [...side.querySelectorAll('th')].map((th) => th.textContent) : [],
  };
}
"""


@pytest.fixture(scope="module")
def compare_dir(glove, tmp_path_factory):
    from _report_stand_in import write_vectors

    from embias_widgets.analysis.compare import Compare
    from embias_widgets.analysis.relation import RelationProjection
    from embias_widgets.stimuli.projection_stimuli import BOLUKBASI_DEFINITIONAL_PAIRS

    vectors = str(write_vectors(glove, tmp_path_factory.mktemp("vectors") / "vec.txt"))
    debiased = RelationProjection(BOLUKBASI_DEFINITIONAL_PAIRS, model=vectors).debiased_model()
    out = tmp_path_factory.mktemp("compare")
    Compare(vectors, debiased, out=out, methods=["weat"], quick=True, progress=False, resamples=500).run()
    return out


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1000])
def test_comparison_in_report_html(browser, compare_dir, width, scheme):
    ctx = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((compare_dir / "report.html").as_uri())
    got = page.evaluate(_CHECKS)
    label = f"comparison {width}px {scheme}"
    assert errors == [] and got["pageWidth"] <= got["viewport"], label
    assert got["head"][:6] == ["method", "row", "measure", "before", "after", "change"], got["head"]
    assert len(got["rows"]) == 15  # WEAT 1-10 and the five b variants, each paired
    mark = got["head"].index("paired test")
    significant = [r for r in got["rows"] if r[mark] == "*"]
    assert significant and all(r[-1] in ("bias grew", "bias shrank", "changed") for r in significant)
    iv = got["head"].index("change interval")
    assert all(r[iv].startswith("[") for r in got["rows"])
    assert got["whiskers"] == len(got["rows"]) and got["marks"] == len(significant), label
    assert {"change", "change interval", "paired test"} <= set(got["sideHead"])
    RESULTS.mkdir(exist_ok=True)
    page.locator("h2", has_text="Change from").first.scroll_into_view_if_needed()
    page.screenshot(path=str(RESULTS / f"compare-html-{width}-{scheme}.png"))
    clipped = [c for r in clipped_text(page, "body") for c in r["clipped"]]
    assert clipped == [], f"{label}: text outside its box: {clipped[:5]}"
    check_contrast(page, "body", f"compare report.html {width}px", scheme)
    ctx.close()
