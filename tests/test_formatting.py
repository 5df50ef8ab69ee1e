"""One number formatter: the Python module and its JavaScript twin write every number the same way, and the
rules are the stated ones (hand-written expectations, ties included)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from embias_widgets.formatting import (
    column_kind,
    column_kinds,
    fixed,
    format_column,
    format_interval,
    format_table,
    format_value,
)

ROOT = Path(__file__).resolve().parent.parent

# (value, kind) pairs around every rule's edges: ties, signs, p floors, whole numbers, missing values
CASES = [(v, k) for k in ("effect", "p", "percent", "number", "count")
         for v in (0.0, -0.0, 1.0, 0.125, -0.125, 0.005, 0.015, 1.005, 2.675, -0.004, 1.707777596585637,
                   -1.0804, 0.8837, 0.0082, 0.02273, 0.0102, 0.00099999, 0.001, 0.0001, 0.00009999, 1e-300,
                   58.25, 58.35, 99.95, 12345.0, 10000, 1234567, None, True, math.nan, math.inf)]
INTERVALS = [({"low": -0.125, "high": 1.305, "level": 0.95, "method": "m"}, k) for k in ("effect", "percent")] + \
    [({"low": 0.0, "high": 1.0}, "number"), (None, "effect")]
COLUMNS = ["test", "effect size d", "95% interval", "p", "p (Holm)", "n X", "OOV", "CPS %", "SS", "LMS",
           "ICAT", "AUL (Zhou: % - 50)", "bias score", "RIPA", "value", "n", "sense d", "word-max d"]


def test_rules_on_hand_written_cases():
    assert format_value(1.707777596585637, "effect") == "1.71"
    assert [format_value(p, "p") for p in (3e-5, 0.0001, 0.00042, 0.02273, 0.0102, 1.0)] == \
        ["< 0.0001", "0.0001", "0.0004", "0.023", "0.010", "1.000"]
    assert format_value(58.333, "percent") == "58.3" and format_value(10000, "count") == "10,000"
    assert fixed(0.125, 2) == "0.13" and fixed(-0.125, 2) == "-0.13"  # half away from zero on exact ties
    assert fixed(2.675, 2) == "2.67"  # 2.675 is 2.67499999... in binary: no tie
    assert fixed(-0.004, 2) == "0.00"
    assert format_value(None) == "—" and format_value(math.nan) == "n/a" and format_value(True) == "yes"
    assert format_interval({"low": 0.52, "high": 1.3}, "effect") == "[0.52, 1.30]"
    assert column_kinds(["test", "effect size d", "95% interval", "p (Holm)"]) == ["number", "effect", "effect", "p"]
    assert column_kind("CPS %") == "percent" and column_kind("n X") == "count"


def _js(script: str) -> object:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to check the front end's formatter (pip install runs npm)")
    proc = subprocess.run([node, "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _json_value(v: object) -> str:
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, float) and math.isinf(v):
        return "Infinity"
    return json.dumps(v)


def test_python_and_javascript_write_every_case_the_same():
    values = "[" + ",".join(f"[{_json_value(v)}, {json.dumps(k)}]" for v, k in CASES + INTERVALS) + "]"
    js = _js("import { formatValue, columnKinds } from './js/lib/format.js';"
             f"const cases = {values};"
             f"console.log(JSON.stringify({{values: cases.map(([v, k]) => formatValue(v, k)),"
             f" kinds: columnKinds({json.dumps(COLUMNS)})}}));")
    py = [format_value(v, k) for v, k in CASES + INTERVALS]
    assert js["values"] == py, [(c, a, b) for c, a, b in zip(CASES + INTERVALS, py, js["values"], strict=True)
                                if a != b]
    assert js["kinds"] == column_kinds(COLUMNS)


# -- a p-value is never rounded across the threshold in force --------------------------------------------------
HOLM_21 = [0.01 / (21 - k) for k in range(21)]  # every step threshold of Holm over 21 p-values at 0.01
P_ALPHA = [(p, a) for a in (0.05, 0.01, [0.01, 0.01 / 15], [0.05, 0.05 / 40], [0.01, 0.00005])
           for p in (0.0098, 0.0102, 0.0099999, 0.010000000000000002, 0.01, 0.00999, 0.0499, 0.04996, 0.05004,
                     0.050, 0.00066, 0.00067, 0.0006666, 0.00049, 0.00125, 0.00124, 0.00003, 0.00006, 0.00009,
                     0.0, 1e-300, 0.5, 1.0, 0.0095, 0.0105)] + [(0.0098, HOLM_21), (0.00047, HOLM_21)]


def _reads(text: str) -> tuple[float, float]:
    """The values a shown p-value stands for: one number, or (0, F) for ``< F``."""
    return (0.0, float(text[2:])) if text.startswith("< ") else (float(text), float(text))


def test_a_p_value_is_never_rounded_across_the_alpha_in_force():
    assert format_value(0.0098, "p") == "0.010"  # without a threshold: the usual 3 decimals
    assert [format_value(p, "p", 0.01) for p in (0.0098, 0.0102, 0.00999, 0.01, 0.023)] == \
        ["0.0098", "0.0102", "0.00999", "0.010", "0.023"]
    assert format_value(0.010000000000000002, "p", 0.01) == "0.010"  # Holm's m * p in floating point: at alpha
    assert [format_value(p, "p", 0.05) for p in (0.0499, 0.04996, 0.05004, 0.049)] == \
        ["0.0499", "0.04996", "0.05004", "0.049"]
    assert format_value(0.00066, "p", [0.01, 0.01 / 15]) == "0.00066"  # a Holm step's threshold 0.000667
    assert format_value(0.00003, "p", 0.01) == "< 0.0001"
    assert format_value(0.00003, "p", [0.01, 0.00005]) == "0.00003"  # "< 0.0001" would not say which side
    for p, alpha in P_ALPHA:
        low, high = _reads(format_value(p, "p", alpha))
        for t in ([alpha] if isinstance(alpha, float) else alpha):
            if p < t * (1 - 1e-9):
                assert high < t, (p, t, low, high)
            elif p > t * (1 + 1e-9):
                assert low > t, (p, t, low, high)
            else:
                assert abs(low - t) <= 1e-9 * t, (p, t, low)


def test_a_column_of_measures_is_written_with_decimals_throughout():
    assert format_column([0.052, 0.0, 1.0], "number") == ["0.052", "0.000", "1.000"]
    assert format_column([3, 0, 12000], "number") == ["3", "0", "12,000"]
    assert format_column([0.0098, 0.0102], "p", [0.01, None]) == ["0.0098", "0.010"]
    assert format_table([[0.268, 0.0, 0.0098], [0.269, 0.0, 0.5]], ["number", "number", "p"], [0.01, 0.01]) == \
        [["0.268", "0", "0.0098"], ["0.269", "0", "0.500"]]


def test_python_and_javascript_agree_on_thresholds_and_columns():
    cases = json.dumps([[p, a] for p, a in P_ALPHA])
    columns = [[[0.052, 0.0, 1.0], "number"], [[3, 0, 12000], "number"], [[0.5, None, True, "x", 0.0], "number"]]
    js = _js("import { formatValue, formatColumn, formatStat } from './js/lib/format.js';"
             f"const cases = {cases}; const columns = {json.dumps(columns)};"
             "console.log(JSON.stringify({p: cases.map(([p, a]) => formatValue(p, 'p', a)),"
             " columns: columns.map(([v, k]) => formatColumn(v, k)), stat: formatStat('p', 0.0098, 'p', 0.01)}));")
    assert js["p"] == [format_value(p, "p", a) for p, a in P_ALPHA]
    assert js["columns"] == [format_column(v, k) for v, k in columns]
    assert js["stat"] == "p = 0.0098"
