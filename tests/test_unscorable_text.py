"""Text a language model cannot score honestly (issue 31, items 2 and 7), through ``embias pll`` as a user meets
it: a model directory whose tokenizer files are missing (a 5-token tokenizer turning every sentence into
[UNK]) is refused when it loads, naming the model and the files; a sentence seen only as unknown tokens, or
holding typed control tokens, is an error in its pair's row and left out of n."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from _cli_inprocess import embias_inprocess
from _tiny_lm import one_thread, tiny_mlm_dir, tiny_scorer

from embias_widgets.models.language_models.text_checks import PROBE_TEXTS, TokenizerError, check_tokenizer


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    yield from one_thread()


def _pairs(tmp_path: Path, pairs: list[tuple[str, str]]) -> Path:
    path = tmp_path / "pairs.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["", "sent_more", "sent_less", "stereo_antistereo", "bias_type"])
        writer.writerows([i, more, less, "stereo", "gender"] for i, (more, less) in enumerate(pairs))
    return path


ORDINARY = [("The man is a nurse.", "The woman is a nurse."), ("He cried.", "She cried.")]


def test_a_masked_lm_without_its_vocabulary_files_is_refused_naming_them(tmp_path):
    broken = tmp_path / "broken-mlm"
    shutil.copytree(tiny_mlm_dir(), broken)
    for name in ("vocab.txt", "tokenizer.json"):
        (broken / name).unlink(missing_ok=True)
    assert (broken / "config.json").is_file() and (broken / "tokenizer_config.json").is_file()
    run = embias_inprocess("pll", "--model", str(broken), "--pairs", str(_pairs(tmp_path, ORDINARY)),
                           "--no-progress")
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1, run.stderr
    for said in (f"the tokenizer of {broken} turns ordinary text into unknown tokens only", "[UNK]",
                 "tokenizer_config.json but no vocabulary file", "vocab.txt", "tokenizer.json"):
        assert said in run.stderr, (said, run.stderr)


def test_the_tokenizer_check_passes_a_real_vocabulary_and_a_tokenizer_without_unknowns():
    scorer = tiny_scorer()
    check_tokenizer(scorer.tokenizer, "tiny")  # MiniLM's WordPiece reads the probe texts

    class ByteLevel:  # GPT-2 style: no unknown token, so never "unknowns only"
        unk_token_id = None

    check_tokenizer(ByteLevel(), "bytes")

    class FiveTokens:
        unk_token, unk_token_id = "[UNK]", 100

        def __call__(self, text, return_special_tokens_mask):
            n = len(text.split())
            return {"input_ids": [101, *[100] * n, 102], "special_tokens_mask": [1, *[0] * n, 1]}

        def __len__(self):
            return 5

    with pytest.raises(TokenizerError, match="a vocabulary of 5 tokens"):
        check_tokenizer(FiveTokens(), "five")
    assert all(text.strip() for text in PROBE_TEXTS)


def test_unknown_only_and_control_token_pairs_are_left_out_of_n_with_the_reason(tmp_path):
    hostile = [("😀😀", "😀😀😀"), ("[MASK] [SEP]", "[CLS] [PAD]"), ("He is [mask].", "She is here.")]
    path = _pairs(tmp_path, [*ORDINARY, *hostile])
    run = embias_inprocess("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path), "--no-progress",
                           "--format", "json")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["n"] == len(ORDINARY) and record["n_errors"] == len(hostile)
    errors = {item["sent_more"]: item.get("error") or "" for item in record["items"]}
    assert "only as unknown tokens ([UNK])" in errors["😀😀"]
    assert "control tokens [MASK], [SEP]" in errors["[MASK] [SEP]"]
    assert "control token [MASK]" in errors["He is [mask]."]
    assert all(not errors[more] for more, _ in ORDINARY)
    clean = embias_inprocess("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(_pairs(tmp_path, ORDINARY)),
                             "--no-progress", "--format", "json")
    assert json.loads(clean.stdout)["score"] == record["score"]  # the hostile pairs changed nothing


def test_a_cased_model_refuses_control_tokens_it_would_read_as_such():
    scorer = tiny_scorer(lowercase=False)
    assert scorer.tokenizer("[MASK] [SEP]", return_special_tokens_mask=True)["special_tokens_mask"] == [1, 0, 0, 1]
    with pytest.raises(ValueError, match=r"control tokens \[MASK\], \[SEP\]"):
        scorer.score_sentences(["[MASK] [SEP]"])
    with pytest.raises(ValueError, match="only as unknown tokens"):
        scorer.score_sentences(["😀"])
    assert len(scorer.score_sentences(["The nurse is here."])) == 1


def test_control_tokens_are_read_once_per_batch_and_a_token_added_later_is_refused(monkeypatch):
    from embias_widgets.models.language_models import text_checks

    scorer = tiny_scorer(lowercase=False)
    reads = []
    plain = text_checks.control_tokens
    monkeypatch.setattr(text_checks, "control_tokens", lambda tok: reads.append(1) or plain(tok))
    monkeypatch.setattr("embias_widgets.models.language_models.tokens.control_tokens", text_checks.control_tokens)
    sentences = [f"The nurse number {k} is here." for k in range(30)]
    assert len(scorer.tokenize_all(sentences)) == 30
    assert reads == [1]  # one read for the 30 sentences (transformers builds the list anew on every access)
    scorer.tokenizer.add_special_tokens({"additional_special_tokens": ["<stereo>"]})
    with pytest.raises(ValueError, match=r"control token <stereo>"):  # read again on the next call: not stale
        scorer.score_sentences(["The <stereo> nurse is here."])


@pytest.mark.slow  # a quick report of a masked LM: four sections
def test_the_report_marks_crows_pairs_failed_instead_of_publishing_it(tmp_path):
    """The report published CrowS-Pairs as done at -50.0 for such a model; its sections now fail with the
    reason, and nothing is scored from unknown tokens."""
    broken = tmp_path / "broken-mlm"
    shutil.copytree(tiny_mlm_dir(), broken)
    for name in ("vocab.txt", "tokenizer.json"):
        (broken / name).unlink(missing_ok=True)
    out = tmp_path / "report"
    run = embias_inprocess("report", "--model", str(broken), "--quick", "--out", str(out), "--no-progress",
                           "--no-html", "--crows-pairs", str(_pairs(tmp_path, ORDINARY)))
    assert run.returncode == 0, run.stderr
    sections = {s["method"]: s for s in json.loads((out / "report.json").read_text())["sections"]}
    assert sections["crows-pairs"]["status"] == "failed"
    assert "turns ordinary text into unknown tokens only" in sections["crows-pairs"]["reason"]
    assert not any(s["status"] == "done" for s in sections.values())
