"""``embias nli``: the NLI bias probes of Dev et al. (2020) from the command line.

    embias nli (--probe NAME | --pairs FILE.csv) [--model M] [--format table|json] [--per-pair]
               [--scheduler tcp://host:8786 | --workers N] [--limit N] [--chunk-size N]
               [--results-dir DIR [--fresh]] [--style authors|paper] [--tau T ...] [--top-k K]
               [--output FILE.csv] [--timeout S] [--level L] [--by-template]

Prints a table, or with ``--format json`` one JSON object: ``model``, ``n_pairs``, and ``pairs`` (over sentence
pairs) and ``word_pairs`` (over word pairs after averaging each over its
templates), each with ``net_neutral``, ``fraction_neutral`` and
``threshold_<tau>``; ``--per-pair`` adds ``per_pair`` rows with
``entailment``, ``neutral``, ``contradiction``. Every number is the result's
(:meth:`~embias_widgets.analysis.nli.NliProbeResult.to_dict`). Kept in its own module;
the ``embias`` entry point (:mod:`embias_widgets.cli`) adds it with :func:`add_nli`
(this module never imports :mod:`embias_widgets.cli.entry`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..formatting import format_value
from ..metrics.neutrality import DEFAULT_TAUS
from .estimates import CHUNK_SECONDS, MEASURED_NLI_PAIRS, cpu_chunk, nli_estimate, nli_rate, nli_size, progress_default
from .options import add_device_options, device_options


def add_nli(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("nli", help="NLI bias probes (Dev et al. 2020): net neutral, fraction neutral, threshold",
                       description="Score template sentence pairs that should all be neutral with an NLI model; "
                       "deviation from neutral is bias (Dev, Li, Phillips & Srikumar 2020).")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--probe", metavar="NAME",
                     help="gender-occupation, gender-occupation-authors, nationality-polarity, religion-polarity")
    src.add_argument("--pairs", metavar="FILE.csv",
                     help="pairs in the authors' CSV layout (id, pair type, premise_filler_word, "
                     "hypothesis_filler_word, template_type, premise, hypothesis)")
    p.add_argument("--model", default="embias-demo-nli", metavar="NAME_OR_PATH",
                   help="registered NLI model (default embias-demo-nli, a DEMO), hub name or directory of an "
                   "AutoModelForSequenceClassification NLI model")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table for reading (as weat and pll), or json: one object with every measure")
    p.add_argument("--per-pair", action="store_true", help="add per-pair entailment/neutral/contradiction rows")
    p.add_argument("--output", metavar="FILE.csv",
                   help="also write every pair with its (e, n, c) to this CSV (the authors' columns + 3), streamed")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on this Dask scheduler")
    where.add_argument("--workers", type=int, metavar="N", help="run on a local Dask cluster of N processes")
    p.add_argument("--limit", type=int, metavar="N", help="score only the first N pairs")
    p.add_argument("--chunk-size", type=int, default=None, metavar="N",
                   help=f"pairs per chunk (default: about {CHUNK_SECONDS:g} s of work at the measured rate for a "
                   "local run on the CPU, so progress shows within seconds; 4096 on CUDA, on a Dask cluster and "
                   "with --results-dir)")
    p.add_argument("--results-dir", metavar="DIR",
                   help="write each finished chunk here; a re-run of the very same run (same pairs content, "
                   "model files and options) resumes, anything else is refused")
    p.add_argument("--fresh", action="store_true",
                   help="with --results-dir: delete the chunks already there and start over")
    p.add_argument("--style", choices=("authors", "paper"), default="authors",
                   help="sentences of --probe: 'A driver bought a phone .' (authors' generator, default) or "
                   "'The driver bought a phone.' (paper)")
    p.add_argument("--tau", type=float, action="append", metavar="T",
                   help=f"threshold of T:tau (repeatable; default {' '.join(str(t) for t in DEFAULT_TAUS)})")
    p.add_argument("--top-k", type=int, default=10, metavar="K", help="top pairs by entailment/contradiction")
    p.add_argument("--level", type=float, default=0.95, metavar="L",
                   help="level of the intervals (default 0.95): a two-way bootstrap over templates and word pairs "
                   "(2,000 replicates, seed 0) for NN, FN and T:tau at both levels")
    p.add_argument("--by-template", action="store_true",
                   help="NN and FN per template, the most and least neutral templates (keeps per-pair rows in "
                   "memory: 24 bytes a pair)")
    add_device_options(p)
    p.add_argument("--timeout", type=float, default=5.0, metavar="S",
                   help="seconds to wait for a --scheduler to answer (default 5)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: on when stderr is a terminal)")
    p.set_defaults(run=run_nli)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def _iv_nli_args(args: argparse.Namespace) -> None:
    """Options the parser cannot check alone, each error naming its flag."""
    import math

    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        raise ValueError(f"--timeout must be a positive number of seconds (e.g. --timeout 5), got {args.timeout:g}")
    if args.fresh and not args.results_dir:
        raise ValueError("--fresh starts a --results-dir over: give --results-dir DIR with it")


def _local_cpu(args: argparse.Namespace, probe: Any) -> bool:
    """A run in this process on the CPU that resumes nothing (its chunks' size is free to choose)."""
    if args.results_dir or args.scheduler or args.workers or str(args.device or "").startswith("cuda"):
        return False
    return not str(getattr(probe.model, "device", "cpu")).startswith("cuda")


def _levels_table(obj: dict[str, Any], level: float, out: Any) -> None:
    """Both levels, each measure with its interval at ``level`` (``[low, high]``)."""
    measures = [m for m in obj["pairs"] if m != "n" and not m.endswith("_interval")]
    out.write("level        " + "  ".join(f"{m:>22}" for m in measures) + "\n")
    for name in ("pairs", "word_pairs"):
        cells = []
        for m in measures:  # means and shares, never counts: 0.000 beside 0.052 and [0.000, 0.013]
            iv = obj[name][f"{m}_interval"]
            bounds = "" if iv is None else f" {format_value(iv)}"
            cells.append(f"{format_value(obj[name][m], whole_as_count=False)}{bounds}".rjust(22))
        out.write(f"{name:<12} " + "  ".join(cells) + "\n")
    iv = obj["pairs"].get("net_neutral_interval")
    what = iv["method"] if iv else "none (fewer than 2 word pairs)"
    out.write(f"intervals ({level:g}): {what}; pairs: the measures over sentence pairs, word_pairs: over the word "
              "pairs' template means\n")


def _templates_table(t: dict[str, Any], out: Any) -> None:
    """NN and FN per template, most and least neutral named."""
    most, least = t["most_neutral"], t["least_neutral"]
    shown = (("most", most["net_neutral"]), ("least", least["net_neutral"]), ("spread", t["spread"]))
    nn = {k: format_value(v, whole_as_count=False) for k, v in shown}
    out.write(f"per template ({t['n_templates']}): most neutral {most['template']!r} (NN {nn['most']}), least "
              f"neutral {least['template']!r} (NN {nn['least']}), spread {nn['spread']}\n")
    rows = sorted(t["rows"], key=lambda r: -r["net_neutral"])
    if len(rows) > 10:
        out.write("  (the 5 most and 5 least neutral; every template in --format json)\n")
        rows = rows[:5] + rows[-5:]
    out.write("  NN      FN      n       template\n")
    for row in rows:  # NN and FN are a mean and a share: 1.000 and 0.000, never the counts 1 and 0
        nn, fn = (format_value(row[k], whole_as_count=False) for k in ("net_neutral", "fraction_neutral"))
        out.write(f"  {nn:<6}  {fn:<6}  {row['n']:<6}  {row['template']}\n")


def run_nli(args: argparse.Namespace, out: Any) -> int:
    from ..analysis.nli import NliProbe
    from ..stimuli.nli_probes import CsvPairs, load_probe

    _iv_nli_args(args)
    from ..metrics.score_intervals import check_level

    check_level(args.level)  # before any scoring
    source = load_probe(args.probe, style=args.style) if args.probe else CsvPairs(args.pairs)
    progress = progress_default(args.progress)  # on at a terminal (the loaders keep transformers' own bars off)
    options = device_options(args)
    taus = tuple(args.tau) if args.tau else DEFAULT_TAUS
    try:
        chunk = 4096 if args.chunk_size is None else args.chunk_size  # a given 0 is refused, never taken as unset
        probe = NliProbe(source, args.model, taus=taus, chunk_size=chunk, top_k=args.top_k,
                         limit=args.limit, model_options=options)
        rate = None
        if probe.n_pairs > MEASURED_NLI_PAIRS:  # the size at once, then a measured estimate, before scoring
            print(f"embias nli: {nli_size(probe)}; loading the model and timing the first pairs", file=sys.stderr,
                  flush=True)
            rate = nli_rate(probe)
            print(f"embias nli: {nli_estimate(probe, args.workers, rate)}", file=sys.stderr, flush=True)
        if args.chunk_size is None and _local_cpu(args, probe):
            probe.chunk_size = cpu_chunk(rate and rate[0])  # the progress bar moves every few seconds
        result = probe.run(scheduler=args.scheduler, workers=args.workers, results_dir=args.results_dir,
                           per_pair=args.per_pair or bool(args.output) or args.by_template,
                           progress=progress,
                           connect_timeout=args.timeout, fresh=args.fresh)
    except TypeError as err:  # e.g. a model that is not a sequence classifier
        raise ValueError(str(err)) from err
    if args.output:
        result.write_pairs_csv(args.output)
    obj = result.to_dict(level=args.level)
    if args.per_pair:
        table = result.pairs_table()
        keep = ["id", "premise_word", "hypothesis_word", "premise", "hypothesis", "entailment", "neutral",
                "contradiction"]
        obj["per_pair"] = table[keep].to_dict("records")
    if args.format == "json":
        json.dump(_jsonable(obj), out, indent=1)
        out.write("\n")
        return 0
    out.write(f"model {obj['model']}  probe {obj['probe']}  pairs {obj['n_pairs']:,}  word pairs "
              f"{obj['n_word_pairs']:,}  templates {obj['n_templates']:,}\n")
    for note in obj.get("notes", []):  # a subset, re-scored chunks: the table says so, as the JSON does
        out.write(f"note: {note}\n")
    if "note" in obj:
        out.write(f"note: {obj['note']}\n")
    _levels_table(obj, args.level, out)
    if obj.get("templates"):
        _templates_table(obj["templates"], out)
    if args.per_pair:
        for row in obj["per_pair"]:
            out.write(f"{row['entailment']:.4f} {row['neutral']:.4f} {row['contradiction']:.4f}  "
                      f"{row['premise']} / {row['hypothesis']}\n")
    return 0
