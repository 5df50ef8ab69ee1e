"""Every CSV/TSV we write opens safely in a spreadsheet (OWASP CSV injection): text that a spreadsheet
would run as a formula gets one leading quote, numbers never do, and our own readers undo exactly that
quote, so files round-trip. The Python rule and the widgets' JS rule (js/lib/export.js) agree."""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from embias_widgets.stimuli.nli_probes import CsvPairs, NliPair, user_probe, write_pairs_csv
from embias_widgets.stimuli.spreadsheet_safe import (
    is_number_text,
    needs_guard,
    safe_cell,
    safe_writer,
    unguard_cell,
)

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ["=1+1", "+1+1", "-1+1", "@SUM(A1:A2)", "\t=1", "\r=1", '=HYPERLINK("http://x","y")',
           "=cmd|' /C calc'!A0", "-", "+", "@", "  =1", "\n@x", "-evil", "'=1", "''-x"]
HARMLESS = ["nurse", "'tis", "a=b", "", "−1", "1-2", "x@y", "-0.5", "+3", "1e-7", " -2.5 ", ".5", "'-0.5"]


def formula_in_a_spreadsheet(cell: str) -> bool:
    """Re-implementation of what a spreadsheet does on import: a cell whose first character (or first
    non-blank one) is = + - @ / tab / CR, and that is not a plain decimal number, is read as a formula."""
    stripped = cell.strip(" \n\t\r\x0b\x0c")
    first, first_visible = cell[:1], stripped[:1]
    if not (first and first in "=+-@\t\r") and not (first_visible and first_visible in "=+-@"):
        return False
    try:
        float(stripped)
        return stripped.lower().lstrip("+-") in ("inf", "nan", "infinity")  # words, not numbers
    except ValueError:
        return True


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_gets_one_leading_quote(text):
    assert safe_cell(text) == "'" + text
    assert not formula_in_a_spreadsheet(safe_cell(text))
    assert unguard_cell(safe_cell(text)) == text


@pytest.mark.parametrize("value", [*HARMLESS, -0.5, 0, 3, -1e-7, float("-inf"), np.float64(-0.25), np.int64(-3),
                                   None, True])
def test_numbers_and_ordinary_text_are_not_touched(value):
    assert safe_cell(value) is value
    if isinstance(value, str):
        assert unguard_cell(value) == value


def test_guard_is_a_bijection_over_every_short_string_of_tricky_characters():
    alphabet = ["'", "=", "-", "+", "@", " ", "\t", "\r", "\n", "a", "1", ".", "e"]
    n = 0
    for length in range(5):
        for chars in itertools.product(alphabet, repeat=length):
            text = "".join(chars)
            guarded = safe_cell(text)
            assert unguard_cell(guarded) == text, repr(text)
            assert not formula_in_a_spreadsheet(guarded) or is_number_text(guarded), repr(text)
            assert guarded in (text, "'" + text)
            n += 1
    assert n == sum(13**k for k in range(5))


def test_safe_writer_guards_text_cells_and_keeps_csv_quoting():
    buf = io.StringIO()
    writer = safe_writer(buf, lineterminator="\n")
    writer.writerow(["word", "s"])
    writer.writerows([["=1+1", -0.5], ["-2+3,x", "-0.5"], ["nurse", 1e-7]])
    assert buf.getvalue() == "word,s\n'=1+1,-0.5\n\"'-2+3,x\",-0.5\nnurse,1e-07\n"
    back = list(csv.reader(io.StringIO(buf.getvalue())))
    assert [unguard_cell(c) for c in back[2]] == ["-2+3,x", "-0.5"]
    assert float(back[1][1]) == -0.5


def _pair(i: int, premise: str, hypothesis: str, word: str = "=w") -> NliPair:
    return NliPair(index=i, id=f"id{i}", pair_type="-t", premise_word=word, hypothesis_word="@h",
                   template_type="+tt", premise=premise, hypothesis=hypothesis)


def test_nli_pairs_csv_is_guarded_and_reads_back_exactly(tmp_path):
    pairs = [_pair(0, "=1+1 bought a phone .", "A man bought a phone ."),
             _pair(1, "'=already quoted", "-x", word="'tis"), _pair(2, "plain", "@plain", word="-0.5")]
    path = tmp_path / "pairs.csv"
    assert write_pairs_csv(pairs, path) == 3
    with open(path, newline="", encoding="utf-8") as handle:
        raw = list(csv.reader(handle))
    assert not any(formula_in_a_spreadsheet(cell) for row in raw for cell in row)
    assert raw[1][5] == "'=1+1 bought a phone ." and raw[3][2] == "-0.5"
    back = list(CsvPairs(path).iter_pairs())
    for a, b in zip(pairs, back, strict=True):
        assert b.csv_row() == a.csv_row()


def test_a_generated_probe_round_trips_through_its_csv(tmp_path):
    probe = user_probe(["=cmd", "-evil", "@x"], ["+1", "nurse"])
    path = tmp_path / "probe.csv"
    write_pairs_csv(probe.iter_pairs(0, 500), path)
    assert [p.csv_row() for p in CsvPairs(path).iter_pairs()] == [p.csv_row() for p in probe.iter_pairs(0, 500)]


class _Keyed:
    name, description = "keyed", "hash-based probabilities"

    def predict(self, premises, hypotheses):
        rngs = [random.Random(f"{p}|{h}") for p, h in zip(premises, hypotheses, strict=True)]
        raw = np.array([[r.random() + 0.1 for _ in range(3)] for r in rngs])
        return raw / raw.sum(axis=1, keepdims=True)


def test_per_pair_result_csv_is_guarded_and_numbers_stay_numbers(tmp_path):
    from embias_widgets.analysis.nli import NliProbe
    from embias_widgets.stimuli.nli_probes import templates

    probe = user_probe(["=cmd", "-evil"], ["+1", "nurse"], template_list=templates()[:50])
    result = NliProbe(probe, _Keyed(), chunk_size=64).run(per_pair=True)
    path = tmp_path / "out.csv"
    assert result.write_pairs_csv(path) == 200
    with open(path, newline="", encoding="utf-8") as handle:
        raw = list(csv.reader(handle))
    assert not any(formula_in_a_spreadsheet(cell) for row in raw for cell in row)
    table = result.pairs_table()
    np.testing.assert_array_equal([float(r[-2]) for r in raw[1:]], table["neutral"].to_numpy())
    back = list(CsvPairs(path).iter_pairs())
    assert [b.premise_word for b in back] == table["premise_word"].tolist()
    assert {(b.premise_word, b.hypothesis_word) for b in back} == {("=cmd", "+1"), ("=cmd", "nurse"),
                                                                   ("-evil", "+1"), ("-evil", "nurse")}


def test_results_tsv_guards_text_cells():
    from embias_widgets.analysis.association import SuiteResult

    class Fake(SuiteResult):
        def __init__(self):
            pass

        def records(self):
            return [{"model": "=evil-model", "options": "-x", "test": "@t", "p_value": -0.5, "effect_size": None,
                     "num_targ1": 8, "num_targ2": 8, "num_attr1": 8, "num_attr2": 8, "significant_holm": False}]

    line = Fake().to_tsv().splitlines()[1].split("\t")
    assert line[:5] == ["'=evil-model", "'-x", "'@t", "-0.5", ""]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the JS rule is not compared")
def test_js_and_python_apply_the_same_rule():
    alphabet = ["'", "=", "-", "+", "@", " ", "\t", "\n", "a", "1", ".", "e"]
    cases = ["".join(c) for k in range(4) for c in itertools.product(alphabet, repeat=k)] + HOSTILE + HARMLESS
    script = ("import { needsGuard } from './js/lib/export.js';"
              "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>"
              "console.log(JSON.stringify(JSON.parse(s).map(needsGuard))));")
    out = subprocess.run(["node", "--input-type=module", "-e", script], input=json.dumps(cases), cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert json.loads(out) == [needs_guard(c) for c in cases]


def test_weat_tsv_through_the_cli_keeps_hostile_paths_and_names_in_their_cells(tmp_path, glove):
    """Issue 31, item 5: a model path holding a newline and ``=HYPERLINK(...)``, and a test file whose name holds
    a tab and starts with ``=``, stay one cell each: 10 cells under 10 headers, no cell a formula."""
    from _cli_inprocess import embias_inprocess

    from embias_widgets.models.static_vectors.files import write_word2vec_text
    from embias_widgets.stimuli import load_bundled_test, write_test_file

    spec = load_bundled_test("weat7")
    words = sorted({w.lower() for s in (spec.targ1, spec.targ2, spec.attr1, spec.attr2) for w in s.examples})
    folder = tmp_path / 'm\n=HYPERLINK("x","y")'
    folder.mkdir()
    model = folder / "v\tx.txt"
    write_word2vec_text(model, words, np.stack([glove.vector(w) for w in words]))
    test_file = tmp_path / "=t\tname.jsonl"
    write_test_file(spec, test_file)
    run = embias_inprocess("weat", str(test_file), "--model", str(model), "--format", "tsv",
                           "--permutations", "1000")
    assert run.returncode == 0, run.stderr
    rows = list(csv.reader(io.StringIO(run.stdout), delimiter="\t"))
    assert len(rows) == 2 and len(rows[0]) == len(rows[1]) == 10
    record = dict(zip(rows[0], rows[1], strict=True))
    assert unguard_cell(record["model"]) == str(model)
    assert unguard_cell(record["test"]).endswith("t\tname") and record["test"].startswith("'")
    assert not any(formula_in_a_spreadsheet(cell) for row in rows for cell in row)
    assert run.stdout.count("\n") == 3  # the newline of the path is inside its quoted cell, not a new row
    assert float(record["effect_size"]) == pytest.approx(1.4951, abs=1e-4)  # weat7 on GloVe's own vectors
