"""``embias report``: audit one model, or several side by side, across every method that applies.

    embias report --model M [--model M2 ...] [--out DIR] [--quick] [--pairs FILE ...]
                  [--crows-pairs PATH|URL] [--stereoset PATH|URL] [--bbq DIR] [--seed S] [--alpha A] [--level L]
                  [--workers N | --scheduler tcp://HOST:PORT] [--device D] [--dtype T] [--fresh] [--no-html]
                  [--no-progress] [--model-card]

States its sizes before it starts, shows a progress bar per section on stderr, and prints where the report is.
Kept in its own module; the ``embias`` entry point (:mod:`embias_widgets.cli`) adds it with :func:`add_report`.
Bad input (an unknown model, a model of unknown kind, an unwritable folder, a data file that is not what its name
says, a folder of another run) is one line from the entry point, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..metrics import DEFAULT_ALPHA
from .options import add_device_options, device_options


def add_report(sub: argparse._SubParsersAction) -> None:
    """Add the ``report`` subcommand."""
    p = sub.add_parser("report", help="one audit of a model (or several) across every method that applies",
                       description="Run every method that applies to each model (WEAT/RIPA/debiasing for word "
                       "vectors, SEAT and sense WEAT for sentence encoders, CrowS-Pairs/StereoSet/sense pairs for "
                       "masked LMs, the NLI probes for NLI models) and write report.html, report.json and the "
                       "figures to DIR.")
    p.add_argument("--model", action="append", required=True, metavar="NAME_OR_PATH",
                   help="registered name (glove-6b-50d, all-MiniLM-L6-v2, embias-demo-mlm, embias-demo-nli), "
                   "vectors file, model directory or cached hub name; repeatable (models side by side)")
    p.add_argument("--out", default="embias-report", metavar="DIR",
                   help="folder of the report (default: embias-report)")
    p.add_argument("--quick", action="store_true", help="small sizes that finish in minutes (stated before the run)")
    p.add_argument("--pairs", action="append", default=[], metavar="FILE", help="SSSB file for masked LMs (repeatable)")
    p.add_argument("--crows-pairs", metavar="PATH|URL",
                   help="CrowS-Pairs csv (default: the data folder 'embias data fetch' fills; else skipped)")
    p.add_argument("--stereoset", metavar="PATH|URL",
                   help="StereoSet dev.json or flat .jsonl (default: the data folder; else skipped)")
    p.add_argument("--bbq", metavar="DIR",
                   help="BBQ's data folder for the language models' BBQ section, full reports only (default: the "
                   "data folder; else skipped)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of every sampled test and sample")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, metavar="A",
                   help="Holm-Bonferroni level over every p-value of the report (May et al.: 0.01)")
    p.add_argument("--level", type=float, default=0.95, metavar="L",
                   help="confidence level of every interval of the report (bootstrap, Wilson, t)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N", help="run the sections on a local Dask cluster of N "
                       "processes (needs the scale extra)")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the sections on this Dask scheduler")
    add_device_options(p)  # every torch model of the report; word vectors ignore both
    p.add_argument("--fresh", action="store_true", help="delete the sections saved in DIR and start over")
    p.add_argument("--no-html", action="store_true", help="write report.json and the figures only")
    p.add_argument("--baseline", metavar="PATH", default=None,
                   help="an earlier report.json (or its folder, with its sections/): compare each model with its "
                   "model, paired item by item (report.json's comparisons)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    p.add_argument("--model-card", action="store_true",
                   help="also write MODEL_CARD_BIAS.md (with several models one per model, "
                   "MODEL_CARD_BIAS.<model id>.md, the id its sections and figures are named by): a 'Bias "
                   "evaluation' section in the Hugging Face model-card style with a model-index YAML block, to "
                   "paste into a model card")
    p.set_defaults(run=run_report)


def run_report(args: argparse.Namespace, out: Any) -> int:
    """Run the report; print its sizes first and where it is at the end."""
    from ..analysis.report import Report

    report = Report(args.model, out=args.out, quick=args.quick, pairs=args.pairs, crows_pairs=args.crows_pairs,
                    stereoset=args.stereoset, bbq=args.bbq, seed=args.seed, alpha=args.alpha, level=args.level,
                    workers=args.workers,
                    scheduler=args.scheduler, fresh=args.fresh, **device_options(args), progress=not args.no_progress,
                    html=not args.no_html, baseline=args.baseline)
    print(f"embias report: {report.describe()}", file=sys.stderr)
    result = report.run()
    out.write(result.summary() + "\n")
    for s in result.sections:
        if s["status"] == "skipped":
            out.write(f"note: {s['title']} [{s['model']}] skipped: {s['reason']}\n")
    target = report.out / ("report.json" if args.no_html else "report.html")
    out.write(f"report: {target.resolve()}\n")
    if args.model_card:
        from ..analysis.publish import write_model_cards
        from ..analysis.report.figures import chart_text

        report_dict = result.to_dict()
        for m, path in zip(report_dict["models"], write_model_cards(report_dict, report.out), strict=True):
            out.write(f"model card of {chart_text(m['name'])}: {path.resolve()}\n")
    return 0
