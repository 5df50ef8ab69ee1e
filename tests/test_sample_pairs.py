"""The README's ``embias pll`` example names a file every newcomer has offline (issue 31, item 20): ``--pairs
sample`` is ten bundled pairs in the CrowS-Pairs layout, each a minimal edit."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from _cli_inprocess import embias_inprocess
from _tiny_lm import one_thread

from embias_widgets.analysis.likelihood.pair_checks import minimal_edit_warning
from embias_widgets.stimuli.pairs import read_pairs
from embias_widgets.stimuli.pairs.sample import resolve_pairs_source, sample_pairs_path

README = Path(__file__).resolve().parents[1] / "README.md"
_threads = pytest.fixture(autouse=True, scope="module")(one_thread)


def test_the_sample_is_ten_minimal_edit_pairs_in_the_crows_layout():
    pairs = read_pairs(str(sample_pairs_path()), format_in="crows")
    assert len(pairs) == 10 and len({p.bias_type for p in pairs}) >= 4
    assert all(not minimal_edit_warning(p.stereo, p.anti) for p in pairs), [
        minimal_edit_warning(p.stereo, p.anti) for p in pairs]


def test_a_file_named_sample_in_the_working_folder_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_pairs_source("sample") == str(sample_pairs_path())
    (tmp_path / "sample").write_text("mine")
    assert resolve_pairs_source("sample") == "sample" and resolve_pairs_source("x.csv") == "x.csv"


@pytest.mark.slow  # loads the demo MLM (about 90 MB of weights)
def test_the_readmes_pll_example_runs_offline():
    commands = re.findall(r"`(embias pll [^`]*)`", README.read_text(encoding="utf-8"))
    assert commands and all("--pairs sample" in c for c in commands), commands
    for command in commands:
        run = embias_inprocess(*shlex.split(command)[1:], "--format", "json", "--no-progress")
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout)["n"] == 10
