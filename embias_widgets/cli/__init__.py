"""``embias``: batch runs of the same analyses the widgets show, one module per command.

``embias_widgets.cli.main`` is the console script; :mod:`.entry` builds the parser and maps errors to exit
statuses; :mod:`.weat`, :mod:`.pll`, :mod:`.nli`, :mod:`.report`, :mod:`.data` each add one command, and
:mod:`.listing` gives every command ``--list``.
"""

from .entry import API_NAMES, BAD_INPUT, REPORT_HINT, build_parser, in_cli_words, main, option_names

__all__ = ["API_NAMES", "BAD_INPUT", "REPORT_HINT", "build_parser", "in_cli_words", "main", "option_names"]
