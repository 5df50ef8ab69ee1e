"""``embias ceat`` on the tiny masked LM's directory and on the embedded MiniLM: JSON, table, errors, and the
hostile inputs (one sentence, one sample, an empty file, a billion samples)."""

from __future__ import annotations

import json
import math

import numpy as np
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
    assert data["effect_size"] == pytest.approx(np.mean([s["effect_size"] for s in data["samples"]]), rel=1e-12)
    assert data["effect_size_interval"]["level"] == 0.9 and "two-stage bootstrap" in data["effect_size_interval"][
        "method"]
    assert "permutation test" in data["p_value_method"] and data["n_permutations"] == 6  # C(4, 2) splits
    paper = data["guo_caliskan_random_effects"]
    meta = random_effects([s["effect_size"] for s in data["samples"]], [s["variance"] for s in data["samples"]],
                          level=0.9)
    assert paper["combined_effect_size"] == pytest.approx(meta.combined_effect_size, rel=1e-12)
    assert paper["combined_effect_size_interval"]["low"] == pytest.approx(meta.interval[0])
    assert data["contexts"]["per_word"]["home"] == 4 and "file contexts.txt" in data["contexts"]["source"]


def test_table_and_errors(tmp_path):
    test, contexts = small_test(tmp_path, attr2=("home", "honeymoon"))
    common = ("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", contexts, "--device", "cpu")
    run = embias_inprocess(*common, "--samples", "50")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].split() == ["test", "model", "effect_size", "effect_size_interval", "p_value",
                                                  "n", "paper_combined_effect_size", "paper_i_squared"]
    assert "note: B: no context holds honeymoon" in run.stdout
    strict = embias_inprocess(*common, "--missing", "error")
    assert strict.returncode == 2 and "honeymoon" in strict.stderr and "--contexts FILE" in strict.stderr
    bad = embias_inprocess(*common, "--samples", "0")
    assert bad.returncode == 2 and "--samples must be a whole number from 1 to 1,000,000" in bad.stderr
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
    low, high = data["effect_size_interval"]["low"], data["effect_size_interval"]["high"]
    assert low < data["effect_size"] < high
    assert 1 / math.comb(24, 12) <= data["p_value"] <= 1


def _no_nan(text):
    raise AssertionError(f"{text} in the JSON: not valid JSON")


def test_one_sample_gives_valid_json(tmp_path):
    """N = 1 made the paper's tau^2 0/0 (rounding left Q a hair above df = 0): NaN and Infinity in the JSON."""
    test, contexts = small_test(tmp_path)
    run = embias_inprocess("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", contexts,
                           "--samples", "1", "--format", "json", "--device", "cpu")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout, parse_constant=_no_nan)
    assert data["n"] == 1 and data["effect_size"] == data["samples"][0]["effect_size"]
    paper = data["guo_caliskan_random_effects"]
    assert paper["tau_squared"] == 0 and paper["i_squared"] == 0 and paper["df"] == 0
    assert paper["combined_effect_size"] == pytest.approx(data["effect_size"])


def test_an_empty_contexts_file_is_named(tmp_path):
    test, _ = small_test(tmp_path)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf-8")
    run = embias_inprocess("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", str(empty),
                           "--device", "cpu")
    assert run.returncode == 2 and "list index" not in run.stderr
    assert f"context file {str(empty)!r} is empty: give a UTF-8 text file with one sentence per line" in run.stderr
    unrelated = tmp_path / "unrelated.txt"
    unrelated.write_text("Nothing here names a test word.\n", encoding="utf-8")
    run = embias_inprocess("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", str(unrelated),
                           "--device", "cpu")
    assert run.returncode == 2 and "unrelated.txt' holds no sentence with a word of the test" in run.stderr


def test_a_billion_samples_is_refused_before_the_model_loads(tmp_path):
    test, contexts = small_test(tmp_path)
    run = embias_inprocess("ceat", "--test", test, "--model", str(tmp_path / "no-such-model"), "--contexts",
                           contexts, "--samples", "1000000000")
    assert run.returncode == 2, run.stderr
    assert "--samples must be a whole number from 1 to 1,000,000" in run.stderr and "MemoryError" not in run.stderr
    assert "no-such-model" not in run.stderr  # refused before the model was looked for


def test_one_sentence_with_one_word_of_each_set_warns(tmp_path):
    """One X word and one Y word give |d| = sqrt(2) whatever the words (Ethayarajh et al. 2019, prop. 2)."""
    test, _ = small_test(tmp_path)
    one = tmp_path / "one.txt"
    one.write_text("John and Amy talked about the office at home.\n", encoding="utf-8")
    run = embias_inprocess("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", str(one),
                           "--samples", "20", "--format", "json", "--device", "cpu")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert abs(data["effect_size"]) == pytest.approx(math.sqrt(2))
    assert any("one word per target set: each sample's |d| is then sqrt(2) whatever the words" in n
               for n in data["notes"])
    table = embias_inprocess("ceat", "--test", test, "--model", str(tiny_mlm_dir()), "--contexts", str(one),
                             "--samples", "20", "--device", "cpu")
    assert "note: one word per target set" in table.stdout
