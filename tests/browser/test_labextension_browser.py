"""Real browser: the prebuilt JupyterLab extension (labextension/) in a running JupyterLab.

- the Launcher has an "embias-widgets" section with a card per widget (the RIPA and sense WEAT widgets
  included), each with its own icon (issue 31, item 21);
- the WEAT explorer card opens a notebook whose first cell runs and draws the
  explorer, with the effect size the kernel computes on its own;
- every card's first cell imports what it names;
- a ``report.json`` double-clicked in the file browser opens as report.html shows it (the same blocks, from the
  server extension, drawn by js/lib/report_blocks.js: every table cell the same text as report.html's, seed and
  alpha as written, no sideways scroll at 390-1400 px, every text readable in Light and Dark, the figures' text
  in the theme's colour, SVG inlined with scripts, event handlers and links removed, user text as text),
  ``*.report.json`` too, while other JSON files keep their editor and "Open With > Editor" stays.
"""

from __future__ import annotations

import json
import re
import uuid
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .conftest import (
    APP,
    LABEXTENSION_BUILD,
    ROOT,
    check_contrast,
    check_graphics_contrast,
    lab_cmd,
    next_frames,
    run_code,
    screenshot_widgets,
    set_theme,
    wait_for_command,
)

pytestmark = pytest.mark.browser
CARDS = ["WEAT explorer", "Sense WEAT explorer", "RIPA projection", "Sense selector", "Likelihood table",
         "NLI explorer", "Report"]
FACTORY = "embias report"
VIEW = ".embias-report-view"
TITLE = "<b>audit</b> of GloVe"
NOTE = "<img src=x onerror=alert(1)> 2 words out of vocabulary"

EVIL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="300" height="120"'
    ' onload="window.__embiasPwned = 1">'
    '<script>window.__embiasPwned = 2</script>'
    '<defs><clipPath id="clip1"><rect width="300" height="120"/></clipPath></defs>'
    '<g clip-path="url(#clip1)"><rect class="bar" x="10" y="20" width="180" height="30" fill="#4c78a8"'
    ' onclick="window.__embiasPwned = 3"/>'
    '<text x="10" y="100">d = 1.70</text>'
    '<image href="http://127.0.0.1:9/leak.png" width="10" height="10"/>'
    '<a xlink:href="javascript:window.__embiasPwned = 4"><text x="200" y="100">link</text></a>'
    '<foreignObject width="50" height="50"><div xmlns="http://www.w3.org/1999/xhtml">html</div></foreignObject>'
    '<rect x="0" y="0" width="5" height="5" style="fill: url(http://127.0.0.1:9/x)"/></g></svg>'
)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """One real quick report (GloVe 6B 50d; seed 0 and alpha 0.01, the defaults) with its report.html."""
    from embias_widgets.analysis.report import Report

    out = tmp_path_factory.mktemp("labext_report")
    Report(["glove-6b-50d"], out=out, quick=True, progress=False, title=TITLE).run()
    return out


class _Cells(HTMLParser):
    """The text of every ``<td>`` of a page, one list per table (what a reader sees in each cell)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.tables[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _html_cells(report_dir) -> list[list[str]]:
    cells = _Cells()
    cells.feed((report_dir / "report.html").read_text(encoding="utf-8"))
    return cells.tables


def _labextension_sources() -> set[Path]:
    """labextension/src and style, and every file they import, followed through relative imports (js/lib's
    report_blocks.js, format.js, ... and formatting.json): what `npm run build:all` bundles."""
    todo = [*(ROOT / "labextension" / "src").glob("*.js"), *(ROOT / "labextension" / "style").glob("*.css")]
    seen: set[Path] = set()
    while todo:
        path = todo.pop().resolve()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        if path.suffix == ".js":
            todo += [path.parent / spec for spec in re.findall(r"""^import\b[^'"]*['"](\.{1,2}/[^'"]+)['"]""",
                                                               path.read_text(encoding="utf-8"), re.M)]
    return seen


def _open_lab(page, lab_server) -> None:
    """JupyterLab in a fresh workspace, with this checkout's build of the extension activated (or a clear
    failure: not built, or older than its sources)."""
    sources = _labextension_sources()
    built = LABEXTENSION_BUILD / "package.json"
    assert built.is_file(), f"no labextension build at {built.parent}: run `npm run build:all`"
    stale = [str(p.relative_to(ROOT)) for p in sources if p.stat().st_mtime > built.stat().st_mtime]
    assert not stale, f"the labextension build is older than {stale[:3]}: run `npm run build:all`"
    page.goto(f"{lab_server['url']}/lab/workspaces/{uuid.uuid4().hex[:12]}?reset&token={lab_server['token']}")
    page.wait_for_function(f"() => {APP}?.commands?.hasCommand('launcher:create')", timeout=120_000)
    loaded = page.evaluate(f"() => {APP}.hasPlugin('embias-widgets:launcher')")
    assert loaded, ("the embias-widgets labextension is not installed in this environment: `pip install -e .` "
                    "(or `pip install .`) builds it and installs it; check with `jupyter labextension list`")
    entry = page.evaluate("() => JSON.parse(document.getElementById('jupyter-config-data').textContent)"
                          ".federated_extensions.find((e) => e.name === 'embias-widgets').load")
    assert (LABEXTENSION_BUILD / entry).is_file(), f"JupyterLab loaded another build than {LABEXTENSION_BUILD}"
    page.wait_for_function(f"() => {APP}.commands.hasCommand('embias-widgets:new-weat-explorer')", timeout=30_000)


def _command(page, command: str, args: dict) -> None:
    """Run a JupyterLab command to completion once it is registered, dropping what it returns (a widget does
    not serialise)."""
    wait_for_command(page, command)
    page.evaluate("async ([c, a]) => { await window.jupyterapp.commands.execute(c, a); }", [command, args])


def _section(page):
    return page.locator(".jp-Launcher-section",
                        has=page.locator(".jp-Launcher-sectionTitle", has_text=re.compile("^embias-widgets$")))


def test_launcher_has_a_card_per_widget(lab_server, page):
    from playwright.sync_api import expect

    _open_lab(page, lab_server)
    lab_cmd(page, "launcher:create")
    section = _section(page)
    expect(section).to_have_count(1, timeout=30_000)
    expect(section.locator(".jp-LauncherCard-label")).to_have_text(CARDS)
    icons = section.locator(".jp-LauncherCard-icon svg").evaluate_all("(ns) => ns.map((n) => n.innerHTML)")
    assert len(icons) == len(CARDS) and len(set(icons)) == len(CARDS), "cards share an icon"
    assert not page.errors, page.errors


def test_every_card_writes_a_first_cell_that_imports(lab_server, page):
    """Each card's notebook: one code cell naming an object that exists in the package."""
    _open_lab(page, lab_server)
    sources = {}
    for card_id in ("weat-explorer", "sense-weat-explorer", "relation-projection", "sense-selector",
                    "likelihood-table", "nli-explorer", "report"):
        sources[card_id] = page.evaluate(  # written, not run (a card's own click runs it: see below)
            f"async (c) => {{ const p = await {APP}.commands.execute('embias-widgets:new-' + c, {{run: false}}); "
            "return p.content.model.sharedModel.cells.map((x) => [x.cell_type, x.getSource()]); }", card_id)
    imports = {}
    for card_id, cells in sources.items():
        assert len(cells) == 1 and cells[0][0] == "code", (card_id, cells)
        match = re.search(r"^from (embias_widgets[\w.]*) import (\w+)\n\n", cells[0][1], re.M)  # the last import
        assert match, (card_id, cells[0][1])
        assert f"\n{match[2]}(" in cells[0][1], (card_id, cells[0][1])  # the cell builds what it imports
        imports[card_id] = (match[1], match[2])
    assert imports["weat-explorer"] == ("embias_widgets.widgets", "WeatExplorer")
    assert imports["report"] == ("embias_widgets.analysis.report", "Report")
    import importlib

    for card_id, (module, name) in imports.items():
        if card_id == "report":
            continue  # `embias report` (issue 23's other half) lands with its own tests
        assert callable(getattr(importlib.import_module(module), name)), (card_id, module, name)


def test_weat_card_writes_a_notebook_of_its_own_and_runs_it(lab_server, page):
    """The Launcher's card, clicked: ``weat-explorer.ipynb`` (not ``Untitled.ipynb``) in the Launcher's folder,
    whose cell runs by itself and draws the explorer with the effect size the kernel computes on its own; a
    Launcher opened in a report's output folder (``embias-report/``) writes it beside that folder instead."""
    from playwright.sync_api import expect

    report = lab_server["root"] / "embias-report"
    (report / "figures").mkdir(parents=True, exist_ok=True)
    (report / "report.json").write_text("{}")
    taken = lab_server["root"] / "weat-explorer.ipynb"
    taken.write_text("{}")  # a notebook of that name is there already: the card takes the next free name
    _open_lab(page, lab_server)
    lab_cmd(page, "launcher:create", {"cwd": "embias-report"})
    _section(page).filter(visible=True).locator(".jp-LauncherCard", has=page.locator(
        ".jp-LauncherCard-label", has_text=re.compile("^WEAT explorer$"))).click()
    page.wait_for_function(
        f"""() => {{
            const w = {APP}.shell.currentWidget;
            return w?.context?.path === 'weat-explorer-2.ipynb'
                && w.content.model?.sharedModel.cells[0]?.getSource().includes('WeatExplorer');
        }}""", timeout=120_000)
    assert taken.read_text() == "{}" and not list(report.glob("*.ipynb"))
    bars = page.locator(".embias-effect-size-bars").first  # drawn with no "run" of ours: the card ran its cell
    expect(bars).to_have_attribute("data-effect-size", re.compile(r"^-?\d"), timeout=120_000)
    shown = float(bars.get_attribute("data-effect-size"))
    # the same number from the analysis layer, computed apart from the widget in the same kernel
    run_code(page, 'from embias_widgets.analysis import run_suite\n'
                   'print("REF-D", repr(run_suite(["weat6"], ["glove-6b-50d"]).records()[0]["effect_size"]))')
    out = page.locator(".jp-OutputArea-output", has_text="REF-D").last
    expect(out).to_be_visible(timeout=60_000)
    printed = re.search(r"REF-D (\S+)", out.inner_text())
    assert printed, out.inner_text()
    reference = float(printed[1])
    assert shown == pytest.approx(reference, abs=1e-9)
    assert 1.5 < shown < 2.0  # Caliskan Test 6 on GloVe 6B 50d: a large positive effect
    assert not page.errors, page.errors


def _write_reports(root, report_dir) -> None:
    folder = root / "reports"
    folder.mkdir(exist_ok=True)
    text = (report_dir / "report.json").read_text(encoding="utf-8")
    (folder / "report.json").write_text(text)
    evil = json.loads(text)  # a figure and a note a hostile file could hold
    evil["sections"][0]["figure"]["svg"] = EVIL_SVG
    evil["sections"][0]["notes"].append(NOTE)
    (folder / "evil.report.json").write_text(json.dumps(evil))
    (folder / "myreport.json").write_text(text)
    (folder / "other.json").write_text(json.dumps({"a": 1}))
    (folder / "broken.report.json").write_text(json.dumps({"schema": "something-else/2", "sections": []}))
    (folder / "garbled.report.json").write_text('{"schema": "embias-report/1", ')
    (folder / "minimal.report.json").write_text(json.dumps({"schema": "embias-report/1", "sections": [{}]}))


def _double_click(page, name: str) -> None:
    item = page.locator(".jp-DirListing-item", has=page.locator(".jp-DirListing-itemText",
                                                              has_text=re.compile(f"^{re.escape(name)}$")))
    item.dblclick()


# one evaluate per width and theme: the header's seed and alpha, every table's cells, sideways scroll (the
# page, the panel, the report, each table's card), the sizes line whole, and the figures' text colour
_CHECKS = r"""
(sel) => {
  const view = [...document.querySelectorAll(sel)].find((v) => v.offsetParent !== null);
  const report = view.querySelector('.embias-report-viewer');
  const right = report.getBoundingClientRect().right;
  const texts = [...report.querySelectorAll(':scope > p')].map((p) => p.textContent);
  const sizes = [...report.querySelectorAll(':scope > p')].find((p) => p.textContent.includes('sizes:'));
  return {
    header: texts[0], sizes: sizes?.textContent,
    sizesClipped: sizes ? sizes.scrollWidth - sizes.clientWidth : null,
    tables: [...report.querySelectorAll('table')].map((t) => [...t.querySelectorAll('td')].map((td) => td.textContent)),
    pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
    viewOverflow: view.scrollWidth - view.clientWidth, reportOverflow: report.scrollWidth - report.clientWidth,
    cardsOut: Math.max(...[...report.querySelectorAll('.rv-scroll')]
      .map((c) => c.getBoundingClientRect().right - right)),
    tableScrolls: [...report.querySelectorAll('.rv-scroll')].filter((c) => c.querySelector('table'))
      .every((c) => getComputedStyle(c).overflowX === 'auto'),
    figures: report.querySelectorAll('svg').length,
    chartText: [...new Set([...report.querySelectorAll('svg text')].map((t) => getComputedStyle(t).fill))],
    fg: getComputedStyle(report).color,
  };
}
"""


def test_report_file_opens_as_report_html_shows_it(lab_server, page, report_dir):
    """report.json double-clicked: the blocks report.html is drawn from, written the same way (every table cell
    the same text, seed 0 and alpha 0.01 as written), in Light and Dark at 390, 1000 and 1400 px: no sideways
    scroll, tables scrolling inside their card, every text (the figures' included) at least 4.5:1."""
    from playwright.sync_api import expect

    _write_reports(lab_server["root"], report_dir)
    _open_lab(page, lab_server)
    factory = page.evaluate(
        f"""() => Object.fromEntries(['reports/report.json', 'a.report.json', 'reports/myreport.json',
              'other.json', 'report.json.bak'].map((p) => [p, {APP}.docRegistry.defaultWidgetFactory(p)?.name]))""")
    assert factory["reports/report.json"] == FACTORY and factory["a.report.json"] == FACTORY
    assert FACTORY not in {factory["reports/myreport.json"], factory["other.json"], factory["report.json.bak"]}
    open_with = page.evaluate(f"() => {APP}.docRegistry.preferredWidgetFactories('report.json').map((f) => f.name)")
    assert open_with[0] == FACTORY and "Editor" in open_with, open_with

    _command(page, "filebrowser:go-to-path", {"path": "reports"})
    _double_click(page, "report.json")
    view = page.locator(VIEW).last
    expect(view.locator(".rv-h1")).to_have_text(TITLE, timeout=60_000)  # user text as text
    expect(view.locator("details")).to_have_count(3)
    html_cells = _html_cells(report_dir)
    options = json.loads((report_dir / "report.json").read_text())["provenance"]["options"]
    assert (options["seed"], options["alpha"]) == (0, 0.01)
    page.evaluate(f"() => {APP}.shell.collapseLeft()")
    for theme in ("light", "dark"):
        set_theme(page, theme)
        for width in (390, 1000, 1400):
            page.set_viewport_size({"width": width, "height": 900})
            next_frames(page)
            label = f"labextension viewer {width}px {theme}"
            got = page.evaluate(_CHECKS, VIEW)
            assert got["header"].endswith("· seed 0 · alpha 0.01"), (label, got["header"])
            assert got["sizes"].startswith("quick sizes: permutations per test: 100,000") and got["sizesClipped"] <= 0
            assert got["tables"] == html_cells, (label, got["tables"][:2], html_cells[:2])
            assert got["pageWidth"] <= got["viewport"], f"{label}: the page scrolls sideways ({got['pageWidth']} px)"
            assert got["viewOverflow"] <= 0 and got["reportOverflow"] <= 0 and got["cardsOut"] <= 0.5, (label, got)
            assert got["tableScrolls"] and got["figures"] == 3, label
            assert got["chartText"] == [got["fg"]], (label, got["chartText"], got["fg"])  # the theme's text colour
            check_contrast(page, VIEW, label, theme)
            check_graphics_contrast(page, VIEW, label, theme)  # every bar, whisker and swatch at 3:1
            if width == 1000:
                screenshot_widgets(page, VIEW, "report-file-viewer", theme)
    page.set_viewport_size({"width": 1400, "height": 1000})
    set_theme(page, "light")
    page.evaluate(f"() => {APP}.shell.expandLeft()")

    # a hostile file: notes stay text, the figure is inline SVG with only drawing elements left
    _double_click(page, "evil.report.json")
    expect(page.locator(VIEW)).to_have_count(2, timeout=30_000)
    evil = page.locator(VIEW).last
    expect(evil.locator("li", has_text="2 words out of vocabulary")).to_have_text(NOTE, timeout=60_000)
    assert evil.locator("b, img, script, foreignObject, image, a").count() == 0
    left = page.evaluate(r"""(sel) => {
        const svg = [...document.querySelectorAll(sel)].pop().querySelector('details svg');
        const attrs = [...svg.querySelectorAll('*'), svg]
            .flatMap((e) => [...e.attributes].map((a) => a.name + '=' + a.value));
        return {tags: [...new Set([...svg.querySelectorAll('*')].map((e) => e.localName))].sort(),
                bad: attrs.filter((a) => /^on|href|url\(|javascript:/i.test(a)),
                text: svg.querySelector('text')?.textContent};
    }""", VIEW)
    assert left["tags"] == ["clipPath", "defs", "g", "rect", "text"] and left["bad"] == [], left
    assert left["text"] == "d = 1.70", left
    evil.locator("rect.bar").dispatch_event("click")
    assert page.evaluate("() => window.__embiasPwned") is None
    assert not page.dialogs, page.dialogs

    # a file with another schema, bad JSON or missing fields says so in one line; other JSON keeps its editor
    _double_click(page, "broken.report.json")
    expect(page.locator(".embias-report-error").last).to_contain_text("schema 'something-else/2'", timeout=30_000)
    _double_click(page, "garbled.report.json")
    expect(page.locator(".embias-report-error")).to_have_count(2, timeout=30_000)
    expect(page.locator(".embias-report-error").last).to_contain_text("garbled.report.json: not valid JSON")
    _double_click(page, "minimal.report.json")
    expect(page.locator(".embias-report-error")).to_have_count(3, timeout=30_000)
    expect(page.locator(".embias-report-error").last).to_contain_text("'title' is missing")
    for name in ("other.json", "myreport.json"):
        _double_click(page, name)
        page.wait_for_function(f"(n) => {APP}.shell.currentWidget?.context?.path === 'reports/' + n",
                               arg=name, timeout=30_000)
        assert page.evaluate(f"() => {APP}.shell.currentWidget.node.querySelector('.embias-report') === null")
    _command(page, "docmanager:open", {"path": "reports/report.json", "factory": "Editor"})
    page.wait_for_function(f"() => {APP}.shell.currentWidget?.node.querySelector('.jp-FileEditor') !== null",
                           timeout=30_000)
    assert not page.errors, page.errors


def test_a_report_opens_with_one_request_and_no_refusal(lab_server, page, report_dir):
    """Opening report.json asks the server for its page once, with the file's text: not with the empty text the
    document holds before it has loaded (the server refused those: "400 POST /embias-widgets/report-page" in
    its log, six times a report), nor again on every resize of the panel."""
    from playwright.sync_api import expect

    folder = lab_server["root"] / "one-request"
    folder.mkdir(exist_ok=True)
    (folder / "report.json").write_text((report_dir / "report.json").read_text(encoding="utf-8"))
    _open_lab(page, lab_server)
    sent: list[int] = []
    page.on("request", lambda r: r.url.endswith("/report-page") and sent.append(len(r.post_data_buffer or b"")))
    log_before = len(lab_server["log"].read_text())
    _command(page, "docmanager:open", {"path": "one-request/report.json"})
    expect(page.locator(VIEW).last.locator(".rv-h1")).to_have_text(TITLE, timeout=60_000)
    for width in (700, 1100, 1400):  # the panel resized: nothing asked again
        page.set_viewport_size({"width": width, "height": 900})
        next_frames(page)
    page.wait_for_timeout(300)
    assert sent == [(folder / "report.json").stat().st_size], sent
    log = lab_server["log"].read_text()[log_before:]
    assert "400 POST /embias-widgets/report-page" not in log, log[-2000:]
    assert not page.errors, page.errors
