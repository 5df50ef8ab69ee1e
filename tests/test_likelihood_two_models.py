"""The paired-likelihood table holding a baseline model: per pair which sentence each model prefers and where they
disagree, and the paired change of the bias score (McNemar on the discordant pairs), all computed in Python."""

from __future__ import annotations

import pytest
import torch  # noqa: F401  (test extra: a missing install fails, never skips)
from _tiny_lm import THREE_PAIRS, one_thread, tiny_mlm_dir, tiny_scorer
from scipy import stats

from embias_widgets.analysis.likelihood import PairedLikelihood
from embias_widgets.analysis.likelihood.model_pair import model_disagreements
from embias_widgets.models.language_models.head_debias import project_out_head_direction
from embias_widgets.widgets.paired_likelihood_table import PairedLikelihoodTable

PAIRS = [*THREE_PAIRS, ("He is a doctor.", "She is a doctor.", "gender"),
         ("Old people are slow.", "Young people are slow.", "age")]


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


@pytest.fixture(scope="module")
def other():
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    path = str(tiny_mlm_dir())
    return project_out_head_direction((AutoModelForMaskedLM.from_pretrained(path), AutoTokenizer.from_pretrained(path)))


def test_rows_say_where_the_models_disagree_and_the_change_is_mcnemars(other):
    table = PairedLikelihoodTable(PAIRS, model=other, metric="pll", baseline=tiny_scorer())
    base = PairedLikelihood(PAIRS, model=tiny_scorer(), metric="pll", progress=False).run()
    mine = PairedLikelihood(PAIRS, model=other, metric="pll", progress=False).run()
    assert table.baseline_name and all("baseline" in r for r in table.rows)
    for row, b, m in zip(table.rows, base.rows, mine.rows, strict=True):
        assert row["baseline"]["preferred"] == b.preferred
        assert row["baseline"]["disagrees"] == (b.preferred != m.preferred)
    c = table.comparison
    x = [r.preferred == "stereo" for r in base.rows]
    y = [r.preferred == "stereo" for r in mine.rows]
    b_, c_ = sum(a and not z for a, z in zip(x, y, strict=True)), sum(z and not a for a, z in zip(x, y, strict=True))
    assert c["change"]["counts"] == {"b": b_, "c": c_}
    assert c["change"]["p_value"] == pytest.approx(1.0 if b_ + c_ == 0 else stats.binomtest(b_, b_ + c_).pvalue)
    assert c["change"]["change"] == pytest.approx(100 * (sum(y) - sum(x)) / len(PAIRS))
    assert c["n_disagree"] == sum(r["baseline"]["disagrees"] for r in table.rows)
    # the view keeps only the disagreements when asked; a metric change rescores both models
    table.disagreements_only = True
    assert sorted(table.order) == [i for i, r in enumerate(table.rows) if r["baseline"]["disagrees"]]
    table.metric = "aul"
    assert table.comparison["change"]["counts"] == model_disagreements(
        PairedLikelihood(PAIRS, model=other, metric="aul", progress=False).run(),
        PairedLikelihood(PAIRS, model=tiny_scorer(), metric="aul", progress=False).run())["change"]["counts"]


def test_results_of_other_pairs_are_refused():
    a = PairedLikelihood(PAIRS[:2], model=tiny_scorer(), metric="pll", progress=False).run()
    b = PairedLikelihood(PAIRS[1:3], model=tiny_scorer(), metric="pll", progress=False).run()
    with pytest.raises(ValueError, match="same pairs"):
        model_disagreements(a, b)
