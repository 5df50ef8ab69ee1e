"""Real browser: the paired-likelihood table holding a baseline model, in JupyterLab Light and Dark: each row says
which sentence the baseline prefers and marks the pairs where the two models disagree, the summary states the
paired change with McNemar's test (Python's numbers), "disagreements only" keeps just those rows; text contrast
at least 4.5:1."""

from __future__ import annotations

import json
import re

import nbformat
import pytest

from .conftest import (
    check_contrast,
    lab_cmd,
    open_notebook,
    python_notebook,
    run_last_cell,
    screenshot_widgets,
    set_theme,
)

pytestmark = pytest.mark.browser
WIDGET = ".embias-paired-likelihood-table"


def _notebook(root, model_dir) -> str:
    nb = python_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import json, os\n"
            "os.environ['HF_HUB_OFFLINE'] = '1'\n"
            "from transformers import AutoModelForMaskedLM, AutoTokenizer\n"
            "import torch\n"
            "from embias_widgets.widgets import PairedLikelihoodTable\n"
            f"path = {str(model_dir)!r}\n"
            "m = AutoModelForMaskedLM.from_pretrained(path)\n"
            "torch.manual_seed(3)\n"
            "with torch.no_grad():  # another model: every weight moved by noise\n"
            "    for w in m.parameters():\n"
            "        w.add_(torch.randn_like(w) * float(w.std() if w.numel() > 1 else 0.1))\n"
            "other = (m, AutoTokenizer.from_pretrained(path))\n"
            "pairs = [('She is a nurse.', 'He is a nurse.', 'gender'), ('He is a doctor.', 'She is a doctor.', "
            "'gender'), ('The poor are lazy.', 'The rich are lazy.', 'socioeconomic'), ('Old people are slow.', "
            "'Young people are slow.', 'age')]\n"
            "table = PairedLikelihoodTable(pairs, model=other, metric='pll', baseline=path, device='cpu')\n"
            "table"
        ),
        nbformat.v4.new_code_cell(
            "print('PY-CMP', json.dumps({'rows': [r['baseline'] for r in table.rows], **table.comparison}))"),
    ]
    name = "likelihood_two_models_test.ipynb"
    nbformat.write(nb, root / name)
    return name


def test_table_with_a_baseline_in_light_and_dark(lab_server, page, timings):
    from _tiny_lm import tiny_mlm_dir
    from playwright.sync_api import expect

    open_notebook(page, lab_server, _notebook(lab_server["root"], tiny_mlm_dir()), timings)
    lab_cmd(page, "notebook:run-all-cells")
    widget = page.locator(WIDGET).first
    expect(widget.locator("tr.plt-row")).to_have_count(4, timeout=90_000)
    out = page.locator(".jp-OutputArea-output", has_text="PY-CMP").last
    expect(out).to_be_visible(timeout=30_000)
    py = json.loads(re.search(r"PY-CMP (.*)", out.inner_text()).group(1))
    for i, base in enumerate(py["rows"]):
        row = widget.locator(f"tr.plt-row[data-index='{i}']")
        expect(row).to_have_attribute("data-disagrees", str(base["disagrees"]).lower())
        expect(row.locator(".plt-baseline")).to_contain_text(f"baseline: {base['preferred']}")
    assert 0 < py["n_disagree"] < 4, py  # the two models disagree on some pairs, not all
    note = widget.locator(".plt-comparison-text")
    expect(note).to_contain_text(f"the models disagree on {py['n_disagree']} of {py['n_pairs']} pairs")
    expect(note).to_contain_text(f"({py['change']['counts']['b']} pairs stereo -> not")
    for theme in ("light", "dark"):
        set_theme(page, theme)
        check_contrast(page, WIDGET, "likelihood table with a baseline", theme)
        screenshot_widgets(page, WIDGET, "likelihood-two-models", theme)
    set_theme(page, "light")
    widget.locator(".plt-disagreements-only").check()
    expect(widget.locator("tr.plt-row")).to_have_count(py["n_disagree"], timeout=30_000)
    run_last_cell(page)
