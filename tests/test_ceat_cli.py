"""``embias ceat`` on the tiny masked LM's directory and on the embedded MiniLM: JSON, table, errors."""

from __future__ import annotations

import json

import pytest
from _cli_inprocess import embias_inprocess
from _tiny_lm import tiny_mlm_dir
from test_ceat_study import SENTENCES

from embias_widgets.metrics.ceat import random_effects


def small_test(tmp_path, attr2=("home", "wedding")):
    path = tmp_path / "small.jsonl"
    path.write_text(json.dumps({"targ1": {"category": "Men", "examples": ["John", "Paul"]},
                                "targ2": {"category": "Women", "examples": ["Amy", "Joan"]},
                                "attr1": {"category": "Career", "examples": ["office", "salary"]},
                                "attr2": {"category": "Family", "examples": list(attr2)}}), encoding="utf-8")
    contexts = tmp_path / "contexts.txt"
    contexts.write_text("\n".join(SENTENCES), encoding="utf-8")
    return str(path), str(contexts)


def test_json_keeps_every_sample_and_recombines(tmp_path):
    test, contexts = small_test(tmp_path)
    run = embias_inprocess("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", contexts,
                           "--samples", "300", "--seed", "4", "--level", "0.9", "--format", "json", "--device", "cpu")
    assert run.returncode == 0, run.stderr
    assert "8 words, " in run.stderr and "N = 300 samples" in run.stderr  # sizes stated before the run
    data = json.loads(run.stdout)
    assert data["test"] == "small" and data["n"] == 300 == len(data["samples"]) and data["seed"] == 4
    meta = random_effects([s["effect_size"] for s in data["samples"]], [s["variance"] for s in data["samples"]],
                          level=0.9)
    assert data["combined_effect_size"] == pytest.approx(meta.combined_effect_size, rel=1e-12)
    assert data["combined_effect_size_interval"]["level"] == 0.9
    assert data["combined_effect_size_interval"]["low"] == pytest.approx(meta.interval[0])
    assert data["contexts"]["per_word"]["home"] == 4 and "file contexts.txt" in data["contexts"]["source"]


def test_table_and_errors(tmp_path):
    test, contexts = small_test(tmp_path, attr2=("home", "honeymoon"))
    common = ("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", contexts, "--device", "cpu")
    run = embias_inprocess(*common, "--samples", "50")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].split()[:3] == ["test", "model", "combined_effect_size"]
    assert "note: B: no context holds honeymoon" in run.stdout
    strict = embias_inprocess(*common, "--missing", "error")
    assert strict.returncode == 2 and "honeymoon" in strict.stderr and "--contexts FILE" in strict.stderr
    bad = embias_inprocess(*common, "--samples", "0")
    assert bad.returncode == 2 and "--samples must be" in bad.stderr
    nofile = embias_inprocess("ceat", "--model", str(tiny_mlm_dir()), "--contexts", str(tmp_path / "none.txt"))
    assert nofile.returncode == 2 and "neither a file nor a bundled source" in nofile.stderr
    static = embias_inprocess("ceat", "--model", "glove-6b-50d")
    assert static.returncode == 2 and "contextual encoder" in static.stderr


@pytest.mark.slow
def test_minilm_with_the_bundled_templates():
    run = embias_inprocess("ceat", "--test", "ceat12", "--samples", "200", "--format", "json", "--device", "cpu")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["model"] == "all-MiniLM-L6-v2" and data["n"] == 200
    assert all(not s["missing_contexts"] for s in data["sets"].values())
    assert "SEAT's bleached templates" in data["contexts"]["source"]
    low, high = data["combined_effect_size_interval"]["low"], data["combined_effect_size_interval"]["high"]
    assert low < data["combined_effect_size"] < high
