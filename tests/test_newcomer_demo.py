"""A newcomer's path through the demo (issue 31, item 19): without WordNet the sense selector shows why it cannot
look anything up and how to install WordNet, as its error line, instead of raising, so demo.ipynb run to its end
reaches the NLI cell; the demo's text needs no LaTeX renderer (Voila offline showed ``$s(w, A, B)$`` raw); the
Binder instructions hold no placeholder address."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from embias_widgets.stimuli.wordnet import WordNetNotFoundError
from embias_widgets.widgets import SenseSelector, sense_selector

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "notebooks" / "demo.ipynb"

#: Run first in the kernel: no Debian WordNet files and no nltk data path, so load_wordnet finds nothing.
NO_WORDNET = """
from pathlib import Path
import nltk
import embias_widgets.stimuli.wordnet as _wn
_wn.DEBIAN_WORDNET_DIR = Path("/nonexistent-wordnet")
nltk.data.path[:] = []
"""


def _missing() -> None:
    raise WordNetNotFoundError("no WordNet 3.0 data found: install it offline with `apt-get install wordnet-base`")


def test_a_selector_without_wordnet_shows_why_and_refuses_picks(monkeypatch):
    monkeypatch.setattr(sense_selector, "load_wordnet", _missing)
    selector = SenseSelector(["nurse%1:18:00::"], label="pick senses")  # raised WordNetNotFoundError before
    assert selector.error.startswith("This sense selector needs WordNet 3.0, which is not installed here")
    assert "apt-get install wordnet-base" in selector.error
    assert selector.selected == [] and selector.chips == []
    selector.set_state({"query": "nurse"})  # typing looks nothing up; the error stays
    assert selector.senses == [] and "WordNet 3.0" in selector.error
    selector.set_state({"selected": ["nurse%1:18:00::"]})
    assert selector.selected == [] and "needs WordNet 3.0" in selector.refused["selected"]["reason"]


@pytest.mark.slow
@pytest.mark.notebook
def test_demo_runs_to_its_end_without_wordnet(tmp_path):
    nb = nbformat.read(DEMO, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(NO_WORDNET))
    nb.cells.append(nbformat.v4.new_code_cell(
        'print("SENSES:", senses.error[:60]); print("NLI:", type(nli).__name__, nli.error == "")'))
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   shutdown_kernel="immediate").execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors
    printed = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert "SENSES: This sense selector needs WordNet 3.0" in printed
    assert "NLI: NliExplorer True" in printed


def test_the_demo_text_needs_no_latex_renderer():
    nb = nbformat.read(DEMO, as_version=4)
    math = [m for c in nb.cells if c.cell_type == "markdown" for m in re.findall(r"\$[^$\n]+\$", c.source)]
    assert math == []


def test_the_binder_instructions_hold_no_placeholder():
    text = (ROOT / "docs" / "getting-started.md").read_text()
    assert "OWNER" not in text and "REPO/" not in text
    assert "your own clone" in text
