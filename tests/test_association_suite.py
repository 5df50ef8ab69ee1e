"""run_suite: tests x models, May et al.'s results.tsv table, Holm-Bonferroni
over all rows (checked by a hand step-down), the heatmap, and the CLI outputs."""

from __future__ import annotations

import io
import json

import pytest
from _result_protocol import assert_study_result

from embias_widgets.analysis import AssociationTest
from embias_widgets.analysis.association import AssociationInputError, expand_test_names, paper_test_names, run_suite
from embias_widgets.cli import main
from embias_widgets.models import StaticVectors

# May et al. (2019), appendix D, table 5: the columns of results.tsv
RESULTS_TSV_COLUMNS = ["model", "options", "test", "p_value", "effect_size",
                       "num_targ1", "num_targ2", "num_attr1", "num_attr2"]
TESTS = ["weat6", "weat7", "weat8", "weat9"]  # exact p-values (C(16, 8) = 12,870 splits at most)
MODELS = ["glove-6b-50d", "cbow-glove-6b-50d"]


@pytest.fixture(scope="module")
def suite(glove):
    return run_suite(TESTS, MODELS, alpha=0.01)


def _holm_by_hand(pvalues: list[float], alpha: float) -> list[bool]:
    """Holm (1979) as May et al. describe it: walk the sorted p-values and stop
    at the first p(k) > alpha / (m + 1 - k)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    reject = [False] * m
    for rank, i in enumerate(order, start=1):
        if pvalues[i] > alpha / (m + 1 - rank):
            break
        reject[i] = True
    return reject


def test_table_has_the_results_tsv_columns_and_one_row_per_test_and_model(suite):
    frame = suite.frame()
    assert list(frame.columns) == [*RESULTS_TSV_COLUMNS, "p_value_holm", "significant_holm", "effect_size_low",
                                   "effect_size_high", "association_difference", "association_difference_low",
                                   "association_difference_high", "interval_level"]
    assert (frame["effect_size_low"] <= frame["effect_size"]).all() and (frame["interval_level"] == 0.95).all()
    assert (frame["association_difference_low"] <= frame["association_difference"]).all()
    assert (frame["association_difference"] <= frame["association_difference_high"]).all()
    assert list(zip(frame["model"], frame["test"], strict=True)) == [
        (m, t) for m in MODELS for t in TESTS
    ]
    assert (frame["num_targ1"] == [8, 8, 8, 6] * 2).all()


def test_rows_equal_single_runs_with_the_same_seed(suite, glove):
    frame = suite.frame()
    for i, test in enumerate(TESTS):
        single = AssociationTest(test, model=glove).run()
        assert frame.loc[i, "effect_size"] == single.effect_size
        assert frame.loc[i, "p_value"] == single.pvalue
        assert frame.loc[i, "options"] == single.options


def test_holm_bonferroni_is_over_all_rows(suite):
    frame = suite.frame()
    for alpha in (0.01, 0.05):
        again = run_suite(TESTS, MODELS, alpha=alpha)
        assert list(again.frame()["significant_holm"]) == _holm_by_hand(list(frame["p_value"]), alpha)
    # over all rows: with both models a row must beat a stricter threshold, and at
    # alpha = 0.03 that changes a decision (weat9 on GloVe)
    one_model = run_suite(TESTS, MODELS[:1], alpha=0.03).frame()
    both = run_suite(TESTS, MODELS, alpha=0.03).frame()
    assert list(one_model["significant_holm"]) == _holm_by_hand(list(one_model["p_value"]), 0.03)
    assert list(both["significant_holm"]) == _holm_by_hand(list(both["p_value"]), 0.03)
    assert list(one_model["significant_holm"]) != list(both["significant_holm"][:4])


def test_tsv_is_the_results_tsv_layout(suite):
    lines = suite.to_tsv().splitlines()
    assert lines[0].split("\t") == [*RESULTS_TSV_COLUMNS, "significant_holm"]
    assert len(lines) == 1 + len(TESTS) * len(MODELS)
    first = lines[1].split("\t")
    assert first[0] == "glove-6b-50d" and first[2] == "weat6"
    assert float(first[3]) == suite.frame().loc[0, "p_value"]


def test_chart_is_a_tests_by_models_heatmap_with_significance_marks(suite):
    spec = suite.chart().to_dict()
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
             for layer in spec["layer"]]
    assert marks == ["rect", "text"]
    rect, text = spec["layer"]
    assert rect["encoding"]["color"]["field"] == "effect_size"
    assert rect["encoding"]["x"]["field"] == "model_label"
    assert rect["encoding"]["y"]["field"] == "test"
    assert text["encoding"]["text"]["field"] == "marker"
    rows = next(iter(spec["datasets"].values()))
    for row, significant in zip(rows, suite.frame()["significant_holm"], strict=True):
        assert (row["marker"] == "**") == bool(significant)
    from embias_widgets.formatting import format_p

    tips = {t["title"]: t["field"] for t in rect["encoding"]["tooltip"] if isinstance(t, dict) and "title" in t}
    assert tips == {"p": "p_text", "p (Holm)": "p_holm_text"}  # written by the formatter, not d3's ".2g"
    for row, p_holm in zip(rows, suite.frame()["p_value_holm"], strict=True):
        assert row["p_holm_text"] == format_p(p_holm, suite.alpha)


def test_cli_outputs_the_batch_as_tsv_json_and_table(glove):
    args = ["weat", *TESTS[:2], "--model", MODELS[0], "--model", MODELS[1]]
    tsv, js, table = io.StringIO(), io.StringIO(), io.StringIO()
    assert main([*args, "--format", "tsv"], out=tsv) == 0
    assert tsv.getvalue() == run_suite(TESTS[:2], MODELS).to_tsv()
    assert main([*args, "--format", "json"], out=js) == 0
    rows = json.loads(js.getvalue())
    assert len(rows) == 4
    for key in ("test", "model", "effect_size", "p_value", "exact", "n_permutations",
                "num_targ1", "num_targ2", "num_attr1", "num_attr2", "oov", "options",
                "significant_holm", "p_value_holm", "alpha"):
        assert all(key in r for r in rows), key
    assert main([*args, "--format", "table"], out=table) == 0
    header = table.getvalue().splitlines()[0].split()
    assert {"test", "model", "effect_size", "p_value", "significant_holm"} <= set(header)


def test_all_expands_to_the_papers_suite():
    assert expand_test_names(["all"]) == paper_test_names()
    assert expand_test_names(["weat1", "seat", "weat1"]) == paper_test_names()


def test_a_failing_row_names_its_test_and_model():
    tiny = StaticVectors(["rose"], [[1.0, 0.0]], name="tiny")
    with pytest.raises(AssociationInputError, match=r"test 'weat1' on model 'tiny': Target Y 'Insects'"):
        run_suite(["weat1"], [tiny])
    with pytest.raises(ValueError, match="at least one test and one model"):
        run_suite([], [tiny])


def test_suite_result_answers_the_study_protocol(suite):
    assert_study_result(suite)
    assert suite.to_dict()["rows"] == suite.records()
    assert "significant after Holm-Bonferroni" in suite.summary()
