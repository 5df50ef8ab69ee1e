"""Real browser: the prebuilt JupyterLab extension (labextension/) in a running JupyterLab.

- the Launcher has an "embias-widgets" section with a card per widget (the RIPA and sense WEAT widgets
  included), each with its own icon (issue 31, item 21);
- the WEAT explorer card opens a notebook whose first cell runs and draws the
  explorer, with the effect size the kernel computes on its own;
- every card's first cell imports what it names;
- a ``report.json`` double-clicked in the file browser opens rendered (every
  text readable in Light and Dark, its SVG figure inlined with scripts, event
  handlers and external links removed, user text as text), ``*.report.json``
  too, while other JSON files keep their editor and "Open With > Editor" stays.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest

from .conftest import APP, check_contrast, lab_cmd, run_code, screenshot_widgets, set_theme, wait_for_command

pytestmark = pytest.mark.browser
CARDS = ["WEAT explorer", "Sense WEAT explorer", "RIPA projection", "Sense selector", "Likelihood table",
         "NLI explorer", "Report"]
FACTORY = "embias report"
VIEW = ".embias-report-view"

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


def _report() -> dict:
    """A small report in the ``embias-report/1`` schema (what ``embias report`` writes)."""
    return {
        "schema": "embias-report/1", "title": "Audit of glove-6b-50d <b>quick</b>",
        "created": "2025-01-02T03:04:05+00:00", "quick": True,
        "provenance": {"package_version": "0.1.0", "python": "3.11.7", "platform": "Linux-x86_64",
                       "seconds": 12.5, "options": {"seed": 0, "n_samples": 10000}},
        "models": [{"name": "glove-6b-50d", "kind": "static", "fingerprint": "sha256:abc123"}],
        "data_files": {"weat.json": {"source": "bundled", "sha256": "f00d"}},
        "sections": [
            {"id": "weat", "title": "WEAT 1-10", "method": "weat", "model": "glove-6b-50d",
             "what": "Association of target words with attribute words.", "status": "done", "reason": None,
             "seconds": 3.25,
             "table": {"columns": ["test", "d", "p"], "rows": [["weat6", 1.7012345, 0.00012], ["weat7", -0.25, 0.81]]},
             "published": [{"label": "weat6 d", "value": 1.81, "ours": 1.7012345,
                            "source": {"paper": "Caliskan et al. 2017", "table": "Table 1", "row": "Career/family"}}],
             "significance": [{"label": "weat6", "p": 0.00012, "p_holm": 0.00024, "significant": True}],
             "notes": ["<img src=x onerror=alert(1)> 2 words out of vocabulary"],
             "figure": {"svg": EVIL_SVG, "svg_path": "weat.svg", "png_path": "weat.png"}},
            {"id": "crows", "title": "CrowS-Pairs", "method": "crows", "model": "glove-6b-50d", "what": "",
             "status": "skipped", "reason": "CrowS-Pairs not given: embias data fetch crows-pairs",
             "seconds": 0.0, "table": {"columns": [], "rows": []}, "published": [], "significance": [], "notes": [],
             "figure": {"svg": None, "svg_path": None, "png_path": None}},
        ],
        "holm": {"alpha": 0.05, "n_tests": 1},
    }


def _open_lab(page, lab_server) -> None:
    """JupyterLab in a fresh workspace, with this package's extension activated (or a clear failure)."""
    page.goto(f"{lab_server['url']}/lab/workspaces/{uuid.uuid4().hex[:12]}?reset&token={lab_server['token']}")
    page.wait_for_function(f"() => {APP}?.commands?.hasCommand('launcher:create')", timeout=120_000)
    loaded = page.evaluate(f"() => {APP}.hasPlugin('embias-widgets:launcher')")
    assert loaded, ("the embias-widgets labextension is not installed in this environment: `pip install -e .` "
                    "(or `pip install .`) builds it and installs it; check with `jupyter labextension list`")
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
        sources[card_id] = page.evaluate(
            f"async (c) => {{ const p = await {APP}.commands.execute('embias-widgets:new-' + c); "
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


def test_weat_card_opens_a_notebook_that_runs(lab_server, page):
    from playwright.sync_api import expect

    _open_lab(page, lab_server)
    lab_cmd(page, "launcher:create")
    _section(page).locator(".jp-LauncherCard", has=page.locator(".jp-LauncherCard-label",
                                                             has_text=re.compile("^WEAT explorer$"))).click()
    page.wait_for_function(
        f"""() => {{
            const w = {APP}.shell.currentWidget;
            return w?.context?.path?.endsWith('.ipynb')
                && w.content.model?.sharedModel.cells[0]?.getSource().includes('WeatExplorer')
                && w.sessionContext?.session?.kernel?.status === 'idle';
        }}""", timeout=120_000)
    lab_cmd(page, "notebook:run-all-cells")
    bars = page.locator(".embias-effect-size-bars").first
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


def _write_reports(root) -> None:
    folder = root / "reports"
    folder.mkdir(exist_ok=True)
    (folder / "report.json").write_text(json.dumps(_report(), indent=1))
    (folder / "second.report.json").write_text(json.dumps(_report()))
    (folder / "myreport.json").write_text(json.dumps(_report()))
    (folder / "other.json").write_text(json.dumps({"a": 1}))
    (folder / "broken.report.json").write_text(json.dumps({"schema": "something-else/2", "sections": []}))
    (folder / "garbled.report.json").write_text('{"schema": "embias-report/1", ')
    (folder / "minimal.report.json").write_text(json.dumps({"schema": "embias-report/1", "sections": [{}]}))


def _double_click(page, name: str) -> None:
    item = page.locator(".jp-DirListing-item", has=page.locator(".jp-DirListing-itemText",
                                                              has_text=re.compile(f"^{re.escape(name)}$")))
    item.dblclick()


def test_report_file_opens_rendered(lab_server, page):
    from playwright.sync_api import expect

    _write_reports(lab_server["root"])
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
    expect(view.locator(".embias-report-title")).to_have_text("Audit of glove-6b-50d <b>quick</b>", timeout=30_000)
    expect(view.locator(".embias-report-section-title")).to_have_count(2)
    expect(view.locator(".embias-report-section-title").first).to_contain_text("WEAT 1-10")
    expect(view.locator(".embias-report-status")).to_have_text(
        "skipped: CrowS-Pairs not given: embias data fetch crows-pairs")
    first_table = view.locator(".embias-report-section").first.locator("table").first
    expect(first_table.locator("th")).to_have_text(["test", "d", "p"])
    expect(first_table.locator("tbody tr").first.locator("td")).to_have_text(["weat6", "1.7012", "1.20e-4"])
    expect(view.locator(".embias-report-published td")).to_have_text(
        ["weat6 d", "1.81", "1.7012", "Caliskan et al. 2017, Table 1, Career/family"])
    expect(view.locator(".embias-report-significance td")).to_have_text(["weat6", "1.20e-4", "2.40e-4", "yes"])
    expect(view.locator(".embias-report-notes li")).to_have_text(
        ["<img src=x onerror=alert(1)> 2 words out of vocabulary"])
    # user text stays text; the figure is inline SVG with only drawing elements left
    assert view.locator("b, img").count() == 0
    svg = view.locator(".embias-report-figure svg")
    expect(svg).to_have_count(1)
    expect(svg.locator("rect.bar")).to_have_count(1)
    expect(svg.locator("text").first).to_have_text("d = 1.70")
    left = page.evaluate("""(sel) => {
        const svg = document.querySelector(sel);
        const attrs = [...svg.querySelectorAll('*'), svg]
            .flatMap((e) => [...e.attributes].map((a) => a.name + '=' + a.value));
        return {tags: [...new Set([...svg.querySelectorAll('*')].map((e) => e.localName))].sort(),
                bad: attrs.filter((a) => /^on|href=(?!#)|url\\((?!#)|javascript:/i.test(a)),
                clip: svg.querySelector('clipPath')?.id, uses: svg.querySelector('g').getAttribute('clip-path')};
    }""", f"{VIEW} .embias-report-figure svg")
    assert left["tags"] == ["clipPath", "defs", "g", "rect", "text"], left
    assert left["bad"] == [], left
    assert left["clip"] != "clip1" and left["uses"] == f"url(#{left['clip']})", left  # ids kept apart, links kept
    page.locator(f"{VIEW} .embias-report-figure rect.bar").dispatch_event("click")
    assert page.evaluate("() => window.__embiasPwned") is None
    assert not [d for d in page.dialogs], page.dialogs

    # readable in both themes; fits 360 px with the tables scrolling inside themselves
    for theme in ("light", "dark"):
        set_theme(page, theme)
        check_contrast(page, VIEW, "report viewer", theme)
        screenshot_widgets(page, f"{VIEW} .embias-report", "report-viewer", theme)
    overflow = page.evaluate("""(sel) => {
        const view = document.querySelector(sel);
        view.style.width = '360px';
        const report = view.querySelector('.embias-report');
        const out = {report: report.scrollWidth - report.clientWidth,
                     tables: [...view.querySelectorAll('.embias-report-scroll')]
                         .map((s) => s.getBoundingClientRect().right - report.getBoundingClientRect().right)};
        view.style.width = '';
        return out;
    }""", VIEW)
    assert overflow["report"] <= 0 and max(overflow["tables"]) <= 0.5, overflow
    set_theme(page, "light")

    # *.report.json opens rendered too; a file with another schema says so; other JSON keeps its editor
    _double_click(page, "second.report.json")
    expect(page.locator(VIEW)).to_have_count(2, timeout=30_000)
    _double_click(page, "broken.report.json")
    expect(page.locator(".embias-report-error").last).to_contain_text('"schema" is "something-else/2"', timeout=30_000)
    _double_click(page, "garbled.report.json")
    expect(page.locator(".embias-report-error")).to_have_count(2, timeout=30_000)
    expect(page.locator(".embias-report-error").last).to_contain_text("garbled.report.json: not valid JSON")
    _double_click(page, "minimal.report.json")  # every field but the schema and sections may be missing
    expect(page.locator(f"{VIEW} .embias-report-section-title").last).to_contain_text("section 1", timeout=30_000)
    for name in ("other.json", "myreport.json"):
        _double_click(page, name)
        page.wait_for_function(f"(n) => {APP}.shell.currentWidget?.context?.path === 'reports/' + n",
                               arg=name, timeout=30_000)
        assert page.evaluate(f"() => {APP}.shell.currentWidget.node.querySelector('.embias-report') === null")
    _command(page, "docmanager:open", {"path": "reports/report.json", "factory": "Editor"})
    page.wait_for_function(f"() => {APP}.shell.currentWidget?.node.querySelector('.jp-FileEditor') !== null",
                           timeout=30_000)
    assert not page.errors, page.errors
