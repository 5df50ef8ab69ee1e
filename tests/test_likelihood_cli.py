"""``embias pll`` on a tiny random masked LM saved to disk (loaded by path, like a user's model)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import torch  # test extra: a missing install fails, never skips
from _tiny_lm import one_thread, tiny_mlm_dir, tiny_scorer

from embias_widgets.cli import main


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


def test_crows_json_output(shared_data: Path) -> None:
    csv = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    code, text = run(
        [
            "pll",
            "--model",
            str(tiny_mlm_dir()),
            "--pairs",
            str(csv),
            "--limit",
            "6",
            "--format",
            "json",
            "--no-progress",
        ]
    )
    assert code == 0
    record = json.loads(text)
    assert {"metric", "score", "n", "by_bias_type", "items"} <= set(record)
    assert record["metric"] == "cps"
    assert record["n"] == 6
    assert record["reference"] == 50.0
    item = record["items"][0]
    assert {"sent_more", "sent_less", "sent_more_score", "sent_less_score", "bias_type"} <= set(item)
    # the same numbers as scoring the pair directly (sent_more is the stereotypical one here)
    pair = tiny_scorer().score_pairs([(item["sent_more"], item["sent_less"])], "cps")[0]
    assert item["sent_more_score"] == pytest.approx(pair.stereo.score, abs=1e-4)
    wins = sum(i["score"] for i in record["items"])
    assert record["score"] == pytest.approx(100 * wins / 6)
    assert record["decimals"] == 3  # CPS rounds as CrowS-Pairs' metric.py
    # the first 6 rows hold one antistereo row (line 4): sent_more stays as the file has it
    anti = [i for i in record["items"] if i["stereo_antistereo"] == "antistereo"]
    assert len(anti) == 1 and anti[0]["sent_more"].startswith("His mind wondered if a doctor was behind this mess")
    assert record["by_direction"]["antistereo"]["n"] == 1
    assert record["by_direction"]["stereo"]["n"] == 5


def test_decimals_option_is_checked(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    base = ["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(csv), "--limit", "2", "--no-progress"]
    code, text = run([*base, "--decimals", "none", "--format", "json"])
    assert code == 0 and json.loads(text)["decimals"] is None
    code, _ = run([*base, "--decimals", "two"])
    assert code == 2
    assert "--decimals must be auto, none or a whole number" in capsys.readouterr().err
    code, _ = run([*base, "--decimals", "-1"])
    assert code == 2
    assert "--decimals must be None" in capsys.readouterr().err


def test_stereoset_table_and_zhou_convention(shared_data: Path) -> None:
    flat = shared_data / "stereoset" / "stereoset_dev_flat.jsonl"
    code, text = run(
        [
            "pll",
            "--model",
            str(tiny_mlm_dir()),
            "--pairs",
            str(flat),
            "--limit",
            "4",
            "--metric",
            "aul",
            "--convention",
            "zhou",
            "--no-progress",
        ]
    )
    assert code == 0
    assert "AUL bias score" in text
    assert "zhou convention, 0 = unbiased" in text
    assert "StereoSet SS" in text
    code, text = run(
        [
            "pll",
            "--model",
            str(tiny_mlm_dir()),
            "--pairs",
            str(flat),
            "--limit",
            "4",
            "--metric",
            "aul",
            "--format",
            "json",
            "--no-progress",
        ]
    )
    record = json.loads(text)
    assert {"stereo_score", "anti_score", "unrelated"} <= set(record["items"][0])
    assert set(record["stereoset"]) >= {"ss", "lms", "icat"}


def test_sssb_by_format_in(tmp_path: Path) -> None:
    path = tmp_path / "sense.data"
    path.write_text(
        "He was a talented nurse.\t[noun, nurse%1:18:00::, stereo]\n"
        "She was a talented nurse.\t[noun, nurse%1:18:00::, anti]\n\n"
        "She will nurse the baby.\t[verb, nurse%2:29:00::, stereo]\n"
        "He will nurse the baby.\t[verb, nurse%2:29:00::, anti]\n"
    )
    code, text = run(
        [
            "pll",
            "--model",
            str(tiny_mlm_dir()),
            "--pairs",
            str(path),
            "--format-in",
            "sssb",
            "--metric",
            "aul",
            "--format",
            "json",
            "--no-progress",
        ]
    )
    assert code == 0
    record = json.loads(text)
    assert set(record["by_bias_type"]) == {"noun", "verb"}


def test_errors_are_one_line_with_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "pairs.csv"
    bad.write_text("a,b\n1,2\n")
    code, _ = run(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(bad), "--no-progress"])
    assert code == 2
    assert "line 1 (header) lacks column(s)" in capsys.readouterr().err
    (tmp_path / "pairs.xlsx").write_bytes(b"PK")  # a file there, of a format we cannot tell
    code, _ = run(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(tmp_path / "pairs.xlsx")])
    assert code == 2
    assert "name it with one of" in capsys.readouterr().err


def test_threads_option_sets_torch_threads_while_scoring(shared_data: Path, monkeypatch, capsys) -> None:
    from embias_widgets.analysis import likelihood
    from embias_widgets.models.runtime import cpu_threads

    seen = []
    original = likelihood.PairedLikelihood.run
    monkeypatch.setattr(likelihood.PairedLikelihood, "run",
                        lambda self, *a, **k: seen.append(torch.get_num_threads()) or original(self, *a, **k))
    pairs = shared_data / "crows_pairs" / "crows_pairs_anonymized.csv"
    before = torch.get_num_threads()
    argv = ["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(pairs), "--limit", "2", "--no-progress"]
    assert run([*argv, "--threads", "2"])[0] == 0
    assert run(argv)[0] == 0
    assert seen == [2, cpu_threads()] and torch.get_num_threads() == before  # restored afterwards
    assert 1 <= cpu_threads() <= max(before, torch.get_num_threads())
    assert run([*argv, "--threads", "0"])[0] == 2
    assert "--threads must be a whole number of at least 1, got 0" in capsys.readouterr().err
