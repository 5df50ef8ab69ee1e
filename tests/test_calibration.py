"""The calibration suite's fast grid (bench/calibration): every interval's coverage and every test's size, on
data whose truth is known, held to its band. Seeded, so a run is repeatable; the bands are wide enough for the
Monte Carlo error at the fast grid's replicates (e.g. coverage in [0.90, 0.99] at 200)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.calibration import Check, Outcome, all_checks, markdown_table, run_checks, run_setting  # noqa: E402
from bench.calibration.__main__ import main as calibration_main  # noqa: E402


def _t_interval(params: dict, rng: np.random.Generator) -> dict[str, bool]:
    """A process whose answer is known in closed form: Student's t interval for a normal mean covers 0.95."""
    from scipy import stats

    x = rng.normal(params["mu"], 1.0, size=params["n"])
    low, high = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    return {"covered": low <= params["mu"] <= high, "rejects": bool(low > 0 or high < 0)}


T_CHECK = Check(
    name="t-mean", description="normal sample, t interval for its mean",
    outcomes=[Outcome("covered", "t interval", "the normal mean", "coverage", (0.92, 0.98)),
              Outcome("rejects", "t test of mean 0", "mean 0", "size", (0.0, 0.07))],
    replicate=_t_interval, fast=[{"n": 10, "mu": 0.0}], full=[{"n": 10, "mu": 0.0}, {"n": 50, "mu": 1.0}],
    bands=lambda p: {} if p["mu"] == 0 else {"rejects": None},
)


def test_machinery_measures_a_known_coverage_and_size():
    rows = run_setting(T_CHECK, {"n": 10, "mu": 0.0}, reps=2_000, seed=1)
    by_key = {r.key: r for r in rows}
    assert abs(by_key["covered"].rate - 0.95) < 3.5 * by_key["covered"].mc_error
    assert abs(by_key["rejects"].rate - 0.05) < 3.5 * by_key["rejects"].mc_error
    assert by_key["covered"].mc_error == pytest.approx(np.sqrt(0.95 * 0.05 / 2_000), rel=0.1)
    # seeded: the same rows again; another seed, other draws
    assert [r.rate for r in run_setting(T_CHECK, {"n": 10, "mu": 0.0}, reps=300, seed=1)] == \
           [r.rate for r in run_setting(T_CHECK, {"n": 10, "mu": 0.0}, reps=300, seed=1)]
    # a band turned off for a setting reports the rate without a verdict (a power, not a size)
    power = {r.key: r for r in run_setting(T_CHECK, {"n": 50, "mu": 1.0}, reps=50, seed=0)}["rejects"]
    assert power.band is None and power.ok is None and power.rate > 0.9


def test_a_rate_outside_its_band_is_marked_and_the_command_fails(capsys):
    wrong = Check(name="t-mean-wrong", description="coverage held to a band it cannot meet",
                  outcomes=[Outcome("covered", "t interval", "the normal mean", "coverage", (0.99, 1.0))],
                  replicate=_t_interval, fast=[{"n": 10, "mu": 0.0}], full=[])
    rows = run_checks([wrong], grid="fast", reps=400)
    assert rows[0].ok is False
    assert "**no**" in markdown_table(rows)


def test_command_line_runs_one_check_and_writes_json(tmp_path, capsys):
    out = tmp_path / "rows.json"
    names = [c.name for c in all_checks()]
    if not names:
        pytest.fail("the calibration suite holds no checks")
    code = calibration_main(["--grid", "fast", "--reps", "5", "--only", names[0], "--write", str(out)])
    assert code in (0, 1)
    assert out.exists() and '"rows"' in out.read_text()
    assert "| check |" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("check", all_checks(), ids=lambda c: c.name)
def test_fast_grid_keeps_its_promises(check):
    rows = run_checks([check], grid="fast", reps=200, seed=0)
    assert rows, f"{check.name}: the fast grid measured nothing"
    bad = [r for r in rows if r.ok is False]
    assert not bad, "outside their bands:\n" + markdown_table(bad)
