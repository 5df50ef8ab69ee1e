"""``embias weat`` with sense models and ``embias pll`` on SSSB files: sense keys, by_sense_key, errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import torch  # noqa: F401  (test extra: a missing install fails, never skips)
from _tiny_lm import one_thread, tiny_mlm_dir, tiny_scorer

from embias_widgets.analysis import SenseAssociationTest
from embias_widgets.cli import main


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


@pytest.fixture(scope="module")
def sense_file(wn, tmp_path_factory) -> Path:
    """Random vectors for every sense of the lemmas of sense-weat9 (a small test), LMMS .txt layout."""
    from embias_widgets.stimuli import load_sense_test

    spec = load_sense_test("sense-weat9")
    lemmas = {k.split("%")[0] for s in spec.sets().values() for k in s.examples} | {"nurse"}
    rng = np.random.default_rng(1)
    keys = [s.key for lemma in sorted(lemmas) for s in wn.senses(lemma)]
    path = tmp_path_factory.mktemp("lmms") / "lmms-small.txt"
    path.write_text("".join(k + " " + " ".join(f"{v:.5f}" for v in rng.normal(size=12)) + "\n" for k in keys))
    return path


def test_weat_bundled_sense_test_on_a_sense_file(sense_file: Path) -> None:
    code, text = run(["weat", "sense-weat9", "--model", str(sense_file), "--format", "json"])
    assert code == 0
    record = json.loads(text)
    direct = SenseAssociationTest("sense-weat9", model=str(sense_file)).run()
    assert record["effect_size"] == pytest.approx(direct.effect_size)
    assert record["variant"] == "max" and record["senses"] == "max"
    assert {"model", "options", "test", "p_value", "num_targ1", "num_attr2"} <= set(record)
    assert record["word_level"]["word_average"]["effect_size"] == pytest.approx(direct.word_average.effect_size)


def test_weat_senses_average_and_tsv(sense_file: Path, tmp_path: Path) -> None:
    test = tmp_path / "mine.jsonl"
    test.write_text(json.dumps({
        "targ1": {"category": "Mental", "examples": ["sad", "depressed%5:00:00:dejected:00"]},
        "targ2": {"category": "Physical", "examples": ["sick", "cancer"]},
        "attr1": {"category": "Temporary", "examples": ["brief", "unstable"]},
        "attr2": {"category": "Permanent", "examples": ["stable", "chronic"]},
    }))
    code, text = run(["weat", str(test), "--model", str(sense_file), "--senses", "average", "--format", "tsv"])
    assert code == 0
    header, row = text.strip().splitlines()
    assert header.split("\t")[:3] == ["model", "options", "test"] and "senses=average" in row


def test_weat_key_missing_from_wordnet_or_file(sense_file: Path, tmp_path: Path, capsys) -> None:
    test = tmp_path / "bad.jsonl"
    sets = {"targ1": ["sad"], "targ2": ["sick"], "attr1": ["brief"], "attr2": ["stable"]}
    for bad, expect in (("sad%3:00:07::", "WordNet 3.0 has no sense key 'sad%3:00:07::'"),
                        ("doctor", "has no vector for any sense of 'doctor'")):
        body = {k: {"category": k, "examples": v} for k, v in sets.items()}
        body["targ1"]["examples"] = [bad]
        test.write_text(json.dumps(body))
        code, _ = run(["weat", str(test), "--model", str(sense_file)])
        err = capsys.readouterr().err
        assert code == 2 and expect in err and "Traceback" not in err
    body["targ1"]["examples"] = ["judge%1:18:00::"]  # a real WordNet key the file lacks: named, never zero
    test.write_text(json.dumps(body))
    code, _ = run(["weat", str(test), "--model", str(sense_file)])
    err = capsys.readouterr().err
    assert code == 2 and "no vector for sense key(s) judge%1:18:00::" in err


def test_sense_test_needs_a_sense_model(capsys) -> None:
    code, _ = run(["weat", "sense-weat1", "--model", "glove-6b-50d"])
    assert code == 2 and "need a sense model" in capsys.readouterr().err


def test_pll_sssb_by_sense_key_and_placeholder_lines(tmp_path: Path) -> None:
    path = tmp_path / "sssb.txt"
    path.write_text(
        "He was a talented nurse.\t[noun, nurse%1:18:00::, stereo]\n"
        "She was a talented nurse.\t[noun, nurse%1:18:00::, anti]\n\n"
        "She will nurse the baby.\t[verb, nurse%2:29:00::, stereo]\n"
        "He will nurse the baby.\t[verb, nurse%2:29:00::, anti]\n\n"
        "Black people are lazy.\t[race, black%1:18:00::, stereo]\n"
        "Black people are rude.\t[race, black%1:18:00::, stereo]\n"
        "Black people are kind.\t[race, black%1:18:00::, anti]\n\n"
        "The black dress is ugly.   [colour, $SENSE-ID$, stereo]\n"
        "The black dress is nice.   [colour, $SENSE-ID$, anti]\n"
    )
    code, text = run(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path), "--format", "json",
                      "--no-progress"])
    assert code == 0
    record = json.loads(text)
    assert record["metric"] == "aul"  # SSSB default, the paper's choice
    assert set(record["by_sense_key"]) == {"nurse%1:18:00::", "nurse%2:29:00::", "black%1:18:00::", "$SENSE-ID$"}
    assert record["by_sense_key"]["black%1:18:00::"]["n"] == 2  # two stereo x one anti
    assert [i["sense_key"] for i in record["items"]][:2] == ["nurse%1:18:00::", "nurse%2:29:00::"]
    problems = record["sense_key_problems"]
    assert len(problems) == 1 and "'$SENSE-ID$'" in problems[0]
    assert "line 11; line 12" in problems[0]
    # the per-sense means need no pairing: the black race means are over 2 stereo and 1 anti sentences
    means = {m["sense_key"]: m for m in record["sense_means"]}
    scorer = tiny_scorer()
    lazy, rude, kind = (scorer.score_pairs([(s, s)], "aul")[0].stereo.score for s in
                        ("Black people are lazy.", "Black people are rude.", "Black people are kind."))
    assert means["black%1:18:00::"]["mean_stereo"] == pytest.approx((lazy + rude) / 2)
    assert means["black%1:18:00::"]["mean_anti"] == pytest.approx(kind)
    assert means["black%1:18:00::"]["n_stereo"] == 2 and means["black%1:18:00::"]["n_anti"] == 1
    assert "pairing_rule" in record


def test_pll_table_lists_sense_keys(tmp_path: Path) -> None:
    from embias_widgets.stimuli.sense_sentences import sense_sentences

    path = sense_sentences(("verb",)).write(tmp_path / "ours.txt")
    code, text = run(["pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path), "--limit", "12", "--no-progress"])
    assert code == 0 and "engineer%2:31:01::" in text and "mean_stereo" in text and "warning" not in text
