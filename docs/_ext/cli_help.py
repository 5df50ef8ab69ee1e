"""``.. embias-cli-help::``: the ``--help`` text of ``embias`` and of every subcommand, from the argparse
parsers themselves (``embias_widgets.cli.build_parser``), so the command-line page cannot drift from the CLI.

Help texts are shown verbatim in literal blocks (never parsed as reStructuredText: they hold ``|X|``).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

WIDTH = "100"  # argparse wraps at $COLUMNS; a fixed width keeps the page stable across machines


def _subcommands(parser: argparse.ArgumentParser, prog: str) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """``(full command, parser)`` for ``parser`` and every nested subcommand, depth first."""
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subcommands(sub, f"{prog} {name}")


def help_texts() -> list[tuple[str, str]]:
    """``(command, its --help text)`` for ``embias`` and each subcommand."""
    from embias_widgets.cli import build_parser

    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        return [(prog, parser.format_help()) for prog, parser in _subcommands(build_parser(), "embias")]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


class CliHelp(SphinxDirective):
    """One section per command, holding its ``--help`` text as a literal block."""

    def run(self) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for prog, text in help_texts():
            section = nodes.section(ids=[nodes.make_id(prog)])
            section += nodes.title(text=f"{prog}")
            section += nodes.literal_block(text, text, language="text")
            out.append(section)
        return out


def setup(app: Sphinx) -> dict[str, object]:
    """Register the directive."""
    app.add_directive("embias-cli-help", CliHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
