"""Real browser: the demo notebook served as an app by Voila (``voila notebooks/demo.ipynb``).

Code cells are hidden; every widget must render, and a name typed into the WEAT editor must
reach Python and come back as a redrawn effect-size bar.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import time
import uuid

import pytest

from embias_widgets.formatting import format_value

from .conftest import RESULTS, ROOT, _free_port, serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def voila_server(tmp_path_factory, timings):
    home = tmp_path_factory.mktemp("voila")
    port, token = _free_port(), uuid.uuid4().hex
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTER_PLATFORM_DIRS="1", HF_HUB_OFFLINE="1")
    cmd = [sys.executable, "-m", "voila", str(ROOT / "notebooks" / "demo.ipynb"), "--no-browser",
           "--Voila.ip=127.0.0.1", f"--port={port}", "--Voila.port_retries=0", f"--token={token}",
           "--show_tracebacks=True"]
    log_path = home / "voila.log"

    def ready() -> bool:  # single-notebook Voila serves no /api; the port accepting is the signal
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True

    t0 = time.monotonic()
    with serve(cmd, env=env, log_path=log_path, ready=ready, timeout=60, name="voila", cwd=ROOT):
        timings["voila_server_ready_s"] = round(time.monotonic() - t0, 2)
        yield {"url": f"http://127.0.0.1:{port}/?token={token}", "log": log_path}


def test_voila_demo_renders_every_widget_and_recomputes_on_typing(voila_server, page, timings):
    from playwright.sync_api import expect

    t0 = time.monotonic()
    page.goto(voila_server["url"], timeout=120_000)
    # WEAT and SEAT explorers, RIPA plot, likelihood table, sense selector, NLI explorer: all rendered, no code.
    bars = page.locator(".embias-effect-size-bars")
    expect(bars).to_have_count(2, timeout=180_000)
    expect(bars.first).to_have_attribute("data-effect-size", re.compile(r"^1\.70"), timeout=60_000)
    expect(page.locator(".embias-word-set-editor")).to_have_count(2)
    expect(page.locator(".embias-relation-projection")).to_have_count(1, timeout=60_000)
    expect(page.locator(".embias-paired-likelihood-table")).to_have_count(1, timeout=60_000)
    expect(page.locator(".embias-sense-selector .ess-key", has_text="nurse%1:18:00::").first).to_be_visible(
        timeout=60_000)  # the senses of the query, listed by Python
    timings["voila_demo_load_to_widgets_s"] = round(time.monotonic() - t0, 2)
    assert page.locator("text=WeatExplorer(").count() == 0  # sources stripped: an app, not a notebook
    expect(page.locator(".embias-nli-explorer")).to_have_count(1, timeout=60_000)
    for cls in (".embias-relation-projection", ".embias-paired-likelihood-table", ".embias-sense-selector",
                ".embias-nli-explorer"):
        assert page.locator(cls).first.inner_text().strip(), f"{cls} is empty"

    before = bars.first.get_attribute("data-effect-size")
    adder = page.locator(".ewe-add[data-set='targ2']").first
    adder.click()
    t1 = time.monotonic()
    adder.press_sequentially("Mary", delay=20)
    adder.press("Enter")
    expect(bars.first).not_to_have_attribute("data-effect-size", before, timeout=30_000)
    timings["voila_type_to_redraw_s"] = round(time.monotonic() - t1, 3)
    after = float(bars.first.get_attribute("data-effect-size"))
    expect(page.locator("rect.esb-wordbar[data-word='Mary']").first).to_have_count(1)
    expect(page.locator(".esb-value").first).to_contain_text(f"d = {format_value(after, 'effect')}")
    assert abs(after - float(before)) > 1e-6
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "voila-demo.png"), full_page=True)
    assert not [e for e in page.errors if "embias" in e.lower()], page.errors
