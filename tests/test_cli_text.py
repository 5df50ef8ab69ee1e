"""What the command line writes around its numbers: p-values never rounded across the alpha in force, one way to
write a column, the likelihood methods' shared clause said once."""

from __future__ import annotations

import io

from _cli_inprocess import embias_inprocess

from embias_widgets.cli.nli import _levels_table
from embias_widgets.cli.pll import methods_line
from embias_widgets.cli.tables import print_table
from embias_widgets.cli.weat import holm_alphas


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()[1:]]


def test_the_weat_table_never_rounds_a_p_value_across_alpha_or_its_holm_step():
    """weat8's Holm p 0.0098 beside "significant: yes" at alpha 0.01 read "0.010" (issue: p rounded across alpha).
    Three rows: raw p 0.0049 is judged at 0.01 / 2 = 0.005 and must not read 0.005; its adjusted p 0.0098
    must not read 0.010."""
    rows = [{"test": "a", "p_value": 0.0049, "p_value_holm": 0.0098, "significant_holm": True},
            {"test": "b", "p_value": 0.0003, "p_value_holm": 0.0009, "significant_holm": True},
            {"test": "c", "p_value": 0.0102, "p_value_holm": 0.0102, "significant_holm": False}]
    alphas = holm_alphas(rows, 0.01)
    assert alphas == [(0.01, 0.005), (0.01, 0.01 / 3), (0.01, 0.01)]
    out = io.StringIO()
    print_table(rows, ("test", "p_value", "p_value_holm", "significant_holm"), out, alphas=alphas)
    assert _rows(out.getvalue()) == [["a", "0.0049", "0.0098", "yes"], ["b", "0.0003", "0.0009", "yes"],
                                     ["c", "0.0102", "0.0102", "no"]]
    out = io.StringIO()
    print_table(rows, ("test", "p_value", "p_value_holm"), out)  # without thresholds: the usual 3 decimals
    assert _rows(out.getvalue())[0] == ["a", "0.005", "0.010"]


def test_a_column_of_measures_never_mixes_0_and_0_000():
    out = io.StringIO()
    print_table([{"m": 0.052, "n": 3}, {"m": 0.0, "n": 0}, {"m": 1.0, "n": 12}], ("m", "n"), out)
    assert _rows(out.getvalue()) == [["0.052", "3"], ["0.000", "0"], ["1.000", "12"]]
    level = {"net_neutral": 0.268, "fraction_neutral": 0.0, "threshold_0.7": 0.0, "n": 5}
    interval = {"low": 0.0, "high": 0.259, "level": 0.95, "method": "m"}
    obj = {name: {**level, **{f"{k}_interval": interval for k in level if k != "n"}}
           for name in ("pairs", "word_pairs")}
    out = io.StringIO()
    _levels_table(obj, 0.95, out)
    text = out.getvalue()
    assert "0.000 [0.000, 0.259]" in text and " 0 [" not in text, text


def test_a_clause_both_likelihood_methods_end_with_is_written_once():
    tie = "a tie (equal sentence scores after the rounding) counts in n and never in k"
    line = methods_line(0.95, f"Wilson score interval of k/n x 100; {tie}", f"exact binomial test; {tie}")
    assert line.count(tie) == 1
    assert line == ("interval (0.95): Wilson score interval of k/n x 100; p_value: exact binomial test; "
                    f"for both: {tie}\n")
    assert methods_line(0.9, "a; b", "c") == "interval (0.9): a; b; p_value: c\n"  # nothing shared: as given


def test_embias_pll_says_how_a_tie_counts_once():
    run = embias_inprocess("pll", "--model", "embias-demo-mlm", "--pairs", "sample", "--no-progress")
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("counts in n and never in k") == 1, run.stdout
