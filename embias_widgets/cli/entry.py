"""The ``embias`` entry point: the parser of every command and one error policy.

Each command lives in its own module of this package (``weat``, ``pll``, ``nli``, ``bbq``, ``report``, ``data``,
``listing``), an ``add_<name>(sub)`` that sets ``run``; this module only assembles them and turns errors into
one line: exit 0 done, 2 bad input, 1 internal error.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .bbq import add_bbq
from .ceat import add_ceat
from .compare import add_compare
from .data import add_data
from .listing import add_list_options
from .nli import add_nli
from .pll import add_pll
from .report import add_report
from .weat import add_weat

REPORT_HINT = (
    "this is a bug in embias-widgets, not in your input: please report it with the command line "
    "and this message (rerun with EMBIAS_DEBUG=1 for the traceback)"
)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default (unless the help already states one)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if not action.option_strings or action.default is argparse.SUPPRESS or "default" in text.lower():
            return text
        default = action.default
        shown = "off" if default is False else "none" if default is None else "%(default)s"
        return f"{text} (default: {shown})"


def _document_defaults(parser: argparse.ArgumentParser) -> None:
    """Give options without help a line (their choices) so ``--help`` lists every default."""
    parser.formatter_class = _HelpFormatter
    for action in parser._actions:
        if action.option_strings and not action.help and action.help is not argparse.SUPPRESS:
            action.help = f"one of {', '.join(map(str, action.choices))}" if action.choices else action.dest


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="embias",
        description="Measure social bias in embeddings and language models.",
        epilog="'embias COMMAND --help' lists a command's options with their defaults. Exit status: 0 done, "
        "2 bad input (the message names the file, line, item or option), 1 internal error.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"embias {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (add_weat, add_pll, add_nli, add_bbq, add_ceat, add_data, add_report, add_compare):
        add(sub)
    add_list_options(sub)  # COMMAND --list
    for command in sub.choices.values():
        _document_defaults(command)
    return parser


BAD_INPUT = (ValueError, KeyError, OSError, LookupError)
"""Errors that mean the input cannot be used (ValueError covers UnicodeDecodeError; OSError a
missing, unreadable or directory path and a failed download); anything else is a bug."""


API_NAMES = {
    "weat": {"n_samples": "permutations", "method": "parametric", "models": "model"},
    "pll": {"format": "format_in"},
    "nli": {"connect_timeout": "timeout", "taus": "tau", "k": "top_k"},
    "bbq": {"connect_timeout": "timeout", "items": "data"},
}
"""Per subcommand, API parameter names (as validation errors name them) whose CLI option has another
name: ``n_samples`` of :func:`~embias_widgets.metrics.weat` is ``--permutations``. Every other option
maps by its dest (``token_budget`` -> ``--token-budget``); see :func:`option_names`."""
_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`|(?<![-\w])([A-Za-z_][A-Za-z0-9_]*)(?= must\b)")


def option_names(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """API parameter name -> the CLI flag the user typed, for one subcommand (the one mapping)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    flags = {a.dest: max(a.option_strings, key=len) for a in sub.choices[command]._actions
             if a.option_strings and a.dest != "help"}
    renames = {api: flags[dest] for api, dest in API_NAMES.get(command, {}).items() if dest in flags}
    return {**flags, **renames}


def in_cli_words(message: str, names: dict[str, str]) -> str:
    """``message`` with API parameter names (`n_samples`, or a bare name before "must") as CLI flags."""
    return _NAMED.sub(lambda m: names.get(m.group(1) or m.group(2), m.group(0)), message)


def _message(err: BaseException) -> str:
    if isinstance(err, KeyError) and err.args:
        return str(err.args[0])
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        hint = "give a file, not a directory" if isinstance(err, IsADirectoryError) else "check the path"
        return f"{err.filename}: {err.strerror.lower()}; {hint}"
    return str(err) or type(err).__name__


def _one_line_warnings(command: str, show: Callable[..., None]) -> Callable[..., None]:
    """``warnings.showwarning`` that prints an :class:`~embias_widgets.EmbiasWarning` as ``embias COMMAND:
    warning: ...`` (no source line: it is about the input, not the code) and hands others to ``show``."""
    from .. import EmbiasWarning

    def one_line(message: Any, category: type, *rest: Any, **kw: Any) -> None:
        if issubclass(category, EmbiasWarning):
            print(f"embias {command}: warning: {message}", file=sys.stderr)
        else:
            show(message, category, *rest, **kw)

    return one_line


def main(argv: Sequence[str] | None = None, out: Any = None) -> int:
    """Run the command line: 0 done; 2 bad input, one line on stderr naming what to fix;
    1 internal error, one line with a hint to report it. ``embias`` alone prints the help."""
    import os

    out = out or sys.stdout
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        parser.print_help(out)
        return 0
    args = parser.parse_args(argv)  # argparse itself reports unknown or malformed options (exit 2)
    try:
        with warnings.catch_warnings():  # our own warnings as one line each, like the errors
            warnings.showwarning = _one_line_warnings(args.command, warnings.showwarning)
            return args.run(args, out)
    except KeyboardInterrupt:
        print(f"embias {args.command}: interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as err:
        if os.environ.get("EMBIAS_DEBUG"):
            raise
        from ..models.names import EXTRA_OF_MODULE, extras_error

        if (err.name or "").split(".")[0] not in EXTRA_OF_MODULE:  # not an optional extra: our bug
            print(f"embias {args.command}: internal error: {type(err).__name__}: {err}; {REPORT_HINT}",
                  file=sys.stderr)
            return 1
        print(f"embias {args.command}: error: {extras_error(err.name, f'embias {args.command}')}", file=sys.stderr)
        return 2
    except BAD_INPUT as err:
        if os.environ.get("EMBIAS_DEBUG"):
            raise
        text = _message(err)
        if isinstance(err, ValueError):  # validation speaks API names: say the option the user typed
            text = in_cli_words(text, option_names(parser, args.command))
        print(f"embias {args.command}: error: {text}", file=sys.stderr)
        return 2
    except Exception as err:
        if os.environ.get("EMBIAS_DEBUG"):
            raise
        print(f"embias {args.command}: internal error: {type(err).__name__}: {err}; {REPORT_HINT}", file=sys.stderr)
        return 1

