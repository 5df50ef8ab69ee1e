"""The command line: JSON output on bundled tests and user files, errors."""

import io
import json
import re
import subprocess
import sys

import pytest
from scipy import stats

from embias_widgets.cli import main
from embias_widgets.stimuli import load_bundled_test, write_test_file

REQUIRED = {"test", "model", "effect_size", "p_value", "exact", "n_permutations",
            "num_targ1", "num_targ2", "num_attr1", "num_attr2", "oov"}


def run(*argv):
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_weat_json_on_bundled_test(glove):
    code, text = run("weat", "weat6", "--format", "json")
    assert code == 0
    data = json.loads(text)
    assert data.keys() >= REQUIRED
    assert data["model"] == "glove-6b-50d" and data["exact"] is True and data["n_permutations"] == 12_870
    assert data["effect_size"] == pytest.approx(1.7078, abs=1e-4)


def test_weat_json_on_user_file_matches_api(tmp_path, glove):
    from embias_widgets.analysis import AssociationTest

    spec = load_bundled_test("weat1").with_set("targ1", load_bundled_test("weat1").targ1)
    path = tmp_path / "my_test.jsonl"
    write_test_file(spec, path)
    code, text = run("weat", str(path), "--format", "json", "--permutations", "5000", "--seed", "4")
    data = json.loads(text)
    api = AssociationTest(str(path), n_samples=5000, seed=4).run()
    assert code == 0 and data["test"] == "my_test"
    assert data["effect_size"] == api.effect_size and data["p_value"] == api.pvalue
    assert data["oov"] == ["gladiola"] and data["exact"] is False and data["n_permutations"] == 5000


def test_ddof_and_parametric_options(glove):
    _, t1 = run("weat", "weat8", "--format", "json", "--ddof", "0")
    _, t2 = run("weat", "weat8", "--format", "json", "--parametric")
    d0 = json.loads(t1)
    par = json.loads(t2)
    assert d0["ddof"] == 0 and d0["effect_size"] > 1.48  # ddof=0 gives a larger |d|
    assert par["method"] == "parametric" and 0 < par["p_value"] < 0.01


def test_several_tests_get_holm(glove):
    code, text = run("weat", "weat6", "weat9", "--format", "json", "--alpha", "0.01")
    assert code == 0
    rows = json.loads(text)
    assert [r["test"] for r in rows] == ["weat6", "weat9"]
    p = [r["p_value"] for r in rows]
    assert rows[0]["significant_holm"] is (min(p) <= 0.01 / 2)
    assert rows[1]["significant_holm"] is False  # weat9 p ~ 0.02 > 0.01


def test_table_output_and_tsv(glove):
    code, text = run("weat", "weat6")
    assert code == 0 and "weat6" in text and "exact" in text
    code, text = run("weat", "weat6", "--format", "tsv")
    header = text.splitlines()[0].split("\t")
    assert header[:9] == ["model", "options", "test", "p_value", "effect_size",
                          "num_targ1", "num_targ2", "num_attr1", "num_attr2"]


def test_unknown_test_is_one_clear_line(capsys):
    code, _ = run("weat", "weat99")
    err = capsys.readouterr().err
    assert code == 2 and "unknown test 'weat99'" in err and "weat1" in err


def test_console_script_entry_point():
    proc = subprocess.run([sys.executable, "-m", "embias_widgets.cli", "weat", "--help"],
                          capture_output=True, text=True, check=True)
    assert "--permutations" in proc.stdout


def test_exact_p_from_cli_equals_scipy(glove):
    from embias_widgets.analysis import AssociationTest

    res = AssociationTest("weat9").run()
    sx, sy = res.core.association_x, res.core.association_y
    ref = stats.permutation_test((sx, sy), lambda x, y, axis: x.sum(axis) - y.sum(axis),
                                 permutation_type="independent", alternative="greater",
                                 n_resamples=float("inf"), vectorized=True)
    _, text = run("weat", "weat9", "--format", "json")
    assert json.loads(text)["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


def test_table_numbers_are_the_one_formatters_as_report_html_writes_them(glove):
    """The CLI table writes d, its interval and p exactly as report.html and the widgets do (issue 30, item 3);
    the JSON keeps every digit."""
    from embias_widgets.formatting import format_interval, format_value

    rec = json.loads(run("weat", "weat6", "weat8", "--format", "json")[1])
    code, text = run("weat", "weat6", "weat8")
    assert code == 0
    for r in rec:
        line = next(line for line in text.splitlines() if line.startswith(r["test"] + " "))
        cells = [format_value(r["effect_size"], "effect"), format_interval(r["effect_size_interval"], "effect"),
                 format_value(r["p_value"], "p"), format_value(r["p_value_holm"], "p")]
        assert all(c in line for c in cells), (line, cells)
    r = rec[0]
    cells = [format_interval(r["effect_size_interval"], "effect"), format_value(r["association_difference"], "number"),
             format_interval(r["association_difference_interval"], "number")]
    assert r["effect_size"] == 1.707777596585637
    assert re.search(r"1\.71\s+" + r"\s+".join(map(re.escape, cells)) + r"\s+< 0\.0001", text)


def test_robustness_lines_use_the_one_formatter(glove):
    """--robustness in the table: the verdict's shares as percentages and the top mover's d as the formatter
    writes them, from the same numbers as the JSON."""
    from embias_widgets.formatting import format_value

    rec = json.loads(run("weat", "weat6", "--robustness", "--format", "json")[1])
    code, text = run("weat", "weat6", "--robustness")
    assert code == 0
    top = max((r for r in rec["influence"] if r["effect_size_change"] is not None),
              key=lambda r: abs(r["effect_size_change"]))
    assert f"{top['word']!r} ({top['category']}) d {format_value(top['effect_size_without'], 'effect')}" in text
    assert "(targ1)" not in text and "(attr2)" not in text  # the test's names for its sets, not internal keys
    st = rec["stability"]
    assert (f"stability [weat6]: {st['verdict']}: {st['reason']} (subsets: "
            f"{format_value(100 * st['share_same_sign'], 'percent')}% same sign") in text
