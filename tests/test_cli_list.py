"""``embias COMMAND --list``: the bundled tests, probes and registered models each command takes."""

from __future__ import annotations

import re

import pytest

from embias_widgets.cli import main
from embias_widgets.models.registry import _USER_MODELS, BUILTIN_MODELS, register
from embias_widgets.stimuli import sense_test_names
from embias_widgets.stimuli.association_tests import bundled_test_names
from embias_widgets.stimuli.nli_probes import available_probes
from embias_widgets.stimuli.sentence_tests import sentence_test_names


def _listed(command: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, list[str]]]:
    """Run ``embias COMMAND --list`` (no other argument, though the command requires some) and parse it."""
    with pytest.raises(SystemExit) as done:
        main([command, "--list"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    sections: dict[str, list[str]] = {}
    title = None
    for line in text.splitlines():
        if re.match(r"^\S.*:$", line):
            title = line[:-1]
            sections[title] = []
        elif line.startswith("  ") and title:
            sections[title].append(line.split()[0])
    return text, sections


def _models(kind: str) -> list[str]:
    return sorted(name for name, entry in BUILTIN_MODELS.items() if entry.kind == kind)


def test_weat_lists_every_bundled_test_and_the_embedding_models(capsys) -> None:
    _, sections = _listed("weat", capsys)
    assert sections["word tests"] == list(bundled_test_names())
    assert sections["sentence tests (SEAT, May et al. 2019)"] == list(sentence_test_names())
    assert sections["sense tests"] == list(sense_test_names())
    assert sections["models: word vectors"] == _models("static") == ["glove-6b-50d"]
    assert sections["models: sentence encoders"] == _models("sentence")
    assert sections["models: sense vectors"] == _models("sense")
    everything = [n for names in sections.values() for n in names]
    assert "embias-demo-mlm" not in everything and "embias-demo-nli" not in everything


def test_pll_lists_language_models_and_pair_formats(capsys) -> None:
    text, sections = _listed("pll", capsys)
    assert sections["models: language models (masked or causal)"] == _models("language-model") == ["embias-demo-mlm"]
    assert sections["pair files (--pairs, --format-in)"] == ["crows", "stereoset", "sssb"]
    assert "glove-6b-50d" not in text


def test_nli_lists_probes_and_nli_models(capsys) -> None:
    text, sections = _listed("nli", capsys)
    assert sections["probes (--probe)"] == list(available_probes())
    assert sections["models: NLI classifiers"] == _models("nli") == ["embias-demo-nli"]
    assert "embias-demo-mlm" not in text


def test_data_lists_data_sets_with_licences(capsys) -> None:
    text, sections = _listed("data", capsys)
    assert sections["data sets"] == ["crows-pairs", "stereoset", "sent-bias", "word-lists", "bbq"]
    assert "CC BY 4.0" in text  # BBQ (Parrish et al. 2022)
    assert "CC BY-NC 4.0" in text


def test_a_users_registered_model_is_listed(capsys, monkeypatch) -> None:
    monkeypatch.setattr("embias_widgets.models.registry._USER_MODELS", dict(_USER_MODELS))
    register("my-vectors", "my own vectors")(lambda: None)
    _, sections = _listed("weat", capsys)
    assert "my-vectors" in sections["models: registered by you (embias_widgets.models.register)"]
