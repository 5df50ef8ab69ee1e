"""Pair files of odd shapes (StereoSet, CrowS-Pairs, SSSB) are named, never silently resolved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from embias_widgets.stimuli.pairs import PairFileError, read_crows_pairs, read_sssb, read_stereoset, sssb_pairs

SENTENCES = [
    {"id": "s1", "sentence": "The chess player was asian.", "gold_label": "stereotype"},
    {"id": "s2", "sentence": "The chess player was hispanic.", "gold_label": "anti-stereotype"},
    {"id": "s3", "sentence": "The chess player was fox.", "gold_label": "unrelated"},
]
ITEM = {"id": "abc", "target": "chess player", "bias_type": "race", "context": "The chess player was BLANK.",
        "sentences": SENTENCES}
FLAT = {"type": "intrasentence", "id": "f1", "stereotype": "A.", "anti-stereotype": "B.", "unrelated": "C."}


def _official(path: Path, items: list[dict]) -> Path:
    path.write_text(json.dumps({"version": "1.0", "data": {"intrasentence": items, "intersentence": []}}, indent=1))
    return path


@pytest.mark.parametrize("label", ["stereotype", "anti-stereotype", "unrelated"])
def test_stereoset_two_sentences_of_one_label_are_named(tmp_path, label):
    extra = {"id": "s4", "sentence": "The chess player was late.", "gold_label": label}
    path = _official(tmp_path / "dev.json", [{**ITEM, "sentences": [*SENTENCES, extra]}])
    with pytest.raises(PairFileError, match=rf"intrasentence\[0\] \(id abc\): two sentences with gold_label '{label}'"):
        read_stereoset(path)  # before: the later sentence silently replaced the earlier one


def test_stereoset_good_official_item_still_reads(tmp_path):
    (pair,) = read_stereoset(_official(tmp_path / "dev.json", [ITEM]))
    assert (pair.stereo, pair.anti, pair.unrelated) == tuple(s["sentence"] for s in SENTENCES)


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        ({"version": "1.0", "items": {"intrasentence": []}}, r"a JSON object without the top-level key 'data' \(keys"),
        ([FLAT, FLAT], "a JSON array, not a StereoSet file"),
        ({"data": {"intersentence": []}}, r"not the official StereoSet layout \(expected data\.intrasentence"),
    ],
    ids=["no-data-key", "array", "other-kind-only"],
)
def test_stereoset_json_of_another_shape_is_named(tmp_path, payload, says):
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(payload, indent=2))
    with pytest.raises(PairFileError, match=says) as err:
        read_stereoset(path)
    assert str(path) in str(err.value)


def test_stereoset_one_line_object_is_still_jsonl(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(FLAT) + "\n")
    (pair,) = read_stereoset(path)
    assert (pair.stereo, pair.anti, pair.unrelated) == ("A.", "B.", "C.")


def test_stereoset_repeated_id_and_unknown_type(tmp_path):
    path = tmp_path / "flat.jsonl"
    path.write_text(json.dumps(FLAT) + "\n" + json.dumps({**FLAT, "stereotype": "Z."}) + "\n")
    with pytest.raises(PairFileError, match=r"line 2: id 'f1' again \(first at line 1\)"):
        read_stereoset(path)
    path.write_text(json.dumps({**FLAT, "type": "intra"}) + "\n")
    with pytest.raises(PairFileError, match=r"line 1: type 'intra' is not one of \('intrasentence', 'intersentence'\)"):
        read_stereoset(path)
    official = _official(tmp_path / "dev.json", [ITEM, ITEM])
    with pytest.raises(PairFileError, match=r"intrasentence\[1\] \(id abc\): id 'abc' again"):
        read_stereoset(official)


def test_stereoset_items_without_ids_are_not_repeats(shared_data):
    pairs = read_stereoset(shared_data / "stereoset" / "stereoset_dev_flat.jsonl")
    assert len(pairs) == 2106 and not any(p.pair_id for p in pairs)


# -- CrowS-Pairs ------------------------------------------------------------------------------------
def test_crows_unquoted_comma_is_named_not_shifted(tmp_path):
    path = tmp_path / "crows.csv"
    header = "sent_more,sent_less,stereo_antistereo,bias_type\n"
    path.write_text(header + "A.,B.,stereo,gender\nHe said, hi.,She said hi.,stereo,gender\n")
    with pytest.raises(PairFileError, match=r"line 3: 5 fields where the header has 4; quote a sentence"):
        read_crows_pairs(path)  # before: 'He said' / ' hi.' became the pair and 'gender' vanished


def test_crows_repeated_column_is_named(tmp_path):
    path = tmp_path / "crows.csv"
    path.write_text("sent_more,sent_less,sent_less\nA.,B.,C.\n")
    with pytest.raises(PairFileError, match=r"line 1 \(header\) names column\(s\) \['sent_less'\] twice"):
        read_crows_pairs(path)  # before: DictReader kept the last 'sent_less' column


def test_crows_reference_file_has_no_odd_rows(shared_data):
    assert len(read_crows_pairs(shared_data / "crows_pairs" / "crows_pairs_anonymized.csv")) == 1508


# -- SSSB -------------------------------------------------------------------------------------------
def test_sssb_block_pair_of_two_senses_is_named(tmp_path):
    path = tmp_path / "sssb.txt"
    path.write_text("He was a nurse.\t[noun, nurse%1:18:00::, stereo]\nShe nursed him.\t[verb, nurse%2:29:00::, anti]\n"
                    "\n")
    with pytest.raises(PairFileError, match=r"lines 1,2: a pair of two senses \(noun, nurse%1:18:00:: and verb"):
        sssb_pairs(read_sssb(path), path=path)  # before: paired and filed under the stereo line's sense

