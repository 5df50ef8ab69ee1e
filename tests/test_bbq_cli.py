"""``embias bbq``: offline end to end on a tiny causal LM built here and on the demo masked LM, over the shared BBQ
data (six categories) read through the loader. Every number it prints equals ``BbqStudy`` + ``BbqResult`` computed
independently (``score_choices`` on the prompts, ``BbqResult.from_predictions``); bad input is one line, exit 2."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch  # noqa: F401  (the models extra: a missing one fails here, never skips)
from _cli_inprocess import embias_inprocess
from _tiny_causal import save_gpt2
from _tiny_lm import one_thread

from embias_widgets.analysis.bbq import FRAME_COLUMNS, BbqResult
from embias_widgets.cli import bbq as bbq_cli
from embias_widgets.models.language_models import load_likelihood_model
from embias_widgets.models.language_models.multiple_choice import bbq_prompt, score_choices
from embias_widgets.stimuli.bbq import load_bbq

_single_thread = pytest.fixture(autouse=True)(one_thread)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bbq_dir(shared_data) -> Path:
    return shared_data / "bbq"


@pytest.fixture(scope="module")
def causal_dir(bbq_dir, tmp_path_factory) -> Path:
    """A tiny GPT-2 whose byte-level BPE was trained on BBQ's contexts (so items fit its 512 positions)."""
    items = load_bbq(bbq_dir, limit=40)
    texts = [f"{c} {q} {' '.join(a)}" for c, q, a in zip(items.context, items.question, items.answers.tolist(),
                                                           strict=True)]
    return save_gpt2(tmp_path_factory.mktemp("gpt2-bbq"), texts, positions=512, vocab_size=1500)


def _expected(model: str, items, **options) -> BbqResult:
    scorer = load_likelihood_model(model, device="cpu", progress=False)
    prompts = [bbq_prompt(c, q) for c, q in zip(items.context, items.question, strict=True)]
    scores = score_choices(scorer, prompts, items.answers.tolist())
    return BbqResult.from_predictions(items, scores.predicted(), scores.probabilities(), model=model, **options)


def _cells(record: dict) -> dict[tuple[str, str], dict]:
    return {(c["category"], c["context_condition"]): c for c in record["cells"]}


def test_a_tiny_causal_lm_runs_offline_in_a_fresh_process(bbq_dir, causal_dir) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(ROOT),
           "OMP_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-m", "embias_widgets.cli", "bbq", "--model", str(causal_dir), "--data",
                          str(bbq_dir), "--limit", "4", "--format", "json", "--device", "cpu", "--threads", "1"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    items = load_bbq(bbq_dir, limit=4)
    assert record["n_items"] == len(items) == 24 and record["scoring"]["kind"] == "causal"
    expected = _expected(str(causal_dir), items).to_dict()
    assert _cells(record).keys() == _cells(expected).keys()
    for key, cell in _cells(expected).items():
        got = _cells(record)[key]
        assert got["bias_score"] == cell["bias_score"] and got["accuracy"] == cell["accuracy"]
        assert got["bias_score_interval"] == cell["bias_score_interval"]  # the same seed, the same predictions


def test_the_demo_masked_lm_runs_offline_on_the_six_categories(bbq_dir) -> None:
    run = embias_inprocess("bbq", "--model", "embias-demo-mlm", "--data", str(bbq_dir), "--limit", "1",
                           "--format", "json", "--device", "cpu")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    items = load_bbq(bbq_dir, limit=1)
    assert len(items.categories) == 6 and record["n_items"] == 6 and record["scoring"]["kind"] == "masked"
    expected = _expected("embias-demo-mlm", items).to_dict()
    for key, cell in _cells(expected).items():
        assert _cells(record)[key]["bias_score"] == cell["bias_score"]


def test_tsv_and_the_items_file(bbq_dir, causal_dir, tmp_path) -> None:
    items_out = tmp_path / "items.tsv"
    run = embias_inprocess("bbq", "--model", str(causal_dir), "--data", str(bbq_dir), "--categories", "Age",
                           "Religion", "--limit", "6", "--format", "tsv", "--items-out", str(items_out),
                           "--answers", "lm-eval", "--normalization", "char", "--convention", "helm")
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(run.stdout), delimiter="\t"))
    items = load_bbq(bbq_dir, categories=["Age", "Religion"], limit=6)
    assert {r["category"] for r in rows} == {"Age", "Religion"}
    assert list(rows[0]) == list(FRAME_COLUMNS)
    per_item = list(csv.DictReader(items_out.open(encoding="utf-8"), delimiter="\t"))
    assert len(per_item) == len(items) == 12
    p = np.array([[float(r[f"probability_{k}"]) for k in range(3)] for r in per_item])
    np.testing.assert_allclose(p.sum(axis=1), 1, atol=1e-9)
    assert [int(r["predicted"]) for r in per_item] == list(p.argmax(axis=1))


def test_a_long_run_states_its_size_and_estimate_first(bbq_dir, causal_dir, monkeypatch) -> None:
    monkeypatch.setattr(bbq_cli, "LONG_BBQ_ITEMS", 10)
    run = embias_inprocess("bbq", "--model", str(causal_dir), "--data", str(bbq_dir), "--limit", "3")
    assert run.returncode == 0, run.stderr
    first = run.stderr.splitlines()[0]
    assert first.startswith("embias bbq: 18 items (6 categories) x 3 answers with ")
    assert "about " in first and "items/s on " in first and "--limit N" in first


def test_a_results_dir_resumes_and_refuses_another_run(bbq_dir, causal_dir, tmp_path) -> None:
    common = ("bbq", "--model", str(causal_dir), "--data", str(bbq_dir), "--limit", "2", "--format", "json",
              "--results-dir", str(tmp_path / "run"), "--chunk-size", "5")
    first = embias_inprocess(*common)
    again = embias_inprocess(*common)
    assert first.returncode == again.returncode == 0
    assert json.loads(first.stdout)["cells"] == json.loads(again.stdout)["cells"]
    other = embias_inprocess(*common, "--answers", "lm-eval")
    assert other.returncode == 2
    assert other.stderr.startswith("embias bbq: error: ") and "another run than this one" in other.stderr
    assert "answers" in other.stderr and "--fresh" in other.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("--limit", "0"), "--limit must be a whole number of items per category, at least 1, got 0"),
    (("--categories", "Cooking"), "no items of categories ['Cooking']"),
    (("--level", "1.5"), "level"),
    (("--fresh",), "--fresh starts a --results-dir over"),
    (("--chunk-size", "0"), "--chunk-size must be a positive number of items"),
    (("--workers", "0"), "--workers must be at least 1"),
])
def test_bad_input_is_one_line_naming_the_option(bbq_dir, causal_dir, args, message) -> None:
    run = embias_inprocess("bbq", "--model", str(causal_dir), "--data", str(bbq_dir), *args)
    assert run.returncode == 2
    assert run.stderr.startswith("embias bbq: error: ") and message in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_no_data_says_how_to_get_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("EMBIAS_DATA", str(tmp_path / "empty"))
    run = embias_inprocess("bbq", "--model", "embias-demo-mlm")
    assert run.returncode == 2 and "embias data fetch bbq" in run.stderr
    missing = embias_inprocess("bbq", "--model", "embias-demo-mlm", "--data", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "nowhere" in missing.stderr


def test_a_model_that_is_not_a_language_model_is_refused(bbq_dir) -> None:
    run = embias_inprocess("bbq", "--model", "glove-6b-50d", "--data", str(bbq_dir), "--limit", "1")
    assert run.returncode == 2 and "not a language model" in run.stderr


def test_list_shows_the_language_models() -> None:
    run = embias_inprocess("bbq", "--list")
    assert run.returncode == 0 and "embias-demo-mlm" in run.stdout
