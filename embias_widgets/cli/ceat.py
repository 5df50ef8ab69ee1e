"""``embias ceat``: CEAT, the Contextualized Embedding Association Test (Guo & Caliskan 2021).

    embias ceat [--test weat6|ceat11..ceat14|FILE.jsonl] [--model NAME_OR_PATH] [--contexts FILE|templates|wordnet]
                [--samples N] [--resamples R] [--seed S] [--level L] [--format table|json]

The headline is the mean of the N samples' effect sizes with a two-stage bootstrap interval over words and
contexts and a permutation p; Guo & Caliskan's random-effects numbers follow, labelled as a reproduction.
The sizes (words, contexts, samples) are printed on stderr before the encoder runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .options import add_device_options, device_options
from .tables import print_table

_DEFAULT_SAMPLES = 10_000  # the paper's N (analysis.ceat.DEFAULT_SAMPLES; not imported here: no torch at parse time)
_DEFAULT_RESAMPLES = 1_000  # metrics.ceat_inference.DEFAULT_CEAT_RESAMPLES


def add_ceat(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ceat", help="CEAT (Guo & Caliskan 2021): WEAT over many contexts per word",
                       description="Run CEAT on a sentence encoder or masked LM: each word's contextual vectors come "
                       "from sentences holding it; N samples draw one context per word. The effect size is the mean "
                       "of the N samples' d, with a two-stage bootstrap interval over words and contexts and a "
                       "permutation p; Guo & Caliskan's random-effects combination is shown as a reproduction.")
    p.add_argument("--test", default="weat6", metavar="TEST",
                   help="bundled WEAT test (weat1 .. weat10, ...), the paper's intersectional tests ceat11 .. ceat14, "
                   "or a sent-bias .jsonl file")
    p.add_argument("--model", default="all-MiniLM-L6-v2", metavar="NAME_OR_PATH",
                   help="sentence encoder or masked LM: a registered name (all-MiniLM-L6-v2, embias-demo-mlm), a "
                   "model directory or a hub name")
    p.add_argument("--contexts", default="templates", metavar="FILE|SOURCE",
                   help="a UTF-8 text file, one sentence per line (a sentence is used for each test word it holds "
                   "as a whole word), or a bundled source: templates (SEAT's bleached templates), wordnet "
                   "(WordNet 3.0 glosses and examples), templates+wordnet")
    p.add_argument("--ignore-case", action="store_true",
                   help="match test words in the sentences ignoring case (default: as written, as the authors do)")
    p.add_argument("--samples", dest="n_samples", type=int, default=_DEFAULT_SAMPLES, metavar="N",
                   help="samples of one context per word, 1 to 1,000,000 (the paper's 10,000: about 1 s of sampling "
                   "and resampling at weat6's size with the template contexts, after the sentences are encoded once)")
    p.add_argument("--resamples", dest="n_resamples", type=int, default=_DEFAULT_RESAMPLES, metavar="R",
                   help="bootstrap replicates of the effect size's interval (each resamples words and contexts and "
                   "draws 100 samples)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the samples (same seed, same numbers)")
    p.add_argument("--level", type=float, default=0.95, metavar="L",
                   help="level of the effect size's interval")
    p.add_argument("--subwords", choices=("mean", "last"), default="mean",
                   help="a word's vector: mean of its tokens' last-layer vectors, or its last token (the authors')")
    p.add_argument("--missing", choices=("drop", "error"), default="drop",
                   help="a word no sentence holds: left out with a note (as the authors do), or an error")
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table for reading; json with every sample's effect size and variance (an undefined number "
                   "is null)")
    add_device_options(p)
    p.set_defaults(run=_run_ceat)


def _run_ceat(args: argparse.Namespace, out: Any) -> int:
    from ..analysis.ceat import ContextualAssociationTest
    from ..metrics.ceat import check_n_samples

    if not 0 < args.level < 1:
        raise ValueError(f"`level` must be a number strictly between 0 and 1 (e.g. 0.95), got {args.level}")
    check_n_samples(args.n_samples)  # before the model loads: --samples 1000000000 is refused here
    if args.n_resamples < 1:
        raise ValueError(f"`n_resamples` must be a whole number of at least 1 (e.g. 1000), got {args.n_resamples}")
    study = ContextualAssociationTest(args.test, model=args.model, contexts=args.contexts,
                                      case_sensitive=not args.ignore_case, subwords=args.subwords,
                                      missing=args.missing, **device_options(args))
    contexts = study.contexts()
    n_contexts = sum(contexts.count(w) for w in study.words())
    print(f"embias ceat: {study.spec.name}: {len(study.words())} words, {n_contexts:,} contexts "
          f"({contexts.source}), N = {args.n_samples:,} samples on {getattr(study.model, 'name', args.model)}",
          file=sys.stderr)
    result = study.run(args.n_samples, seed=args.seed, level=args.level, n_resamples=args.n_resamples)
    if args.format == "json":
        json.dump(result.to_dict(), out, indent=2, allow_nan=False)  # to_dict writes null for undefined numbers
        out.write("\n")
        return 0
    data = result.to_dict()
    paper = data["guo_caliskan_random_effects"]
    row = {**data, "paper_combined_effect_size": paper["combined_effect_size"], "paper_i_squared": paper["i_squared"]}
    print_table([row], ("test", "model", "effect_size", "effect_size_interval", "p_value", "n",
                        "paper_combined_effect_size", "paper_i_squared"), out)
    out.write(f"{result.summary()}\n")
    for note in result.notes:
        out.write(f"note: {note}\n")
    return 0
