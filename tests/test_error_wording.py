"""Errors speak the user's words (issue 22, section 8): public entry points reject None and wrong types
with one error naming the argument; the command line names the option the user typed (--permutations,
not n_samples); a pair that could not be scored is named with the reason in the result's notes and the
CLI table."""

from __future__ import annotations

import argparse
import csv
import io
import re

import pytest

from embias_widgets.analysis.likelihood import PairedLikelihood
from embias_widgets.cli import API_NAMES, build_parser, in_cli_words, main, option_names
from embias_widgets.stimuli import wordnet as wnmod


# -- WordNet entry points ------------------------------------------------------------------------------
@pytest.mark.parametrize("lemma", [None, 3, 2.5, ["nurse"], b"nurse", object()])
def test_senses_of_a_non_string_is_a_type_error_naming_lemma(wn, lemma):
    with pytest.raises(TypeError, match=r"^lemma must be a string such as 'nurse', not "):
        wn.senses(lemma)


@pytest.mark.parametrize("lemma", ["", "   ", "\n"])
def test_senses_of_a_blank_lemma_is_a_value_error(wn, lemma):
    with pytest.raises(ValueError, match="lemma is empty"):
        wn.senses(lemma)


@pytest.mark.parametrize("pos", [["n"], 1, "noun", ""])
def test_a_bad_pos_names_the_choices(wn, pos):
    with pytest.raises(ValueError, match=r"pos must be one of \['a', 'n', 'r', 's', 'v'\]"):
        wn.senses("nurse", pos=pos)


@pytest.mark.parametrize("key", [None, 3, ["nurse%1:18:00::"], "x" * 100_000])
def test_a_bad_sense_key_is_one_short_unknown_sense_error(wn, key):
    with pytest.raises(wnmod.UnknownSenseError, match="is not written as a WordNet sense key") as info:
        wn.sense(key)
    assert len(str(info.value)) < 300


def test_base_forms_and_load_wordnet_reject_none(wn):
    with pytest.raises(TypeError, match=r"^word must be a string"):
        wn.base_forms(None)
    with pytest.raises(TypeError, match=r"^source must be a string such as 'auto'"):
        wnmod.load_wordnet(None)
    with pytest.raises(TypeError, match=r"^source must be a string"):
        wnmod.load_wordnet(3)


def test_the_lookups_still_answer_right_after_validation(wn):
    assert [s.key for s in wn.senses("nurse", pos="v")] == [s.key for s in wn.senses(" Nurse ") if s.pos == "v"]
    assert wn.base_forms("equations") == ["equation"]


# -- likelihood entry point ---------------------------------------------------------------------------
@pytest.mark.parametrize("pairs", [None, "He is a nurse .", 3, {"stereo": "a b", "anti": "a c"}])
def test_paired_likelihood_rejects_what_is_not_a_list_of_pairs(pairs):
    with pytest.raises(TypeError, match=r"^pairs must be a list of"):
        PairedLikelihood(pairs, progress=False)
    study = PairedLikelihood([("a b", "a c")], progress=False)
    with pytest.raises(TypeError, match=r"^pairs must be a list of"):
        study.set_pairs(pairs)
    assert len(study.pairs) == 1  # a rejected replacement keeps the pairs


LONG = " ".join(["the"] * 5000)


def test_an_unscored_pair_is_named_with_its_length_and_the_model_limit():
    study = PairedLikelihood([("He is a nurse .", "She is a nurse ."), (LONG + " man", LONG + " woman")],
                             progress=False)
    limit = study.scorer.max_length if hasattr(study.scorer, "max_length") else None
    result = study.run()
    assert result.rows[1].scores is None and result.rows[0].scores is not None
    (note,) = [n for n in result.notes if "could not be scored" in n]
    assert "pair 1" in note and "pair 0" not in note
    tokens = int(re.search(r"has (\d+) tokens", note).group(1))
    most = int(re.search(r"takes at most (\d+)", note).group(1))
    assert tokens > most >= 2 and tokens >= 5000
    if limit is not None:
        assert most == limit
    assert result.frame()["error"].iloc[1] == result.rows[1].error


def test_many_unscored_pairs_are_summarised_not_listed_in_full():
    pairs = [(f"{LONG} {i} man", f"{LONG} {i} woman") for i in range(5)] + [("a man .", "a woman .")]
    note = next(n for n in PairedLikelihood(pairs, progress=False).run().notes if "could not be scored" in n)
    assert note.startswith("5 pair(s)") and "pair 2" in note and "pair 3" not in note and "2 more" in note


def test_the_cli_table_names_the_unscored_pair(tmp_path, capsys):
    path = tmp_path / "pairs.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sent_more", "sent_less", "stereo_antistereo", "bias_type"])
        writer.writerow(["He is a nurse .", "She is a nurse .", "antistereo", "gender"])
        writer.writerow([LONG + " man", LONG + " woman", "stereo", "gender"])
    out = io.StringIO()
    assert main(["pll", "--model", "embias-demo-mlm", "--pairs", str(path), "--no-progress"], out=out) == 0
    line = next(ln for ln in out.getvalue().splitlines() if "could not be scored" in ln)
    assert line.startswith("note: 1 pair(s)") and "pair 1" in line and "takes at most" in line


# -- the command line speaks in flags --------------------------------------------------------------------
def test_every_api_rename_points_at_a_real_option():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for command, renames in API_NAMES.items():
        flags = {s for a in sub.choices[command]._actions for s in a.option_strings}
        names = option_names(parser, command)
        for api in renames:
            assert names[api] in flags, (command, api)
    assert option_names(parser, "weat")["n_samples"] == "--permutations"
    assert option_names(parser, "pll")["token_budget"] == "--token-budget"


@pytest.mark.parametrize(("message", "expected"), [
    ("`n_samples` must be a whole number, got -5", "--permutations must be a whole number, got -5"),
    ("test 'weat6': `n_samples` must be", "test 'weat6': --permutations must be"),
    ("--workers must be at least 1", "--workers must be at least 1"),
    ("senses must be one of ('max', 'average')", "--senses must be one of ('max', 'average')"),
    ("`unknown_thing` must be 3; the samples must be", "`unknown_thing` must be 3; the samples must be"),
])
def test_api_names_become_flags_only_where_they_name_an_option(message, expected):
    assert in_cli_words(message, option_names(build_parser(), "weat")) == expected


@pytest.mark.parametrize(("argv", "flag", "api"), [
    (["weat", "weat6", "--permutations", "1"], "--permutations", "n_samples"),
    (["weat", "weat6", "--permutations", "-5"], "--permutations", "n_samples"),
    (["weat", "weat6", "--alpha", "2"], "--alpha", "`alpha`"),
    (["pll", "--model", "embias-demo-mlm", "--pairs", "{crows}", "--limit", "0", "--no-progress"], "--limit",
     "`limit`"),
    (["pll", "--model", "embias-demo-mlm", "--pairs", "{crows}", "--limit", "-1", "--no-progress"], "--limit",
     "`limit`"),
    (["pll", "--model", "embias-demo-mlm", "--pairs", "{json}", "--limit", "-1", "--no-progress"], "--limit",
     "`limit`"),
    (["pll", "--model", "embias-demo-mlm", "--pairs", "{json}", "--limit", "0", "--no-progress"], "--limit",
     "`limit`"),
    (["pll", "--model", "embias-demo-mlm", "--pairs", "{crows}", "--token-budget", "0", "--no-progress"],
     "--token-budget", "token_budget"),
    (["pll", "--model", "embias-demo-mlm", "--pairs", "{crows}", "--decimals", "99", "--no-progress"],
     "--decimals", "`decimals`"),
    (["nli", "--probe", "gender-occupation", "--chunk-size", "0"], "--chunk-size", "chunk_size"),
    (["nli", "--probe", "gender-occupation", "--top-k", "-1"], "--top-k", "top_k"),
    (["nli", "--probe", "gender-occupation", "--limit", "0"], "--limit", "`limit`"),
    (["nli", "--probe", "gender-occupation", "--limit", "-1"], "--limit", "`limit`"),
])
def test_cli_errors_name_the_option_typed(argv, flag, api, capsys, tmp_path, glove):
    crows = tmp_path / "pairs.csv"
    crows.write_text("sent_more,sent_less\nHe is a nurse .,She is a nurse .\n", encoding="utf-8")
    export = tmp_path / "pairs.json"  # the likelihood table's "Pairs JSON" export: a JSON array
    export.write_text('[{"stereo": "He is a nurse .", "anti": "She is a nurse .", "bias_type": "gender"}, '
                      '{"stereo": "He cried .", "anti": "She cried .", "bias_type": "gender"}]', encoding="utf-8")
    argv = [a.replace("{crows}", str(crows)).replace("{json}", str(export)) for a in argv]
    assert main(argv, out=io.StringIO()) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"error: {flag} must" in err or f": {flag} must" in err, err
    assert api not in err, err
