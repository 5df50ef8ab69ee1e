"""The cost of CEAT's headline test and RIPA's bias-corrected interval against what they replace, in the same
process, on synthetic vectors of the real sizes.

    python bench/bench_ceat_ripa_intervals.py          # prints a table; --json for machine output

- CEAT: ``ceat_test`` (N samples, 1,000 two-stage bootstrap replicates of 100 samples, the permutation test)
  against ``ceat_samples`` + ``random_effects`` (the paper's combination, all it computed before), at weat6's
  size with the template contexts (8 words a set, 7-8 contexts a word, 384 dimensions: all-MiniLM-L6-v2) and at
  ceat11's (12 + 12 names, 13 + 13 attribute words) with 50 contexts a word.
- RIPA: ``ripa_intervals`` (bias-corrected) against the percentile interval of the same replicates, which is
  what it computed before: 1,000 replicates, 10 and 30 pairs, 300 dimensions, 100 words.

Times are the minimum of ``--repeat`` runs (BLAS threads as the environment sets them; the machine may be
shared, so the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np
from timing import best

from embias_widgets.metrics import ceat_samples, ceat_test, random_effects
from embias_widgets.metrics.relation_intervals import ripa_intervals
from embias_widgets.metrics.score_intervals import percentile_interval


def _ceat_sets(rng: np.random.Generator, sizes: tuple[int, ...], contexts: tuple[int, int], dim: int) -> list:
    return [[rng.normal(size=(int(rng.integers(contexts[0], contexts[1] + 1)), dim)) + (0.1 if k % 2 else 0.0)
             for _ in range(n)] for k, n in enumerate(sizes)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for name, sizes, contexts in (("weat6 size, 7-8 contexts a word", (8, 8, 8, 8), (7, 8)),
                                  ("ceat11 size, 50 contexts a word", (12, 12, 13, 13), (50, 50))):
        sets = _ceat_sets(rng, sizes, contexts, 384)

        def old(sets=sets):
            drawn = ceat_samples(*sets, n_samples=args.samples, rng=0)
            return random_effects(drawn.effect_sizes, drawn.variances)

        def new(sets=sets):
            return ceat_test(*sets, n_samples=args.samples, rng=0)

        old(), new()  # warm: scipy.stats imported, caches filled
        t_old, t_new = best(old, args.repeat), best(new, args.repeat)
        rows.append({"what": f"CEAT N = {args.samples:,}, {name}", "before_s": t_old, "after_s": t_new,
                     "ratio": t_new / t_old})
    for pairs in (10, 30):
        X, Y, W = rng.normal(size=(pairs, 300)), rng.normal(size=(pairs, 300)), rng.normal(size=(100, 300))

        def before(X=X, Y=Y, W=W):
            return percentile_interval(ripa_intervals(X, Y, W, n_resamples=1_000).replicates, axis=0)

        def after(X=X, Y=Y, W=W):
            return ripa_intervals(X, Y, W, n_resamples=1_000)

        after()
        t_old, t_new = best(before, args.repeat), best(after, args.repeat)
        rows.append({"what": f"RIPA 1,000 replicates, {pairs} pairs, 300 dims, 100 words", "before_s": t_old,
                     "after_s": t_new, "ratio": t_new / t_old})
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    if args.json:
        print(json.dumps({"load_average": load, "rows": rows}, indent=1))
        return
    print(f"load average {load:.1f}; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"{'what':60s} {'before':>9s} {'after':>9s} {'ratio':>6s}")
    for r in rows:
        print(f"{r['what']:60s} {r['before_s']:9.3f} {r['after_s']:9.3f} {r['ratio']:6.1f}")


if __name__ == "__main__":
    main()
