"""``embias compare``: did fine-tuning or debiasing change the bias? Two models paired on the same items.

    embias compare --model BASELINE --model OTHER [--out DIR] [--quick] [--methods M,M] [--fail-if RULE ...]
                   [--crows-pairs PATH|URL] [--stereoset PATH|URL] [--pairs FILE] [--seed S] [--alpha A]
                   [--level L] [--resamples R] [--device D] [--dtype T] [--fresh] [--no-html] [--no-progress]
                   [--format text|json]

Exit status: 0 when no ``--fail-if`` rule is breached, 1 when one is (one line per breach on stderr), 2 for bad
input; an internal error is also 1, with a line that says so. Kept in its own module; the ``embias`` entry point
adds it with :func:`add_compare`.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..metrics.multiple_testing import DEFAULT_ALPHA
from .options import add_device_options, device_options

RULES_HELP = ("fail (exit 1) when a rule is breached: worse (a bias grew significantly after Holm), worse:T (and by "
              "more than T in the row's unit), grows:T (the estimated growth exceeds T), changed (any significant "
              "change); @METHOD[,METHOD] limits a rule (worse@weat,crows-pairs); repeatable")


def add_compare(sub: argparse._SubParsersAction) -> None:
    """Add the ``compare`` subcommand."""
    p = sub.add_parser("compare", help="paired before/after comparison of two models, with a CI gate",
                       description="Run every method that applies to both models (as embias report), pair them on "
                       "the items both scored, and give each method's change with a paired interval and test "
                       "(McNemar for pair scores, a paired permutation test for WEAT, bootstraps clustered by "
                       "target, template and word pair), Holm-Bonferroni over the tests. Writes DIR/comparison.json, "
                       "DIR/report.json and DIR/report.html.",
                       epilog="Exit status: 0 no rule breached, 1 a --fail-if rule breached (one line per breach on "
                       "stderr; an internal error is also 1 and says so), 2 bad input.")
    p.add_argument("--model", action="append", required=True, metavar="NAME_OR_PATH",
                   help="give it twice: the baseline first, then the fine-tuned or debiased model (names, vectors "
                   "files, model directories or cached hub names)")
    p.add_argument("--out", default="embias-compare", metavar="DIR", help="folder of the comparison and its report")
    p.add_argument("--quick", action="store_true", help="small sizes that finish in minutes (as embias report)")
    p.add_argument("--methods", default=None, metavar="M,M",
                   help="only these methods (weat, seat, ripa, crows-pairs, stereoset, sense-pairs, sssb, nli, ...)")
    p.add_argument("--fail-if", action="append", default=[], metavar="RULE", help=RULES_HELP)
    p.add_argument("--pairs", action="append", default=[], metavar="FILE", help="SSSB file for masked LMs (repeatable)")
    p.add_argument("--crows-pairs", metavar="PATH|URL", help="CrowS-Pairs csv (default: the data folder; else skipped)")
    p.add_argument("--stereoset", metavar="PATH|URL", help="StereoSet dev.json or flat .jsonl (default: the data "
                   "folder; else skipped)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of every sample, resample and permutation")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, metavar="A",
                   help=f"Holm-Bonferroni level over the comparison's paired tests (default {DEFAULT_ALPHA:g})")
    p.add_argument("--level", type=float, default=0.95, metavar="L", help="confidence level of every interval")
    p.add_argument("--resamples", type=int, default=2_000, metavar="R", help="bootstrap replicates of each interval")
    add_device_options(p)
    p.add_argument("--fresh", action="store_true", help="delete the sections saved in DIR and start over")
    p.add_argument("--no-html", action="store_true", help="write report.json and comparison.json only")
    p.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: one line per paired test; json: the comparison (as comparison.json)")
    p.set_defaults(run=run_compare)


def run_compare(args: argparse.Namespace, out: Any) -> int:
    """Run the comparison; print it; exit 1 on a breached ``--fail-if`` rule."""
    from ..analysis.compare import Compare, parse_rule

    if len(args.model) != 2:
        raise ValueError(f"--model must be given exactly twice (baseline, then the other model), got "
                         f"{len(args.model)}: {', '.join(args.model)}")
    rules = [parse_rule(r) for r in args.fail_if]  # a bad rule is bad input before anything runs
    methods = [m for m in args.methods.split(",") if m] if args.methods else None
    study = Compare(args.model[0], args.model[1], out=args.out, methods=methods, alpha=args.alpha,
                    resamples=args.resamples, quick=args.quick, pairs=args.pairs, crows_pairs=args.crows_pairs,
                    stereoset=args.stereoset, seed=args.seed, level=args.level, fresh=args.fresh,
                    progress=not args.no_progress, html=not args.no_html, **device_options(args))
    print(f"embias compare: {study.describe()}", file=sys.stderr)
    result = study.run()
    if args.format == "json":
        out.write(json.dumps(result.comparison, indent=1) + "\n")
    else:
        out.write(result.summary() + "\n")
        out.write(f"comparison: {(result.out_dir / 'comparison.json').resolve()}\n")
    lines = result.breaches(rules)
    for line in lines:
        print(f"embias compare: breach: {line}", file=sys.stderr)
    return 1 if lines else 0
