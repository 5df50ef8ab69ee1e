"""Long commands state their size and a measured estimate before they start, and show progress by default
on a terminal (issue 31, item 17): ``embias nli --probe gender-occupation`` is 1,912,896 pairs and printed
nothing for 10 minutes. The thresholds are lowered here so tiny models show it in a second."""

from __future__ import annotations

import csv
import io
import re

import pytest
from _cli_inprocess import embias_inprocess
from _tiny_lm import one_thread, tiny_mlm_dir
from _tiny_nli import tiny_nli_dir

from embias_widgets.cli import estimates
from embias_widgets.cli import nli as nli_cli
from embias_widgets.cli import pll as pll_cli
from embias_widgets.cli.estimates import duration, progress_default


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


def test_a_long_nli_run_states_its_size_and_a_measured_estimate_first(monkeypatch):
    """The size at once, before the model is loaded; the estimate before the first chunk is scored (the README's
    `--limit 20000` said nothing for 12.8 s)."""
    from embias_widgets.analysis.nli import study

    monkeypatch.setattr(nli_cli, "MEASURED_NLI_PAIRS", 100)
    seen: dict[str, str] = {}
    real_model, real_run = study.cached_model, study.run_local

    def loading(*args, **kwargs):
        seen.setdefault("model", estimates.sys.stderr.getvalue())
        return real_model(*args, **kwargs)

    def scoring(model, source, todo, *args, **kwargs):
        seen.setdefault("chunks", estimates.sys.stderr.getvalue())
        return real_run(model, source, todo, *args, **kwargs)

    monkeypatch.setattr(study, "cached_model", loading)
    monkeypatch.setattr(study, "run_local", scoring)
    run = embias_inprocess("nli", "--probe", "gender-occupation", "--model", str(tiny_nli_dir()), "--limit", "200",
                           "--device", "cpu", "--format", "json")
    assert run.returncode == 0, run.stderr
    size, estimate = (line for line in run.stderr.splitlines() if line.startswith("embias nli: "))
    assert "gender-occupation: 200 pairs (the first 200 of 1,912,896)" in size
    assert size in seen["model"] and estimate not in seen["model"]  # the size before the model is loaded
    assert estimate in seen["chunks"]  # the estimate before the first chunk is scored
    timed = int(re.search(r"pairs/s on the first (\d+)\)", estimate).group(1))
    rate = float(re.search(r"\(([\d,]+) pairs/s on the first", estimate).group(1).replace(",", ""))
    assert rate > 0 and 32 <= timed <= 200 and "about " in estimate and "--limit N" in estimate


def test_a_local_cpu_run_moves_its_progress_bar_every_few_seconds(monkeypatch):
    """Chunks of about 3 s of work at the measured rate (they were 4,096 pairs: 37 s at 110 pairs/s before the
    bar first moved); a cluster, CUDA and a results directory keep 4,096-pair chunks."""
    from embias_widgets.analysis.nli import study

    assert [estimates.cpu_chunk(r) for r in (None, 5.0, 27.0, 150.0, 400.0, 5_000.0)] == [512, 64, 64, 256, 1024,
                                                                                          4096]
    monkeypatch.setattr(nli_cli, "MEASURED_NLI_PAIRS", 100)
    monkeypatch.setattr(nli_cli, "nli_rate", lambda probe: (27.0, 64))  # a slow CPU: 27 pairs a second
    steps: list[int] = []
    real_run = study.run_local
    monkeypatch.setattr(study, "run_local", lambda model, source, todo, *a, **k: (
        steps.extend(b - a_ for a_, b in todo), real_run(model, source, todo, *a, **k))[1])
    run = embias_inprocess("nli", "--probe", "gender-occupation", "--model", str(tiny_nli_dir()), "--limit", "200",
                           "--device", "cpu", "--format", "json")
    assert run.returncode == 0, run.stderr
    assert "about 7 s in one process here (27 pairs/s on the first 64)" in run.stderr
    assert steps == [64, 64, 64, 8]
    steps.clear()
    run = embias_inprocess("nli", "--probe", "gender-occupation", "--model", str(tiny_nli_dir()), "--limit", "200",
                           "--device", "cpu", "--format", "json", "--chunk-size", "100")
    assert run.returncode == 0 and steps == [100, 100]  # as given


def test_a_long_pll_run_states_its_size_and_a_measured_estimate_first(tmp_path, monkeypatch):
    monkeypatch.setattr(pll_cli, "LONG_PLL_PAIRS", 2)
    path = tmp_path / "pairs.csv"
    pairs = [("The man is a nurse.", "The woman is a nurse."), ("He cried at home.", "She cried at home."),
             ("My father cooks.", "My mother cooks."), ("😀", "😀😀")]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["", "sent_more", "sent_less", "stereo_antistereo", "bias_type"])
        writer.writerows([i, a, b, "stereo", "gender"] for i, (a, b) in enumerate(pairs))
    run = embias_inprocess("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path), "--no-progress")
    assert run.returncode == 0, run.stderr
    line = next(line for line in run.stderr.splitlines() if line.startswith("embias pll: "))
    assert re.search(r"4 pairs \(8 sentences, \d+ tokens\) with ", line) and "about " in line, line
    assert "the first 2 pairs timed" in line  # the emoji pair is refused: not timed


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_on_by_default_at_a_terminal_only(monkeypatch):
    monkeypatch.setattr(estimates.sys, "stderr", _Terminal())
    assert progress_default(None) is True and progress_default(False) is False
    monkeypatch.setattr(estimates.sys, "stderr", io.StringIO())  # a pipe or a log
    assert progress_default(None) is False and progress_default(True) is True
    from embias_widgets.cli.entry import build_parser

    parser = build_parser()
    for command in (["nli", "--probe", "gender-occupation"], ["pll", "--model", "m", "--pairs", "p.csv"]):
        assert parser.parse_args(command).progress is None
        assert parser.parse_args([*command, "--no-progress"]).progress is False
        assert parser.parse_args([*command, "--progress"]).progress is True


@pytest.mark.parametrize(("seconds", "text"), [(0.2, "1 s"), (42, "42 s"), (600, "10 min"), (3 * 3600 + 1200,
                                                                                            "3 h 20 min"),
                                               (7200, "2 h"), (50 * 3600, "2 days 2 h")])
def test_durations_read_as_a_person_says_them(seconds, text):
    assert duration(seconds) == text
