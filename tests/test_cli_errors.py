"""The command line on bad input (issue 13, class 3): one line naming the file, line, item or
option and the fix, exit status 2; 1 with a hint to report it on an internal error; never a
traceback. Run in this process through :func:`_cli_inprocess.embias_inprocess` (exit status, stdout and stderr
as a subprocess shows them; an exception escaping ``main`` fails the test); the internal-error test runs the
real ``python -m embias_widgets.cli`` process, so a fresh interpreter is checked to print no traceback too."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from _cli_inprocess import Run, embias_inprocess
from _tiny_lm import tiny_mlm_dir

from embias_widgets.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _as_the_subprocess_had_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment and folder the ``embias`` subprocess of these tests had."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("EMBIAS_DEBUG", raising=False)
    monkeypatch.chdir(ROOT)


def embias(*argv: str) -> Run:
    return embias_inprocess(*argv)


def one_line_error(proc: Run | subprocess.CompletedProcess, code: int, *needles: str) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "Loading weights" not in ln]
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


# -- weat ---------------------------------------------------------------------------------------
def test_embias_alone_prints_help_and_version_works() -> None:
    alone = embias()
    assert alone.returncode == 0 and "usage: embias" in alone.stdout and "weat" in alone.stdout
    version = embias("--version")
    assert version.returncode == 0 and version.stdout.strip().startswith("embias 0.")


def test_every_option_of_every_command_has_help_with_its_default() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        text = command.format_help()
        for action in command._actions:
            if not action.option_strings or action.dest == "help":
                continue
            assert action.help, (name, action.option_strings)
            assert command._get_formatter()._get_help_string(action).lower().count("default") >= 1, (
                name, action.option_strings)
        assert "(default: 100000)" in text or name != "weat"
    assert "(default: cps" in sub.choices["pll"].format_help()


@pytest.mark.parametrize(
    ("test", "needles"),
    [
        ("/", ("is a directory: give a sent-bias test file",)),
        ("", ("empty test name",)),
        ("weat99", ("unknown test 'weat99'",)),
    ],
)
def test_bad_test_names_are_one_line_errors(test: str, needles: tuple[str, ...]) -> None:
    one_line_error(embias("weat", test), 2, "embias weat: error:", *needles)


def test_undecodable_test_file_names_the_file_and_the_encoding(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes('{"targ1": {"category": "Fl\xf6wers"'.encode("latin-1"))
    one_line_error(embias("weat", str(bad)), 2, str(bad), "line 1", "0xf6", "not UTF-8", "save the")


def test_bin_header_claiming_billions_of_vectors(tmp_path: Path) -> None:
    huge = tmp_path / "huge.bin"
    huge.write_bytes(b"3000000000 300\nrose " + b"\0" * 1200)
    one_line_error(embias("weat", "weat1", "--model", str(huge)), 2, "claims 3,000,000,000 vectors", "hold at most 1")


def test_vector_line_with_more_numbers_than_the_header(tmp_path: Path) -> None:
    path = tmp_path / "vectors.txt"
    path.write_text("2 3\nrose 1 2 3 4\ntulip 1 2 3\n")
    one_line_error(embias("weat", "weat1", "--model", str(path)), 2, f"{path}:2", "expected a word and 3 numbers")


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--permutations", "0", "--permutations must be a whole number from 2"),
        ("--permutations", "100000000000", "more would run for hours"),
        ("--alpha", "2", "--alpha must be a number strictly between 0 and 1"),
        ("--seed", "-1", "--seed must be None"),
    ],
)
def test_bad_option_values_are_named(option: str, value: str, needle: str) -> None:
    one_line_error(embias("weat", "weat1", option, value), 2, needle)


def test_argparse_errors_exit_2_without_traceback() -> None:
    proc = embias("weat", "weat1", "--ddof", "3")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr and "Traceback" not in proc.stderr


def test_internal_error_exits_1_with_a_hint(tmp_path: Path) -> None:
    # a sitecustomize that breaks the permutation test as a bug would
    (tmp_path / "sitecustomize.py").write_text(
        "import embias_widgets.metrics.association as a\n"
        "def boom(*_, **__):\n    raise ZeroDivisionError('simulated bug')\n"
        "a.permutation_test = boom\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-m", "embias_widgets.cli", "weat", "weat1"], capture_output=True,
                          text=True, timeout=240, env=env, cwd=ROOT)
    one_line_error(proc, 1, "internal error: ZeroDivisionError: simulated bug", "please report it")


def test_the_in_process_runner_shows_warnings_logs_and_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a subprocess would print, the in-process runner shows: a library's warning (despite pytest's
    warning capture), a log line through a handler made earlier with the stderr of that moment, the
    internal-error line; so one_line_error fails on them as it did on a subprocess."""
    import embias_widgets.metrics.association as association

    library = logging.getLogger("a_library_of_the_test")
    handler = logging.StreamHandler(sys.stderr)  # bound now, as transformers binds its handler at first use
    library.addHandler(handler)
    monkeypatch.setattr(library, "propagate", False)

    def boom(*_, **__):
        warnings.warn("a library's warning", UserWarning, stacklevel=1)
        library.warning("a library's log line")
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(association, "permutation_test", boom)
    try:
        proc = embias("weat", "weat1")
    finally:
        library.removeHandler(handler)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "a library's warning" in proc.stderr and "a library's log line" in proc.stderr
    assert "internal error: ZeroDivisionError: simulated bug" in proc.stderr
    with pytest.raises(AssertionError):
        one_line_error(proc, 1, "internal error")


# -- pll ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def crows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pairs") / "pairs.csv"
    path.write_text("sent_more,sent_less,stereo_antistereo,bias_type\nShe cooks.,He cooks.,stereo,gender\n")
    return path


def test_stereoset_item_of_the_wrong_shape(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text('{"type": "intrasentence", "stereotype": ["a"], "anti-stereotype": "b", "unrelated": "c"}\n')
    one_line_error(embias("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path)), 2,
                   f"{path}: line 1", "'stereotype' must be a sentence")
    official = tmp_path / "dev.json"
    official.write_text('{"data": {"intrasentence": [{"id": "x", "sentences": "oops"}]}}')
    one_line_error(embias("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(official)), 2,
                   "data.intrasentence[0]", "'sentences' must be a list")


def test_a_path_that_is_not_a_model(tmp_path: Path, crows: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    line = one_line_error(embias("pll", "--model", str(tmp_path), "--pairs", str(crows)), 2, "has no config.json")
    assert "sentencepiece" not in line
    no_tokenizer = tmp_path / "weights-only"
    no_tokenizer.mkdir()
    for name in ("config.json", "model.safetensors"):
        (no_tokenizer / name).write_bytes((tiny_mlm_dir() / name).read_bytes())
    line = one_line_error(embias("pll", "--model", str(no_tokenizer), "--pairs", str(crows)), 2, "no tokenizer files")
    assert "sentencepiece" not in line


def test_a_static_model_given_to_pll(crows: Path) -> None:
    one_line_error(embias("pll", "--model", "glove-6b-50d", "--pairs", str(crows)), 2, "not a language model")


def test_cuda_without_cuda(crows: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA; the error is for machines without it")
    one_line_error(embias("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(crows), "--device", "cuda"), 2,
                   "--device cuda: this machine has no CUDA device", "use --device cpu")


def test_a_file_with_no_scorable_pair(tmp_path: Path) -> None:
    path = tmp_path / "unscorable.csv"
    path.write_text("sent_more,sent_less,stereo_antistereo,bias_type\nCats.,Dogs!,stereo,x\n")
    one_line_error(embias("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path), "--no-progress"), 2,
                   "no pair in", "could be scored (1 tried)", "shares no tokens")


def test_undecodable_pairs_file(tmp_path: Path) -> None:
    path = tmp_path / "pairs.csv"
    path.write_bytes(b"sent_more,sent_less\n\xff\xfe,b\n")
    one_line_error(embias("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(path)), 2,
                   f"{path}: line 2", "0xff", "not UTF-8")


LATIN1_FILES = {  # every kind of file a user hands a command, written in Latin-1 ("café" as the byte 0xe9)
    "pairs.json": '[{"stereo": "He is at the café .", "anti": "She is at the café .", "bias_type": "gender"}]',
    "stereoset.json": '{"version": "1", "data": {"intrasentence": [{"id": "x", "target": "café", '
                      '"bias_type": "gender", "context": "The BLANK café.", "sentences": []}]}}',
    "crows.csv": "sent_more,sent_less,stereo_antistereo,bias_type\nHe is at the café .,She is at the café .,stereo,"
                 "gender\n",
    "sssb.txt": "[gender] nurse%1:18:00::\tHe is at the café .\tShe is at the café .\n",
    "nli.csv": "premise,hypothesis,premise_filler_word,hypothesis_filler_word\nThe man,The woman,man,woman\n"
               '"The café\nman",The woman,man,woman\n',
    "test.jsonl": '{"targ1": {"category": "A", "examples": ["café", "tea"]}}\n',
    "contexts.txt": "A sentence.\nThe café is good.\n",
    "vectors.txt": "tea 0.3 0.1\ncafé 0.1 0.2\n",
}


@pytest.mark.parametrize(("name", "argv", "line"), [
    ("pairs.json", ["pll", "--model", "{mlm}", "--pairs", "{path}", "--no-progress"], 1),
    ("stereoset.json", ["pll", "--model", "{mlm}", "--pairs", "{path}", "--no-progress"], 1),
    ("crows.csv", ["pll", "--model", "{mlm}", "--pairs", "{path}", "--no-progress"], 2),
    ("sssb.txt", ["pll", "--model", "{mlm}", "--pairs", "{path}", "--no-progress"], 1),
    ("nli.csv", ["nli", "--pairs", "{path}"], 3),  # the second row's quoted premise spans lines 3 and 4
    ("test.jsonl", ["weat", "{path}"], 1),
    ("contexts.txt", ["ceat", "--test", "weat6", "--contexts", "{path}"], 2),
    ("vectors.txt", ["weat", "weat6", "--model", "{path}"], 2),
])
def test_every_file_reader_names_the_file_the_line_and_the_encoding(tmp_path: Path, name, argv, line) -> None:
    path = tmp_path / name
    path.write_bytes(LATIN1_FILES[name].encode("latin-1"))
    run = embias(*(a.replace("{path}", str(path)).replace("{mlm}", str(tiny_mlm_dir())) for a in argv))
    err = one_line_error(run, 2, str(path), "0xe9", "not UTF-8")
    assert f"line {line}" in err or f"{path}:{line}:" in err, err
    assert "codec" not in err, err
