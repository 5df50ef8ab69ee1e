"""``embias pll --level``: every pair bias score carries its Wilson interval, its decided share with theirs and
the sign test of its decided pairs, and every StereoSet score its target bootstrap interval, in the JSON and the
table, computed from the result's own counts and items."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from _tiny_lm import one_thread, tiny_mlm_dir
from scipy import stats

from embias_widgets.cli import main
from embias_widgets.formatting import format_value


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


def _pll(pairs: Path, *extra: str) -> tuple[int, str]:
    return run(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(pairs), "--no-progress", *extra])


def _check_group(record: dict, level: float, reference: float) -> None:
    n, ties = record["n"], record["n_ties"]
    k = round((record["score"] - reference + 50) * n / 100)
    ci = stats.binomtest(k, n).proportion_ci(level, method="wilson")
    iv = record["score_interval"]
    assert iv["low"] == pytest.approx(100 * ci.low + reference - 50, abs=1e-9)
    assert iv["high"] == pytest.approx(100 * ci.high + reference - 50, abs=1e-9)
    assert iv["level"] == level and "n and never in k" in iv["method"]
    assert record["n_decided"] == n - ties and 0 <= ties <= n
    if n - ties:  # the sign test of the decided pairs, and their share with its Wilson interval
        assert record["p_value"] == pytest.approx(stats.binomtest(k, n - ties, 0.5).pvalue, abs=1e-12)
        assert record["percent_of_decided"] == pytest.approx(100 * k / (n - ties))
        ci = stats.binomtest(k, n - ties).proportion_ci(level, method="wilson")
        assert record["percent_of_decided_interval"]["low"] == pytest.approx(100 * ci.low, abs=1e-9)
    else:
        assert record["p_value"] is None and record["percent_of_decided_interval"] is None


def test_crows_json_intervals_at_a_level(shared_data: Path) -> None:
    csv = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    code, text = _pll(csv, "--limit", "12", "--format", "json", "--level", "0.9", "--convention", "zhou")
    assert code == 0
    record = json.loads(text)
    items = record["items"]
    k = sum(1 for it in items if it["sent_more_score"] is not None
            and round(it["sent_more_score"], 3) > round(it["sent_less_score"], 3))
    assert record["score"] == pytest.approx(100 * k / len(items) - 50)
    _check_group(record, 0.9, 0.0)
    for group in [*record["by_bias_type"].values(), *record["by_direction"].values()]:
        _check_group(group, 0.9, 0.0)
    for group in record["by_direction"].values():  # metric.py's sub-score: ties left out, no shift
        k, decided = group["n_more_preferred"], group["n"] - group["n_ties"]
        ci = stats.binomtest(k, decided).proportion_ci(0.9, method="wilson")
        assert group["percent_of_decided_interval"]["low"] == pytest.approx(100 * ci.low)
    assert "sign test" in record["p_value_method"] and "decided pairs" in record["p_value_method"]


def test_table_shows_intervals_and_the_tie_rule(shared_data: Path) -> None:
    csv = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    code, text = _pll(csv, "--limit", "8")
    assert code == 0
    assert "95% Wilson interval" in text and "of the decided pairs prefer" in text and "sign test p" in text
    header = next(line for line in text.splitlines() if line.startswith("bias_type"))
    assert header.split()[:6] == ["bias_type", "score", "score_interval", "percent_of_decided",
                                  "percent_of_decided_interval", "p_value"]
    assert "counts in n and never in k" in text and "50 means no bias only without ties" in text
    # every number as report.html writes it (the one formatter): percentages with 1 decimal, p in one style
    record = json.loads(_pll(csv, "--limit", "8", "--format", "json")[1])
    lines = text.splitlines()
    for bias_type, v in record["by_bias_type"].items():
        row = next(line for line in lines[lines.index(header) + 1:] if line.split()[0] == bias_type)
        want = [format_value(v["score"], "percent"), format_value(v["score_interval"], "percent"),
                format_value(v["p_value"], "p")]
        assert all(w in row for w in want), (row, want)


def test_stereoset_json_intervals_reproducible(shared_data: Path) -> None:
    flat = shared_data / "stereoset" / "stereoset_dev_flat.jsonl"
    args = ("--limit", "24", "--metric", "aul", "--format", "json")
    code, text = _pll(flat, *args)
    assert code == 0
    s = json.loads(text)["stereoset"]
    for name in ("ss", "lms", "icat"):
        iv = s[f"{name}_interval"]
        assert iv["level"] == 0.95 and "targets with replacement" in iv["method"] and "per target" in iv["method"]
        assert iv["low"] <= iv["high"]
    assert np.isfinite(s["by_bias_type"][next(iter(s["by_bias_type"]))]["ss_interval"]["low"])
    assert json.loads(_pll(flat, *args)[1])["stereoset"] == s  # seeded: the same on every run


def test_level_refused_in_one_line(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    code, _ = _pll(csv, "--limit", "2", "--level", "95")
    assert code == 2
    assert "--level must be a number strictly between 0 and 1" in capsys.readouterr().err
