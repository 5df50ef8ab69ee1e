"""``embias COMMAND --list``: what a command can run, by kind (bundled tests, probes, registered models).

Every subcommand of ``embias`` gets a ``--list`` option (:func:`add_list_options`); like
``--version`` it prints and exits before the command's required arguments are checked.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

# The registry's model kinds each command accepts ("user": models a user registered, any kind).
MODEL_KINDS: dict[str, tuple[str, ...]] = {
    "weat": ("static", "sentence", "sense", "user"),
    "pll": ("language-model", "user"),
    "nli": ("nli", "user"),
    "bbq": ("language-model", "user"),
}
_KIND_TITLES = {"static": "word vectors", "sentence": "sentence encoders", "sense": "sense vectors",
                "language-model": "language models (masked or causal)", "nli": "NLI classifiers",
                "user": "registered by you (embias_widgets.models.register)"}


def _section(title: str, rows: dict[str, str]) -> list[str]:
    if not rows:
        return []
    width = max(map(len, rows))
    return [f"{title}:", *(f"  {name:<{width}}  {text}".rstrip() for name, text in rows.items()), ""]


def _models(command: str) -> list[str]:
    from ..models.registry import available_models

    lines: list[str] = []
    for kind in MODEL_KINDS.get(command, ()):
        lines += _section(f"models: {_KIND_TITLES[kind]}", available_models(kind))
    return lines


def _weat_tests() -> list[str]:
    from ..stimuli import sense_test_names
    from ..stimuli.association_tests import bundled_test_names, load_bundled_test
    from ..stimuli.sentence_tests import load_sentence_test, sentence_test_names

    words = {name: load_bundled_test(name).description for name in bundled_test_names()}
    sentences = {name: load_sentence_test(name).description for name in sentence_test_names()}
    senses = dict.fromkeys(sense_test_names(), "word-sense test (sense models only)")
    return [*_section("word tests", words), *_section("sentence tests (SEAT, May et al. 2019)", sentences),
            *_section("sense tests", senses), "'all' runs May et al.'s suite; a sent-bias .jsonl path works too.", ""]


def _pll_inputs() -> list[str]:
    formats = {"crows": "CrowS-Pairs .csv (Nangia et al. 2020)", "stereoset": "StereoSet dev.json or flat .jsonl "
               "(Nadeem et al. 2021)", "sssb": "SSSB .txt (Zhou et al. 2022)"}
    return [*_section("pair files (--pairs, --format-in)", formats),
            "'--pairs sample': ten bundled pairs in the CrowS-Pairs layout (offline; a demo, not a benchmark).",
            "'embias data fetch crows-pairs stereoset' downloads the published files.", ""]


def _nli_probes() -> list[str]:
    from ..stimuli.nli_probes import available_probes

    return [*_section("probes (--probe)", available_probes()), "--pairs FILE.csv runs pairs in the authors' layout.",
            ""]


def _data_sets() -> list[str]:
    from ..data import DATASETS

    return _section("data sets", {d.name: f"{d.citation}; {d.licence}" for d in DATASETS.values()})


def listing(command: str) -> str:
    """What ``embias COMMAND`` can run: its bundled tests or probes, then the registered models by kind."""
    parts = {"weat": _weat_tests, "pll": _pll_inputs, "nli": _nli_probes, "data": _data_sets}
    lines = [*parts.get(command, list)(), *_models(command)]
    return "\n".join(lines).rstrip() + "\n"


class _ListAction(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, command: str = "", **kwargs: Any) -> None:
        self.command = command
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: Any = None) -> None:
        sys.stdout.write(listing(self.command))
        parser.exit(0)


def add_list_options(sub: argparse._SubParsersAction) -> None:
    """Give every subcommand ``--list`` (print what it can run, by kind, and exit)."""
    for name, parser in sub.choices.items():
        parser.add_argument("--list", action=_ListAction, command=name,
                            help="list the bundled tests, probes and registered models this command takes, and exit")
