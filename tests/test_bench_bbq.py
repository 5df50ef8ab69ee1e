"""``bench/bench_bbq.py`` runs every line on the CPU with tiny shapes (what its GPU run will do, in seconds):
each figure lands in ``--out`` as it is measured, and our scorer and the plain loop agree on every shared item."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch  # noqa: F401  (the bench needs the models extra: a missing one fails here, never skips)

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_bbq import main  # noqa: E402


def test_the_bench_runs_on_tiny_shapes_and_writes_each_figure(shared_data, tmp_path, capsys) -> None:
    out = tmp_path / "bbq.jsonl"
    main(["--shape", "tiny", "--items", "8", "--plain-items", "4", "--warmup", "3", "--threads", "1",
          "--bbq", str(shared_data / "bbq" / "data"), "--out", str(out)])
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["section"] for r in records] == ["setup", "causal-ours", "causal-plain-loop", "causal-ratio",
                                               "masked-ours", "masked-plain-loop", "masked-ratio"]
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert printed == records
    for kind in ("causal", "masked"):
        ratio = next(r for r in records if r["section"] == f"{kind}-ratio")
        assert ratio["max_abs_ll_difference"] < 1e-4 and ratio["same_predictions"]
        assert ratio["speed_ratio"] > 0
        ours = next(r for r in records if r["section"] == f"{kind}-ours")
        assert ours["items"] == 8 and ours["full_bbq_seconds"] == 58_492 / ours["items_per_s"]


def test_a_failing_section_is_recorded_and_the_next_runs(shared_data, tmp_path) -> None:
    out = tmp_path / "bbq.jsonl"
    main(["--shape", "tiny", "--items", "2", "--plain-items", "1", "--warmup", "1", "--kinds", "causal,masked",
          "--dtype", "float64x", "--bbq", str(shared_data / "bbq" / "data"), "--out", str(out)])
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["section"] for r in records] == ["setup", "causal", "masked"]
    assert all("--dtype must be one of" in r["error"] for r in records[1:])
