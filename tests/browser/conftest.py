"""Fixtures for real-browser tests: a throwaway JupyterLab server on 127.0.0.1
and Debian's headless Chromium driven by Playwright (no browser downloads).

Adapted from the recipe in ../shared/docs/widgets-and-browser-tests.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "test-results"
SCREENSHOTS = ROOT / "docs" / "_static" / "screenshots"
LABEXTENSION_BUILD = ROOT / "embias_widgets" / "labextension"
"""Where ``npm run build:all`` writes the labextension: the browser tests' JupyterLab loads this build."""
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
TIMINGS: dict[str, float] = {}

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(cmd: list[str], *, env: dict[str, str], log_path: Path, ready: Callable[[], bool], timeout: float,
          name: str, cwd: Path | None = None) -> Iterator[subprocess.Popen]:
    """Run a server process logging to ``log_path`` until ``ready()`` answers (an OSError means not yet);
    it exiting or ``timeout`` seconds passing is an error with its log. Stopped on exit."""
    with log_path.open("w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited:\n" + log_path.read_text())
                try:
                    if ready():
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(log_path.read_text())
                time.sleep(0.25)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(autouse=True)
def _in_the_browser_group(request):
    """Under ``--dist loadgroup`` every browser test runs in the one worker of the ``browser`` group (one
    JupyterLab server and one Chromium; when the group was lost, each worker started its own)."""
    if os.environ.get("PYTEST_XDIST_WORKER") and request.config.getvalue("loadgroup"):
        assert request.node.nodeid.endswith("@browser"), f"{request.node.nodeid} is outside the browser group"


@pytest.fixture(scope="session")
def timings():
    yield TIMINGS
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "browser-timings.json").write_text(json.dumps(TIMINGS, indent=2))


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory, timings):
    """``jupyter lab`` on 127.0.0.1 with a random port and token, in an isolated root.

    The root holds copies of notebooks/*.ipynb; tests open them by name.
    """
    root = tmp_path_factory.mktemp("labroot")
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(nb, root / nb.name)
    port, token = _free_port(), uuid.uuid4().hex
    env = dict(os.environ,
               JUPYTER_CONFIG_DIR=str(root / ".jupyter_config"),
               JUPYTER_RUNTIME_DIR=str(root / ".jupyter_runtime"),
               JUPYTER_PLATFORM_DIRS="1", HF_HUB_OFFLINE="1")
    # No build check: the page asks the server whether JupyterLab needs a rebuild on every load, and the server
    # answers by running node twice (a version check and `yarn config`); prebuilt extensions never need one.
    (root / ".jupyter_config" / "labconfig").mkdir(parents=True)
    (root / ".jupyter_config" / "labconfig" / "page_config.json").write_text(
        json.dumps({"buildCheck": False, "buildAvailable": False}))
    # this checkout's build of the labextension (npm run build:all), found before the copy installed with the
    # package: JupyterLab takes the first extension of a name, from the extra paths first
    extensions = root / ".labextensions"
    extensions.mkdir()
    if (LABEXTENSION_BUILD / "package.json").is_file():
        (extensions / "embias-widgets").symlink_to(LABEXTENSION_BUILD, target_is_directory=True)
    settings = root / ".lab_user_settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false"}))
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--LabApp.workspaces_dir={root / '.workspaces'}",
           f"--LabApp.user_settings_dir={settings}",
           "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
           f"--LabApp.extra_labextensions_path={extensions}",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
           "--LabApp.extension_manager=readonly"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--ServerApp.allow_root=True")
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
            return r.status == 200

    t0 = time.monotonic()
    log_path = root / "lab.log"
    with serve(cmd, env=env, log_path=log_path, ready=ready, timeout=90, name="jupyter lab"):
        timings["lab_server_ready_s"] = round(time.monotonic() - t0, 2)
        yield {"url": base, "token": token, "root": root, "log": log_path}


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"no Chromium at {CHROMIUM}: the README's test command installs it (apt-get install chromium)")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


VIEWPORT = {"width": 1400, "height": 1000}
_SHARED: dict[str, Any] = {}
"""The page the tests share (see :func:`page`)."""


@pytest.fixture
def page(browser, request):
    """One Chromium page shared by the tests that ask for it, so that JupyterLab loads once, not once a test
    (about 6 s of CPU each time on two cores): :func:`open_notebook` closes the notebooks of earlier tests.
    Each test gets it with the default viewport and no errors or dialogs recorded (and from open_notebook, the
    Light theme); after a failure (a screenshot goes to test-results/) the next test gets a new page."""
    pg = _SHARED.get("page")
    if pg is None or pg.is_closed():
        pg = browser.new_context(viewport=VIEWPORT).new_page()

        def on_dialog(dialog, pg=pg):
            if dialog.type == "beforeunload":  # leaving a JupyterLab that holds an earlier test's unsaved notebook
                dialog.accept()
                return
            pg.dialogs.append(dialog.message)
            dialog.dismiss()

        pg.on("pageerror", lambda e, pg=pg: pg.errors.append(str(e)))
        pg.on("dialog", on_dialog)
        _SHARED["page"] = pg
    pg.errors = []
    pg.dialogs = []
    pg.set_viewport_size(VIEWPORT)
    yield pg
    if getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed:
        RESULTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(RESULTS / f"FAILED-{request.node.name}.png"), full_page=True)
        _SHARED.pop("page", None)
        pg.context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    rep = (yield).get_result()
    setattr(item, "rep_" + rep.when, rep)


APP = "window.jupyterapp"


def wait_for_command(page, command: str) -> None:
    """Wait until ``command`` is registered: plugins activate one after another, so the app's first commands
    being there does not mean the file browser's or a theme's are yet (a missing one still fails, after 60 s)."""
    page.wait_for_function("(c) => window.jupyterapp.commands.hasCommand(c)", arg=command, timeout=60_000)


def lab_cmd(page, command, args=None):
    """Run a JupyterLab command once it is registered (the mechanism Galata uses)."""
    wait_for_command(page, command)
    # awaited, its result not sent back (a command that returns a widget would be serialised whole)
    page.evaluate("async ([c, a]) => { await window.jupyterapp.commands.execute(c, a); }", [command, args or {}])


def python_notebook() -> Any:
    """An empty notebook on the ``python3`` kernel (the tests add their cells and write it to the Lab's root)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


#: On a page where JupyterLab already runs: every main-area tab disposed (unsaved edits of earlier tests dropped,
#: no "save?" dialog), the left area as a fresh workspace has it. Their kernels keep running, as they did when
#: each test had a page of its own (shutting one down waits about 3 s for a kernel that imported torch to exit).
#: False when the page cannot be reused that way (another app, or a dialog left open): then it loads afresh.
_CLEAN_LAB_JS = """
async ([base, leftCollapsed]) => {
  const app = window.jupyterapp;
  if (!location.href.startsWith(base) || !app?.shell || !app.serviceManager) return false;
  if (document.querySelector('.jp-Dialog')) return false;
  for (const w of [...app.shell.widgets('main')]) {
    if (w.context?.model) w.context.model.dirty = false;
    w.dispose();
  }
  if (leftCollapsed) app.shell.collapseLeft(); else app.shell.expandLeft();
  return [...app.shell.widgets('main')].length === 0;
}
"""


def open_notebook(page, lab_server, name, timings=None):
    """Open ``name`` alone and wait until its kernel is idle.

    On a page JupyterLab already runs in (the shared :func:`page`), the earlier tests' tabs are closed first
    (``_CLEAN_LAB_JS``), in the Light theme; otherwise JupyterLab loads in a fresh
    workspace (a workspace of its own: the default one would restore the tabs of earlier tests, and "run all"
    could reach another notebook).
    """
    t0 = time.monotonic()
    base = f"{lab_server['url']}/lab"
    left_collapsed = _SHARED.get("left_collapsed")  # as the first fresh workspace had it
    if left_collapsed is not None and page.evaluate(_CLEAN_LAB_JS, [base, left_collapsed]):
        set_theme(page, "light")
        page.evaluate("(n) => { window.jupyterapp.commands.execute('docmanager:open', {path: n}); }", name)
    else:
        workspace = uuid.uuid4().hex[:12]
        page.goto(f"{base}/workspaces/{workspace}/tree/{name}?reset&token={lab_server['token']}")
    page.wait_for_function(
        f"""(name) => {{
            const w = {APP}?.shell?.currentWidget;
            return w?.context?.path === name && w?.sessionContext?.session?.kernel?.status === 'idle';
        }}""",
        arg=name, timeout=120_000)
    if left_collapsed is None:
        _SHARED["left_collapsed"] = page.evaluate(f"() => {APP}.shell.leftCollapsed")
    if timings is not None:
        timings[f"{name}_load_to_kernel_idle_s"] = round(time.monotonic() - t0, 2)


def run_code(page, code):
    """Append a code cell holding ``code`` to the open notebook and run it (to read the kernel's
    state without a test-only cell in the notebook users open)."""
    n = page.evaluate(f"() => {APP}.shell.currentWidget.content.widgets.length")
    page.evaluate(f"(i) => {{ {APP}.shell.currentWidget.content.activeCellIndex = i; }}", n - 1)
    lab_cmd(page, "notebook:insert-cell-below")
    page.evaluate(
        f"(src) => {{ const nb = {APP}.shell.currentWidget.content; "
        "nb.activeCell.model.sharedModel.setSource(src); }",
        code,
    )
    lab_cmd(page, "notebook:run-cell")


def run_last_cell(page):
    """Re-run the notebook's last cell (to read the kernel's state)."""
    n = page.evaluate(f"() => {APP}.shell.currentWidget.content.widgets.length")
    page.evaluate(f"(i) => {{ {APP}.shell.currentWidget.content.activeCellIndex = i; }}", n - 1)
    lab_cmd(page, "notebook:run-cell")


def py_state(page) -> dict:
    """The JSON a notebook cell printed after ``PY-STATE`` (its last such output): the kernel's state, read back."""
    from playwright.sync_api import expect

    out = page.locator(".jp-OutputArea-output", has_text="PY-STATE").last
    expect(out).to_be_visible(timeout=30_000)
    return json.loads(re.search(r"PY-STATE (.*)", out.inner_text()).group(1))


# -- themes and contrast --------------------------------------------------------------------------------------
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
CONTRAST: dict[str, dict[str, float]] = {}


def set_theme(page, theme: str) -> None:
    """Switch JupyterLab's theme ("light" or "dark") and wait until its variables apply (nothing when the page
    is already in it)."""
    name = THEMES[theme]
    if page.evaluate("() => document.body.dataset.jpThemeName") == name:
        return  # already in it: nothing to restyle
    lab_cmd(page, "apputils:change-theme", {"theme": name})
    page.wait_for_function(
        "(name) => document.body.dataset.jpThemeName === name", arg=name, timeout=30_000)
    next_frames(page)  # the theme's stylesheet is swapped; let the page restyle and the widgets redraw


def _page_function(name: str) -> str:
    """The function in ``name`` (a .js file here, its first line a comment) for ``page.evaluate``, with the
    colour helpers of colours.js (its lines but the comments at its top) put at the top of its body."""
    here = Path(__file__).parent
    head, body = (here / name).read_text().split("\n", 1)[1].split("\n", 1)
    colours = "".join(line for line in (here / "colours.js").read_text().splitlines(keepends=True)
                      if not line.startswith("//"))
    return f"{head}\n{colours}{body}"


_CONTRAST_JS = _page_function("text_contrast.js")


def measure_contrast(page, selector: str) -> list[dict]:
    """Every visible text element of the widgets matching ``selector``, with its contrast ratio."""
    return page.evaluate(_CONTRAST_JS, selector)


def check_contrast(page, selector: str, label: str, theme: str, minimum: float = 4.5) -> float:
    """Assert WCAG AA (>= 4.5:1) for every text element of ``selector``; record and return the minimum."""
    measured = measure_contrast(page, selector)
    assert measured, f"no text measured under {selector}"
    low = [m for m in measured if m["ratio"] < minimum]
    worst = min(m["ratio"] for m in measured)
    CONTRAST.setdefault(label, {})[theme] = worst
    CONTRAST[label][f"{theme}_n_text_elements"] = len(measured)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "contrast.json").write_text(json.dumps(CONTRAST, indent=2))
    assert not low, f"{label} in {theme}: text below {minimum}:1: {low[:8]}"
    return worst


_GRAPHICS_JS = _page_function("graphics_contrast.js")
_OVERLAP_JS = (Path(__file__).parent / "overlapping_text.js").read_text().split("\n", 1)[1]


def check_graphics_contrast(page, selector: str, label: str, theme: str, minimum: float = 3.0) -> float:
    """Assert WCAG 1.4.11 (>= 3:1) for every data shape of ``selector``'s SVGs (graphics_contrast.js: a bar, dot,
    whisker or swatch reads when its fill or its outline reaches 3:1 against the background it is drawn on, as
    the page composites them); record and return the minimum."""
    measured = graphics_contrast(page, selector)
    assert measured, f"no graphics measured under {selector}"
    low = [m for m in measured if m["ratio"] < minimum]
    worst = min(m["ratio"] for m in measured)
    CONTRAST.setdefault(label, {})[f"{theme}_graphics"] = worst
    CONTRAST[label][f"{theme}_n_shapes"] = len(measured)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "contrast.json").write_text(json.dumps(CONTRAST, indent=2))
    assert not low, f"{label} in {theme}: {len(low)} shapes below {minimum}:1, e.g. {low[:6]}"
    return worst


def graphics_contrast(page, selector: str) -> list[dict]:
    """Every data shape of ``selector``'s SVGs with its contrast ratio (graphics_contrast.js)."""
    return page.evaluate(_GRAPHICS_JS, selector)


def overlapping_text(page, selector: str) -> list[dict]:
    """Every two texts of one SVG under ``selector`` drawn into each other (overlapping_text.js)."""
    return page.evaluate(_OVERLAP_JS, selector)


def _screenshot_whole(page, node, path: Path, most: int = 3000) -> None:
    """A screenshot of ``node`` whole: a widget taller than JupyterLab's notebook area (up to ``most`` px) gets a
    viewport that tall for the shot, as the notebook panel clips it and the shot would show the status bar and
    the empty page below it instead; the viewport is given back afterwards."""
    size = page.viewport_size
    height = (node.bounding_box() or {}).get("height", 0)
    grow = size is not None and size["height"] - 250 < height <= most
    if grow:
        page.set_viewport_size({"width": size["width"], "height": int(height) + 300})
        next_frames(page)
    node.scroll_into_view_if_needed()
    node.screenshot(path=str(path))
    if grow:
        page.set_viewport_size(size)
        next_frames(page)


def screenshot_widgets(page, selector: str, stem: str, theme: str) -> None:
    """Save a screenshot of each widget matching ``selector`` under test-results/; with
    ``EMBIAS_UPDATE_SCREENSHOTS=1`` also under docs/_static/screenshots/ for the documentation site (committed,
    so an ordinary test run leaves the working tree as it was)."""
    RESULTS.mkdir(exist_ok=True)
    update_docs = os.environ.get("EMBIAS_UPDATE_SCREENSHOTS") == "1"
    for i, node in enumerate(page.locator(selector).all()):
        _screenshot_whole(page, node, RESULTS / f"{stem}-{i}-{theme}.png")
        if update_docs:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(RESULTS / f"{stem}-{i}-{theme}.png", SCREENSHOTS / f"{stem}-{i}-{theme}.png")


# -- layout: text that lies outside its visible box --------------------------------------------------------------
# Every visible text of each widget root matching `selector` (HTML text nodes measured with a Range, SVG <text>,
# the shown option of a <select>) must be readable where it is: walking up from its element to the widget root,
# an ancestor that clips (overflow hidden/clip) must hold it inside its client box; one that scrolls (auto/scroll)
# must hold it inside its scroll area (reachable by scrolling that container, which is then checked in its place);
# and at the root it must lie inside the widget's own box, cut to what the page's outer containers (the output
# area, the notebook) show horizontally. A <select> whose shown text is wider than its box counts as clipped.
_CLIPPED_JS = (Path(__file__).parent / "clipped_text.js").read_text().split("\n", 1)[1]  # less its comment line


def clipped_text(page, selector: str) -> list[dict]:
    """For each widget root matching ``selector``: its width, how many texts were measured, and every text that
    lies outside its visible box (see clipped_text.js), with where and why."""
    return page.evaluate(_CLIPPED_JS, selector)


def next_frames(page, n: int = 3) -> None:
    """Wait until the page has drawn ``n`` more frames. What a ResizeObserver or IntersectionObserver saw in the
    first is redrawn in the next (js/lib/ui.js ``watchWidth`` measures in an animation frame), so three frames
    cover a scroll or resize and the redraw it causes, in about 50 ms instead of a fixed wait."""
    page.evaluate("(n) => new Promise((done) => { const f = (k) => (k ? requestAnimationFrame(() => f(k - 1)) "
                  ": done()); f(n); })", n)


def set_left_area(page, open_: bool) -> None:
    """Open (the file browser) or collapse JupyterLab's left side area."""
    collapsed = page.evaluate(f"() => {APP}.shell.leftCollapsed")
    if open_ and collapsed:
        lab_cmd(page, "filebrowser:activate")
    elif not open_ and not collapsed:
        page.evaluate(f"() => {APP}.shell.collapseLeft()")
    page.wait_for_function(f"(want) => {APP}.shell.leftCollapsed === !want", arg=open_, timeout=10_000)
    next_frames(page)


#: Notebook cell text: the sense tests' tiny LMMS-format file (``_tiny_senses.write_tiny_lmms``, seed 7) and a
#: ``SenseWeatExplorer`` on it with ``_tiny_senses.occupations_spec()``, named ``explorer``; needs
#: ``SenseWeatExplorer`` imported in the kernel.
TINY_SENSE_EXPLORER = f'''
import sys
from pathlib import Path
sys.path.insert(0, {str(ROOT / "tests")!r})
from _tiny_senses import occupations_spec, write_tiny_lmms
explorer = SenseWeatExplorer(occupations_spec(), model=write_tiny_lmms(Path("tiny-senses.txt"), seed=7), n_samples=2000)
'''
