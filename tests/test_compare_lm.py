"""``embias compare --model embias-demo-mlm --model <the demo MLM with its MLM head's he-she direction projected
out>``: the pair scores' changes with McNemar's test on the discordant pairs, recomputed here from each model's own
per-pair preferences; the saved head-debiased model reads back as a masked LM."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _cli_inprocess import embias_inprocess
from statsmodels.stats.contingency_tables import mcnemar

from embias_widgets.analysis.compare import save_model
from embias_widgets.analysis.likelihood import PairedLikelihood
from embias_widgets.analysis.report.plan import model_kind
from embias_widgets.models.language_models.demo_mlm import load_demo_mlm
from embias_widgets.models.language_models.head_debias import head_direction, project_out_head_direction
from embias_widgets.stimuli.pairs import read_pairs


@pytest.fixture(scope="module")
def debiased_dir(tmp_path_factory):
    pair = project_out_head_direction(load_demo_mlm())
    return save_model(pair, tmp_path_factory.mktemp("models"))


def test_head_debiased_copy_has_no_he_she_component_and_keeps_its_encoder(debiased_dir):
    import torch

    original = load_demo_mlm()
    model, _ = project_out_head_direction(original)
    b = torch.as_tensor(head_direction(*original))
    rows = model.get_output_embeddings().weight.detach().double()
    assert float((rows @ b).abs().max()) < 1e-5
    assert torch.equal(model.get_input_embeddings().weight, original.model.get_input_embeddings().weight)
    assert model_kind(debiased_dir) == "masked-lm"


@pytest.mark.slow
def test_compare_demo_mlm_with_its_head_debiased_copy(debiased_dir, shared_data, tmp_path):
    crows = str(shared_data / "crows_pairs" / "crows_pairs_anonymized.csv")
    run = embias_inprocess("compare", "--model", "embias-demo-mlm", "--model", debiased_dir, "--methods",
                           "crows-pairs", "--crows-pairs", crows, "--quick", "--no-progress", "--no-html", "--out",
                           str(tmp_path), "--format", "json", "--fail-if", "worse", "--resamples", "300")
    assert run.returncode in (0, 1), run.stderr
    c = json.loads(run.stdout)
    rows = {(r["row"], r["measure"]): r for r in c["rows"]}
    assert {("all", "CPS %"), ("all", "AUL %")} <= set(rows)
    assert any("compared at the level of items" in n for n in c["notes"])
    # McNemar from each model's own per-pair CPS preferences (the analyses run directly, same 8 pairs)
    pairs = read_pairs(crows, format_in="crows", limit=8)
    prefs = [np.asarray(res.bias.preferred) == 1
             for res in (PairedLikelihood(pairs, model=m, progress=False).run() for m in ("embias-demo-mlm",
                                                                                         debiased_dir))]
    b, cc = int(np.sum(prefs[0] & ~prefs[1])), int(np.sum(~prefs[0] & prefs[1]))
    row = rows[("all", "CPS %")]
    assert row["counts"] == {"b": b, "c": cc}
    assert row["p_value"] == pytest.approx(mcnemar([[0, b], [cc, 0]], exact=True).pvalue)
    assert row["before"] == pytest.approx(100 * prefs[0].mean())
    assert row["after"] == pytest.approx(100 * prefs[1].mean())
    assert (run.returncode == 1) == any(r["verdict"] == "bias grew" for r in c["rows"] if r["gated"])
