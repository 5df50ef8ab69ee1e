"""The documentation site builds offline with warnings as errors (a broken reference fails it), shows what
it promises (every notebook, every command's --help, the API of every public package, the screenshots), and
the notebooks it renders carry no stored error."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from embias_widgets.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _offline_env() -> dict[str, str]:
    """The build may not reach the network: hub offline, and any HTTP(S) request goes to a closed port."""
    dead = "http://127.0.0.1:9"
    return dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HTTP_PROXY=dead, HTTPS_PROXY=dead,
                http_proxy=dead, https_proxy=dead, NO_PROXY="", no_proxy="")


def sphinx(src: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-E", "-q", "-b", "html", *extra, str(src), str(out)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=_offline_env(), timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = sphinx(DOCS, out)
    assert proc.returncode == 0, f"docs build failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def _html_text(path: Path) -> str:
    return re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8"))


def test_the_site_builds_with_warnings_as_errors(site):
    assert (site / "index.html").is_file()


@pytest.mark.parametrize("page", ["getting-started", "methods/weat-seat", "methods/ripa-debiasing",
                                  "methods/likelihood", "methods/senses", "methods/nli", "widgets", "cli",
                                  "scale-and-real-models", "notebooks", "api", "citing", "contributing",
                                  "changelog"])
def test_every_page_is_there(site, page):
    assert (site / f"{page}.html").is_file()


def test_every_notebook_is_rendered(site):
    assert NOTEBOOKS
    missing = [nb.name for nb in NOTEBOOKS if not (site / "notebooks" / f"{nb.stem}.html").is_file()]
    assert missing == []
    html = _html_text(site / "notebooks" / "quickstart.html")
    assert "WeatExplorer" in html  # the notebook's own code, not an empty page


def test_the_cli_page_is_every_command_help(site):
    """Generated from the parsers: each command's options appear on the page."""
    html = _html_text(site / "cli.html").replace("&#8212;", "--")
    parser = build_parser()
    commands = next(a.choices for a in parser._actions if a.dest == "command")
    assert set(commands) >= {"weat", "pll", "nli"}
    for name, sub in commands.items():
        assert f"usage: embias {name}" in html
        options = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
        missing = [o for o in options if o not in html]
        assert missing == [], f"embias {name}: {missing}"


def test_the_api_page_documents_every_public_name(site):
    import importlib

    html = (site / "api.html").read_text(encoding="utf-8")
    for package in ["embias_widgets.metrics", "embias_widgets.stimuli", "embias_widgets.models",
                    "embias_widgets.analysis", "embias_widgets.widgets", "embias_widgets.classroom"]:
        module = importlib.import_module(package)
        missing = [n for n in module.__all__ if callable(getattr(module, n)) and f'id="{package}.{n}"' not in html]
        assert missing == [], f"{package}: {missing}"


def test_pictures_the_pages_show_exist_and_are_light_and_dark_pairs(site):
    shots = sorted((DOCS / "_static" / "screenshots").glob("*.png"))
    assert shots, "no screenshots: the browser tests write them (tests/browser/conftest.py)"
    for shot in shots:
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", shot.name
    referenced = set(re.findall(r"_static/screenshots/([\w.-]+\.png)", "".join(
        p.read_text(encoding="utf-8") for p in [*DOCS.rglob("*.md"), ROOT / "README.md"])))
    assert referenced <= {s.name for s in shots}
    for name in referenced:  # each widget shown in both themes
        twin = name.replace("-light", "-dark") if "-light" in name else name.replace("-dark", "-light")
        assert twin in {s.name for s in shots}, twin
    assert (site / "_static" / "screenshots" / "weat-0-light.png").is_file()


REMOTE = re.compile(r'<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]*)"')


def test_no_page_loads_anything_from_the_network_and_maths_is_mathml(site):
    """Every page draws offline: no script, style sheet or picture from elsewhere (MathJax came from a CDN, so
    offline a reader saw raw TeX); every formula is MathML written at build time (docs/_ext/mathml.py)."""
    pages = sorted(site.rglob("*.html"))
    remote = [(p.relative_to(site).as_posix(), url) for p in pages for url in REMOTE.findall(p.read_text("utf-8"))]
    assert remote == []
    with_maths = 0
    for page in pages:
        html = page.read_text(encoding="utf-8")
        formulas = re.findall(r'<(span|div) class="math notranslate"[^>]*>(.*?)</\1>', html, re.S)
        with_maths += bool(formulas)
        for _, body in formulas:
            assert body.strip().startswith("<math") and "<semantics>" in body, (page.name, body[:200])
    assert with_maths >= 8  # the method pages, trust.md and the notebooks that hold formulas
    weat = (site / "methods" / "weat-seat.html").read_text(encoding="utf-8")
    assert "<mfrac" in weat and 'display="block"' in weat and "mathjax" not in weat.lower().replace(
        "mathjax_ignore", "")


PAGES_390 = ["index", "getting-started", "widgets", "cli", "report", "api", "trust", "methods/weat-seat",
             "methods/ceat", "methods/likelihood", "methods/bbq", "calibration", "compare", "notebooks/quickstart",
             "notebooks/demo"]


def test_in_chromium_offline_maths_draws_and_no_page_scrolls_sideways_at_390px(site):
    """Every page opened with the network blocked at a phone's 390 px: nothing asked of the network, the page
    no wider than the screen (long code, tables and formulas scroll inside their box), every formula drawn by
    the browser as MathML (a fraction's numerator above its denominator)."""
    chromium = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
    if not Path(chromium).exists():
        if os.environ.get("CI"):
            pytest.fail(f"no Chromium at {chromium}: the README's test command installs it (apt-get install chromium)")
        pytest.skip(f"no Chromium at {chromium} (apt-get install chromium)")
    # in a thread of its own: Playwright's sync API refuses a thread whose asyncio loop another test of this
    # worker left running (nbclient, tornado)
    asked: list[str] = []

    def visit() -> None:
        from playwright.sync_api import sync_playwright

        args = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=args, headless=True)
            context = browser.new_context(viewport={"width": 390, "height": 800})
            context.route(lambda url: not url.startswith(("file:", "data:")),
                          lambda route: (asked.append(route.request.url), route.abort()))
            page = context.new_page()
            for name in PAGES_390:
                page.goto((site / f"{name}.html").as_uri())
                got = page.evaluate(r"""() => ({
                    width: document.documentElement.scrollWidth,
                    maths: [...document.querySelectorAll('math')].map((m) => {
                      const r = m.getBoundingClientRect(); return [r.width, r.height]; }),
                    // a fraction laid out as MathML: its numerator above its denominator (not side by side as text)
                    unstacked: [...document.querySelectorAll('mfrac')].filter((f) => f.children.length !== 2
                      || f.children[0].getBoundingClientRect().bottom > f.children[1].getBoundingClientRect().top + 1)
                      .map((f) => f.textContent.slice(0, 30)),
                    raw: [...document.querySelectorAll('p, li')].map((e) => e.innerText)
                           .filter((t) => /\\(frac|operatorname|sum|mathrm)|\$[^$\s][^$]*\$/.test(t)).slice(0, 3),
                })""")
                assert got["width"] <= 390, f"{name} scrolls sideways: {got['width']} px wide at 390 px"
                assert all(w > 0 and h > 0 for w, h in got["maths"]), f"{name}: a formula is not drawn"
                assert got["unstacked"] == [], f"{name}: a fraction not laid out as one: {got['unstacked']}"
                assert got["raw"] == [], f"{name}: TeX shown as text: {got['raw']}"
            browser.close()

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        pool.submit(visit).result()
    assert asked == []


def test_stored_notebook_outputs_hold_no_error():
    """The docs render notebooks as stored (tests/test_notebooks.py executes them); nothing stored may be an
    error or a traceback."""
    bad = []
    for nb in NOTEBOOKS:
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            for out in cell.get("outputs", []):
                text = "".join(out.get("text", "")) if isinstance(out.get("text"), list) else out.get("text", "")
                if out.get("output_type") == "error" or "Traceback" in text:
                    bad.append(nb.name)
    assert bad == []


def test_a_broken_reference_fails_the_build(tmp_path):
    """The same configuration turns a link to a missing page, and a reference to an undocumented name, into a
    failed build. One build holds both (``--keep-going`` reports every warning), and the warnings it gives are
    exactly those two: so the copied configuration alone builds clean (the control a third build gave)."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(DOCS / "conf.py", src / "conf.py")
    shutil.copytree(DOCS / "_ext", src / "_ext")
    (src / "_static").mkdir()
    (src / "index.md").write_text("# Broken\n\nSee {doc}`no-such-page`.\n\n"
                                  "See {py:func}`embias_widgets.metrics.no_such_metric`.\n", encoding="utf-8")
    proc = sphinx(src, tmp_path / "out")
    assert proc.returncode != 0
    problems = [ln for ln in (proc.stdout + proc.stderr).splitlines()
                if re.search(r"\b(WARNING|ERROR|CRITICAL|SEVERE)\b", ln)]
    assert len(problems) == 2, problems
    assert [ln for ln in problems if "index.md:3:" in ln and "no-such-page" in ln], problems
    assert [ln for ln in problems if "index.md:5:" in ln and "no_such_metric" in ln], problems
