"""Real browser: opening a notebook of notebooks/ in JupyterLab and saving it leaves the file as committed.

JupyterLab writes the kernel's spec (``kernelspec``) and language (``language_info``) into a notebook's metadata
once its kernel starts; where they differ from the file's, the notebook turns dirty (autosave then rewrites
it, and ``git status`` shows it modified on a fresh clone). So the committed metadata is what ipykernel's
``python3`` kernel of the supported environment reports (Python 3.11, as binder/runtime.txt); a kernel of
another Python version still rewrites ``language_info.version``, as JupyterLab does for any notebook. Each
notebook is opened, its kernel's spec and language info awaited, and then: the notebook is not dirty, and after
"Save" its bytes are the committed file's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import APP, ROOT, lab_cmd, open_notebook

pytestmark = pytest.mark.browser

NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))

# the kernel's spec and language info, as NotebookPanel writes them into the metadata (awaited, so that its
# own update has run), and whether that made the notebook dirty
_SETTLED = f"""
async () => {{
  const panel = {APP}.shell.currentWidget;
  const kernel = panel.sessionContext.session.kernel;
  const [info, spec] = [await kernel.info, await kernel.spec];
  await new Promise((done) => setTimeout(done, 200));
  return {{ dirty: panel.content.model.dirty,
            kernel: {{ name: kernel.name, display_name: spec?.display_name, language: spec?.language }},
            language: info.language_info }};
}}
"""


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_opening_and_saving_leaves_the_notebook_as_committed(lab_server, page, name):
    committed = (ROOT / "notebooks" / name).read_bytes()
    copy: Path = lab_server["root"] / name
    copy.write_bytes(committed)  # as a fresh clone has it (an earlier test may have saved its copy)
    open_notebook(page, lab_server, name)
    got = page.evaluate(_SETTLED)
    metadata = json.loads(committed)["metadata"]
    assert metadata["kernelspec"] == got["kernel"], f"{name}: JupyterLab writes another kernelspec: {got}"
    assert metadata["language_info"] == got["language"], f"{name}: JupyterLab writes another language_info: {got}"
    assert got["dirty"] is False, f"{name}: opening it changed it: {got}"
    lab_cmd(page, "docmanager:save")
    page.wait_for_function(f"() => !{APP}.shell.currentWidget.context.model.dirty", timeout=30_000)
    saved = copy.read_bytes()
    assert saved == committed, f"{name}: opened and saved, it differs from the committed file"
