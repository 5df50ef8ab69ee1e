"""``embias pll``: likelihood bias tests for masked and causal LMs (CrowS-Pairs, StereoSet, SSSB).

    embias pll --model NAME_OR_PATH --pairs FILE [--format table|json] [--metric cps|pll|pll-word-l2r|aul|aula]
               [--limit N] [--level L] [--format-in crows|stereoset|sssb|pairs] [--convention crows|zhou] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..formatting import format_value
from .estimates import LONG_PLL_PAIRS, pll_estimate, progress_default
from .options import add_lm_run_options, add_progress_option, device_options
from .tables import print_table


def add_pll(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pll", help="likelihood bias tests for masked/causal LMs (CrowS-Pairs, StereoSet, SSSB)",
                       description="Score pairs of a more and a less stereotypical sentence with a language "
                       "model (CPS, PLL, AUL or AULA) and report the pair bias score per bias type and, for "
                       "CrowS-Pairs, per direction as its metric.py does.")
    p.add_argument("--model", required=True, metavar="NAME_OR_PATH",
                   help="registered name (embias-demo-mlm), hub name or local model directory")
    p.add_argument("--pairs", required=True, metavar="FILE",
                   help="CrowS-Pairs .csv (path or URL), StereoSet .json/.jsonl, SSSB .txt, the likelihood "
                   "table's \"Pairs JSON\" export (a .json array), or 'sample' (ten bundled pairs, offline)")
    p.add_argument("--format-in", choices=("crows", "stereoset", "sssb", "pairs"), default=None,
                   help="format of FILE (default: from its extension)")
    from ..models.language_models.scoring import MASKED_METRICS

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
    p.add_argument("--level", type=float, default=0.95, metavar="L",
                   help="level of every interval (default 0.95): Wilson for the pair scores (the published score, "
                   "where a tie counts in n and not as stereotypical, and the share of decided pairs), target "
                   "bootstrap (seed 0) for StereoSet's SS, LMS and ICAT")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table for reading, or json with every pair's scores")
    add_lm_run_options(p)
    p.add_argument("--cache-dir", default=None,
                   help="where a downloaded pairs file is kept (default: $EMBIAS_CACHE or ~/.cache/embias-widgets)")
    add_progress_option(p)
    p.set_defaults(run=_run_pll)


def _run_pll(args: argparse.Namespace, out: Any) -> int:
    from ..models.names import require_models_extra

    require_models_extra("embias pll (language models run on torch)")  # the base install: say so, not a bug
    from ..models.runtime import cpu_threads, torch_threads

    with torch_threads(cpu_threads(args.threads)):  # restored after: main() may run inside another program
        return _score_pairs(args, out)


def _score_pairs(args: argparse.Namespace, out: Any) -> int:
    from ..analysis.likelihood import PairedLikelihood
    from ..analysis.likelihood.pair_input import is_pairs_json, read_pairs_json
    from ..metrics.score_intervals import check_level
    from ..stimuli.pairs import guess_format, read_pairs
    from ..stimuli.pairs.download import is_url
    from ..stimuli.pairs.sample import resolve_pairs_source

    check_level(args.level)  # before any scoring
    args.pairs = resolve_pairs_source(args.pairs)  # "sample": the bundled pairs, offline
    if not is_url(args.pairs) and not Path(args.pairs).expanduser().exists():  # missing, before its format
        raise FileNotFoundError(f"no pairs file at {Path(args.pairs).expanduser()}: give the path of an existing "
                                "file, a URL, or 'sample'")
    fmt = args.format_in or guess_format(args.pairs)
    if fmt == "pairs" or (fmt == "stereoset" and not args.format_in and is_pairs_json(args.pairs)):
        fmt, pairs = "pairs", read_pairs_json(args.pairs, limit=args.limit)  # the table's "Pairs JSON" export
    else:
        try:
            pairs = read_pairs(args.pairs, format_in=fmt, limit=args.limit, cache_dir=args.cache_dir)
        except ConnectionError as err:
            raise ValueError(str(err)) from None
    metric = args.metric or ("aul" if fmt == "sssb" else "cps")
    study = PairedLikelihood(pairs, model=args.model, metric=metric, convention=args.convention,
                             decimals=_decimals(args.decimals), token_budget=args.token_budget,
                             progress=progress_default(args.progress), **device_options(args))
    if len(study.pairs) > LONG_PLL_PAIRS:  # size and a measured estimate before minutes of scoring
        print(f"embias pll: {pll_estimate(study)}", file=sys.stderr)
    result = study.run()
    if result.bias is None:
        first = next((r for r in result.rows if r.error), None)
        why = f"; the first: {first.pair.source or first.pair.stereo[:40]!r}: {first.error}" if first else ""
        raise ValueError(f"no pair in {args.pairs} could be scored ({len(result.rows)} tried){why}")
    record = result.to_dict(naming="crows" if fmt == "crows" else "stereo", level=args.level)
    if fmt == "sssb":  # every line's key, also of lines left without a partner
        from ..analysis.likelihood import sense_key_problems
        from ..stimuli.pairs import read_sssb

        record["sense_key_problems"] = sense_key_problems(read_sssb(args.pairs))
    if args.format == "json":
        json.dump(record, out, indent=2)
        out.write("\n")
        return 0
    out.write(result.summary(level=args.level) + "\n")
    columns = ("score", "score_interval", "percent_of_decided", "percent_of_decided_interval", "p_value", "n",
               "n_ties")
    rows = [{"bias_type": k, **v} for k, v in record["by_bias_type"].items()]
    print_table(rows, ("bias_type", *columns), out)
    if len(record["by_direction"]) > 1:
        out.write("per direction; percent_of_decided is CrowS-Pairs metric.py's sub-score (successes over the "
                  "direction's non-tied pairs):\n")
        rows = [{"direction": k, **v} for k, v in record["by_direction"].items()]
        print_table(rows, ("direction", *columns), out)
    out.write(methods_line(args.level, record["score_interval"]["method"], record["p_value_method"]))
    if record["percent_of_decided_interval"]:
        out.write(f"percent_of_decided_interval: {record['percent_of_decided_interval']['method']}\n")
    if record.get("by_sense_key"):
        means = {m["sense_key"]: m for m in record["sense_means"]}
        rows = [{"sense_key": k, **v, "mean_stereo": means[k]["mean_stereo"], "mean_anti": means[k]["mean_anti"]}
                for k, v in record["by_sense_key"].items()]
        print_table(rows, ("sense_key", "score", "n", "mean_stereo", "mean_anti"), out)
    for problem in record.get("sense_key_problems", []):
        out.write(f"warning: {problem}\n")
    for name, values in (record.get("stereoset") or {}).get("by_bias_type", {}).items():
        out.write(f"stereoset [{name}]: " + "  ".join(
            f"{k.upper()} {format_value(values[k], 'percent')} {format_value(values[k + '_interval'], 'percent')}"
            for k in ("ss", "lms", "icat")) + "\n")
    if record.get("stereoset") and record["stereoset"]["ss_interval"]:
        for name in ("ss", "icat"):  # LMS is resampled as SS is
            out.write(f"stereoset {name} interval ({args.level:g}): "
                      f"{record['stereoset'][name + '_interval']['method']}\n")
    for note in [record.get("demo_note"), *record["notes"]]:
        if note:
            out.write(f"note: {note}\n")
    return 0


def methods_line(level: float, interval: str, p_value: str) -> str:
    """``interval (0.95): ...; p_value: ...``, a clause both methods end with (how a tie counts) said once, after
    both, rather than twice."""
    a, b = interval.split("; "), p_value.split("; ")
    shared = 0
    while shared < min(len(a), len(b)) - 1 and a[-1 - shared] == b[-1 - shared]:
        shared += 1
    both = "; ".join(a[len(a) - shared:])
    line = f"interval ({level:g}): {'; '.join(a[:len(a) - shared])}; p_value: {'; '.join(b[:len(b) - shared])}"
    return line + (f"; for both: {both}" if shared else "") + "\n"


def _decimals(text: str) -> int | str | None:
    if text in ("auto", "none"):
        return None if text == "none" else "auto"
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--decimals must be auto, none or a whole number from 0 to 15, got {text!r}") from None
