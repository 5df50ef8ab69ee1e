"""A model folder whose config.json (or another settings file) is not UTF-8 JSON: one error naming the file,
the problem (encoding; JSON syntax with line and column) and the fix, from the loaders and the command line."""

from __future__ import annotations

import codecs
import json
import shutil
from pathlib import Path

import pytest
from _cli_inprocess import embias_inprocess
from _tiny_lm import tiny_mlm_dir

from embias_widgets.models.errors import ModelFileError
from embias_widgets.models.json_files import read_json_file

pytest.importorskip("transformers")

SETTINGS = {"architectures": ["BertForMaskedLM"], "name": "caf\u00e9", "hidden_size": 32}
TEXT = json.dumps(SETTINGS, ensure_ascii=False, indent=2)  # "é" of "café": line 5, column 15
BROKEN = {
    "latin1": (TEXT.encode("latin-1"), ("not UTF-8", "byte 0xe9 at line 5, column 15", "re-save it as UTF-8")),
    "utf16": (TEXT.encode("utf-16"), ("is UTF-16", "byte-order mark", "re-save it as UTF-8")),
    "utf8-bom": (codecs.BOM_UTF8 + TEXT.encode(), ("UTF-8 byte-order mark", "without a byte-order mark")),
    "not-json": (TEXT.replace('"hidden_size"', "hidden_size").encode(),
                 ("not valid JSON", "at line 6, column 3", "json.tool")),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_read_json_file_names_file_problem_and_fix(tmp_path: Path, case: str) -> None:
    data, needles = BROKEN[case]
    file = tmp_path / "config.json"
    file.write_bytes(data)
    with pytest.raises(ModelFileError) as err:
        read_json_file(file)
    message = str(err.value)
    assert str(file) in message
    for needle in needles:
        assert needle in message


def test_read_json_file_reads_utf8_json(tmp_path: Path) -> None:
    file = tmp_path / "config.json"
    file.write_text(TEXT, encoding="utf-8")
    assert read_json_file(file) == SETTINGS


@pytest.fixture(scope="module")
def broken_models(tmp_path_factory) -> dict[str, Path]:
    """The tiny masked LM copied once per broken case, with its config.json replaced by the broken bytes
    (the settings themselves kept, so only the encoding or syntax is wrong)."""
    folders = {}
    settings = json.loads((tiny_mlm_dir() / "config.json").read_text(encoding="utf-8"))
    settings["name_or_path"] = "caf\u00e9"
    text = json.dumps(settings, ensure_ascii=False, indent=2)
    data = {"latin1": text.encode("latin-1"), "utf16": text.encode("utf-16"),
            "not-json": text.replace('"hidden_size"', "hidden_size").encode()}
    for case, raw in data.items():
        folder = tmp_path_factory.mktemp(case)
        shutil.copytree(tiny_mlm_dir(), folder, dirs_exist_ok=True)
        (folder / "config.json").write_bytes(raw)
        folders[case] = folder
    return folders


NEEDLES = {"latin1": "is not UTF-8 text: byte 0xe9", "utf16": "is UTF-16 text", "not-json": "is not valid JSON"}


def _loaders():
    from embias_widgets.models.language_models.loading import load_likelihood_model
    from embias_widgets.models.nli_classifiers.loading import load_nli_model
    from embias_widgets.models.registry import load_model, load_sense_model

    return {"load_model": load_model, "load_likelihood_model": load_likelihood_model,
            "load_nli_model": load_nli_model, "load_sense_model": lambda path: load_sense_model(f"gloss:{path}")}


@pytest.mark.parametrize("loader", ["load_model", "load_likelihood_model", "load_nli_model", "load_sense_model"])
@pytest.mark.parametrize("case", sorted(NEEDLES))
def test_loaders_name_the_config_file_and_the_problem(broken_models, loader: str, case: str) -> None:
    folder = broken_models[case]
    with pytest.raises(ModelFileError) as err:
        _loaders()[loader](str(folder))
    message = str(err.value)
    assert str(folder / "config.json") in message and NEEDLES[case] in message
    assert "unknown model" not in message  # the folder is found; its file is what is wrong


def test_a_broken_tokenizer_config_is_named_too(tmp_path: Path) -> None:
    from embias_widgets.models.language_models.loading import load_likelihood_model

    folder = tmp_path / "model"
    shutil.copytree(tiny_mlm_dir(), folder)
    (folder / "tokenizer_config.json").write_bytes(b"\xff\xfe{\x00}\x00")
    with pytest.raises(ModelFileError, match=r"tokenizer_config\.json is UTF-16 text"):
        load_likelihood_model(str(folder))


@pytest.mark.parametrize("command", [("report", "--quick", "--no-progress"), ("weat",)])
@pytest.mark.parametrize("case", sorted(NEEDLES))
def test_cli_is_one_error_line_exit_2(broken_models, tmp_path: Path, command: tuple[str, ...], case: str) -> None:
    folder = broken_models[case]
    argv = [*command, "--model", str(folder)]
    argv += ["--out", str(tmp_path / "out")] if command[0] == "report" else ["weat6"]
    run = embias_inprocess(*argv)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if "error" in line]
    assert len(lines) == 1 and str(folder / "config.json") in lines[0] and NEEDLES[case] in lines[0]
