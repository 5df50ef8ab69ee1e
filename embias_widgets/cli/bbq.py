"""``embias bbq``: BBQ (Parrish et al. 2022) on a masked or causal language model.

    embias bbq --model NAME_OR_PATH [--data DIR] [--categories C ...] [--limit N] [--format table|json|tsv]
               [--answers item|lm-eval] [--normalization none|token|char] [--convention authors|helm|lm-eval]
               [--level L] [--items-out FILE.tsv] [--results-dir DIR [--fresh]] [--workers N | --scheduler ADDR]
               [--device D] [--dtype T] [--chunk-size N] [--token-budget T] [--threads N]

Each item's three answers are scored after lm-evaluation-harness's prompt (causal LMs: the answer's
log-likelihood; masked LMs: its PLL in context), the highest is the model's answer, and the authors' accuracy and
bias scores per category and context condition come with intervals that redraw templates
(:class:`~embias_widgets.analysis.bbq.BbqStudy`, :class:`~embias_widgets.analysis.bbq.BbqResult`). A run of more
than :data:`LONG_BBQ_ITEMS` items states its size and a measured estimate before it starts. Kept in its own module;
the ``embias`` entry point (:mod:`embias_widgets.cli`) adds it with :func:`add_bbq`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from .estimates import duration, progress_default
from .options import add_lm_run_options, add_progress_option, device_options

LONG_BBQ_ITEMS = 300
"""A run of more items than this states its size and estimate before it starts."""
CELL_COLUMNS = ("category", "context_condition", "n_items", "accuracy", "accuracy_interval", "bias_score",
                "bias_score_interval", "n_templates")


def add_bbq(sub: argparse._SubParsersAction) -> None:
    """Add the ``bbq`` subcommand."""
    p = sub.add_parser("bbq", help="BBQ (Parrish et al. 2022): bias scores of a masked or causal LM answering "
                       "questions about two people",
                       description="Answer BBQ's questions with a language model (each answer scored after the "
                       "context and question in lm-evaluation-harness's prompt; the most likely answer wins) and "
                       "report the authors' accuracy and bias scores per category and context condition, with "
                       "intervals that redraw templates.")
    p.add_argument("--model", required=True, metavar="NAME_OR_PATH",
                   help="registered name (embias-demo-mlm), hub name or local directory of a masked or causal LM")
    p.add_argument("--data", default=None, metavar="DIR",
                   help="BBQ's data folder (<Category>.jsonl files), one .jsonl file, or a file of the same layout "
                   "(default: the folder 'embias data fetch bbq' fills)")
    p.add_argument("--categories", nargs="+", default=None, metavar="C",
                   help="only these categories (e.g. Age Religion; default: every category in --data)")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="at most N items per category, spread over its templates")
    p.add_argument("--answers", choices=("item", "lm-eval"), default="item",
                   help="item: the item's three answers (the paper); lm-eval: the two people and lm-evaluation-"
                   "harness's ten phrasings of unknown")
    p.add_argument("--normalization", choices=("none", "token", "char"), default="none",
                   help="an answer's score: the sum of its log-probabilities (lm-eval's acc), per token, or per "
                   "character (lm-eval's acc_norm)")
    p.add_argument("--convention", choices=("authors", "helm", "lm-eval"), default="authors",
                   help="bias score as the authors' R script (default), HELM or lm-evaluation-harness computes it")
    p.add_argument("--level", type=float, default=0.95, metavar="L",
                   help="level of the intervals (percentile bootstrap redrawing templates within a category)")
    p.add_argument("--format", choices=("table", "json", "tsv"), default="table",
                   help="table for reading, json (every cell, the options and notes), or tsv (one row per cell)")
    p.add_argument("--items-out", default=None, metavar="FILE.tsv",
                   help="also write every item with its three answers' log-likelihoods, probabilities and the "
                   "prediction to this TSV")
    p.add_argument("--results-dir", default=None, metavar="DIR",
                   help="write each finished chunk here; a re-run of the very same run (items, model files, "
                   "options) resumes, anything else is refused")
    p.add_argument("--fresh", action="store_true", help="with --results-dir: delete its chunks and start over")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N", help="score on a local Dask cluster of N processes")
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="score on this Dask scheduler")
    p.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds to wait for a --scheduler")
    p.add_argument("--chunk-size", type=int, default=256, metavar="N", help="items per chunk (saved, or one task)")
    add_lm_run_options(p)
    add_progress_option(p)
    p.set_defaults(run=run_bbq)


def _iv_bbq_args(args: argparse.Namespace) -> None:
    """Options the parser cannot check alone, each error naming its flag."""
    import math

    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be a whole number of items per category, at least 1, got {args.limit}")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.chunk_size < 1:
        raise ValueError(f"--chunk-size must be a positive number of items, got {args.chunk_size}")
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise ValueError(f"--timeout must be a positive number of seconds, got {args.timeout:g}")
    if args.fresh and not args.results_dir:
        raise ValueError("--fresh starts a --results-dir over: give --results-dir DIR with it")


def _data_path(given: str | None) -> Path:
    if given is not None:
        return Path(given).expanduser()
    from ..data import default_dest

    folder = default_dest() / "bbq"
    if not folder.exists():
        raise ValueError(f"no BBQ data in {folder}: run `embias data fetch bbq`, or give --data DIR (a folder of "
                         "BBQ's <Category>.jsonl files)")
    return folder


def bbq_estimate(study: Any, *, sample: int = 12) -> str:
    """``11,956 items (6 categories) x 3 answers with M; about 25 min here (8 items/s on 12 items timed)``: the
    size, and the time of ``sample`` items (after a warm-up of two) scored through the run's own path, scaled by
    the number of items."""
    from ..analysis.bbq.chunks import score_chunk

    items = study.items
    k = 3 if study.answers == "item" else 12
    text = f"{len(items):,} items ({len(items.categories)} categories) x {k} answers with {study.model_name}"
    n = min(sample, len(items) - 2)
    if n < 2:
        return text
    step = max(1, len(items) // n)  # spread over the categories: their contexts differ in length
    picked = items.subset(list(range(0, len(items), step))[: n + 2])
    score_chunk(study.scorer, picked, 0, 2, study.answers)  # warm-up: the model's first-use checks
    start = time.perf_counter()
    score_chunk(study.scorer, picked, 2, len(picked), study.answers)
    rate = (len(picked) - 2) / max(time.perf_counter() - start, 1e-9)
    return text + (f"; about {duration(len(items) / rate)} here ({rate:,.1f} items/s on {len(picked) - 2} items "
                   "timed); --limit N scores N items per category")


def run_bbq(args: argparse.Namespace, out: Any) -> int:
    from ..models.names import require_models_extra

    require_models_extra("embias bbq (language models run on torch)")
    _iv_bbq_args(args)
    from ..models.runtime import cpu_threads, torch_threads

    with torch_threads(cpu_threads(args.threads)):  # restored after: main() may run inside another program
        return _run(args, out)


def _run(args: argparse.Namespace, out: Any) -> int:
    from ..analysis.bbq import BbqStudy
    from ..metrics.score_intervals import check_level
    from ..stimuli.bbq import load_bbq

    check_level(args.level)  # before any scoring
    items = load_bbq(_data_path(args.data), categories=args.categories, limit=args.limit)
    options = {**device_options(args), "progress": False}
    if args.token_budget is not None:
        options["token_budget"] = args.token_budget
    study = BbqStudy(args.model, items, answers=args.answers, normalization=args.normalization,
                     chunk_size=args.chunk_size, model_options=options)
    distributed = args.workers is not None or args.scheduler is not None
    if len(items) > LONG_BBQ_ITEMS and not distributed:  # size and a measured estimate before minutes of scoring
        print(f"embias bbq: {bbq_estimate(study)}", file=sys.stderr)
    scores = study.item_scores(results_dir=args.results_dir, fresh=args.fresh, scheduler=args.scheduler,
                               workers=args.workers, progress=progress_default(args.progress),
                               connect_timeout=args.timeout)
    if args.items_out:
        from ..stimuli.spreadsheet_safe import tsv_text

        frame = scores.frame()
        Path(args.items_out).expanduser().write_text(tsv_text(list(frame.columns), frame.itertuples(index=False)),
                                                     encoding="utf-8")
    result, record = _record(study, scores, args)
    return _write(result, record, args, out)


def _record(study: Any, scores: Any, args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    from ..analysis.bbq import BbqResult
    from ..models.language_models.multiple_choice import BBQ_PROMPT, TARGET_DELIMITER

    result = BbqResult.from_predictions(study.items, scores.predicted, scores.probabilities, model=study.model_name,
                                        convention=args.convention, level=args.level)
    record = result.to_dict()
    record["scoring"] = {"kind": scores.choices.kind, "answers": study.answers, "normalization": study.normalization,
                         "prompt": BBQ_PROMPT, "delimiter": TARGET_DELIMITER,
                         "score": ("sum of the answer's token log-probabilities" if scores.choices.kind == "causal"
                                   else "PLL of the answer's tokens in context"),
                         "seconds": study.seconds, "notes": list(study.notes)}
    return result, record


def _write(result: Any, record: dict[str, Any], args: argparse.Namespace, out: Any) -> int:
    if args.format == "json":
        json.dump(record, out, indent=1)
        out.write("\n")
        return 0
    if args.format == "tsv":
        from ..stimuli.spreadsheet_safe import tsv_text

        frame = result.frame()
        out.write(tsv_text(list(frame.columns), frame.itertuples(index=False)))
        return 0
    from .tables import print_table

    out.write(f"model {record['model']}  items {record['n_items']:,}  answers {args.answers}  normalization "
              f"{args.normalization}  convention {args.convention}\n")
    out.write("bias score x100 (0 = unbiased; ambig: s_AMB, disambig: s_DIS); accuracy 0-1\n")
    print_table(record["cells"], CELL_COLUMNS, out)
    method = next((c["bias_score_interval"]["method"] for c in record["cells"] if c.get("bias_score_interval")), "")
    if method:
        out.write(f"intervals ({args.level:g}): {method}\n")
    for note in [*record.get("notes", []), *record["scoring"]["notes"]]:
        out.write(f"note: {note}\n")
    return 0
