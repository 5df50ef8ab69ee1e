"""What the honest intervals of pair scores, StereoSet and NLI cost, against the intervals they replace, timed in
one process (so the ratios hold whatever the machine's load; the absolute times do not).

- StereoSet at the intrasentence dev set's size (2,106 items over 79 targets): the target bootstrap with its
  ICAT rule (2,000 replicates) against the item bootstrap it replaces.
- NLI at the full gender x occupation probe's shape (164 x 6 word pairs x 1,968 templates = 1,936,512 simulated
  pairs, reduced chunk by chunk as a run does): the per-chunk reduction with and without the per-template sums,
  the merge of every chunk, and the two-way bootstrap (2,000 replicates) against the t / Wilson intervals.
- Pair scores at CrowS-Pairs' size (1,508 pairs): the sign test and both Wilson intervals against the binomial
  test of k of n and one Wilson interval.

    PYTHONPATH=$PWD python bench/bench_honest_intervals.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from timing import best

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.calibration.check_nli import _old as old_nli_intervals
from bench.calibration.check_stereoset import draw_items, item_bootstrap
from embias_widgets.metrics.likelihood import pair_bias_score, stereoset_from_comparisons
from embias_widgets.metrics.likelihood.pair_intervals import pair_score_test
from embias_widgets.metrics.neutrality import NeutralityStats
from embias_widgets.metrics.score_intervals import binomial_p_value, wilson_interval


def stereoset(repeat: int) -> None:
    rng = np.random.default_rng(0)
    sa, su, au, t = draw_items(rng, 79, 0.6, 0.85, 8.0)
    labels = [f"t{i}" for i in t]
    sw, rw = sa.astype(float), (su.astype(float) + au) / 2

    def new() -> None:
        stereoset_from_comparisons(sa, su, au, targets=labels).intervals(n_resamples=2_000, seed=0)

    def old() -> None:
        item_bootstrap(sw, rw, t, np.random.default_rng(0), 2_000)

    a, b = best(new, repeat), best(old, repeat)
    print(f"StereoSet, {t.size:,} items over {t.max() + 1} targets, 2,000 replicates: target bootstrap "
          f"{a * 1e3:.0f} ms, item bootstrap {b * 1e3:.0f} ms (ratio {a / b:.2f})")


def nli(repeat: int, chunk: int = 4096) -> None:
    occupations, gendered, templates = 164, 6, 1_968
    words = [(f"o{p}", f"g{h}") for p in range(occupations) for h in range(gendered)]
    n_pairs = len(words) * templates
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 0.8, templates), rng.normal(0, 0.6, len(words))
    t_labels = np.array([f"verb a thing{i}" for i in range(templates)], dtype=object)

    def chunk_rows(start: int, stop: int):
        i = np.arange(start, stop)
        w, t = np.divmod(i, templates)  # the authors' order: word pair outer, template inner
        eta = 0.3 + a[t] + b[w] + rng.normal(0, 0.5, i.size)
        n = np.exp(eta) / (np.exp(eta) + 2)
        P = np.column_stack([(1 - n) / 2, n, (1 - n) / 2])
        return P, [words[k][0] for k in w], [words[k][1] for k in w], t_labels[t].tolist()

    ranges = [(s, min(s + chunk, n_pairs)) for s in range(0, n_pairs, chunk)]
    sample = [chunk_rows(*r) for r in ranges[:20]]
    with_t = best(lambda: [NeutralityStats.from_probs(P, p, h, templates=tl) for P, p, h, tl in sample], repeat)
    without = best(lambda: [NeutralityStats.from_probs(P, p, h) for P, p, h, _ in sample], repeat)
    print(f"NLI chunk reduction ({chunk:,} pairs a chunk, 20 chunks): with per-template sums {with_t * 1e3:.0f} ms, "
          f"without {without * 1e3:.0f} ms (ratio {with_t / without:.2f}; scoring a chunk on a GPU takes seconds)")
    t0 = time.perf_counter()
    parts = []
    for r in ranges:
        P, p, h, tl = chunk_rows(*r)
        parts.append(NeutralityStats.from_probs(P, p, h, templates=tl))
    build = time.perf_counter() - t0
    merged = best(lambda: NeutralityStats.combine(parts), 1)
    stats = NeutralityStats.combine(parts)
    print(f"NLI full probe shape: {stats.n_pairs:,} pairs, {stats.n_word_pairs} word pairs, "
          f"{len(stats.templates.keys):,} templates; {len(parts)} chunks reduced in {build:.1f} s (simulation "
          f"included), merged in {merged:.2f} s")
    new = best(lambda: stats.intervals(n_resamples=2_000, seed=0), repeat)
    old = best(lambda: old_nli_intervals(stats), repeat)
    ivs = stats.intervals()
    nn, old_nn = ivs["pairs"]["net_neutral"], old_nli_intervals(stats)["pairs_nn"]
    print(f"NLI intervals: two-way bootstrap (2,000 replicates, both levels, NN FN T:0.5 T:0.7) {new:.2f} s, "
          f"t / Wilson {old * 1e3:.1f} ms (ratio {new / old:.0f}); NN {stats.pair_level()['net_neutral']:.4f} "
          f"[{nn.low:.4f}, {nn.high:.4f}] against the old [{old_nn[0]:.4f}, {old_nn[1]:.4f}]")


def pairs(repeat: int) -> None:
    rng = np.random.default_rng(0)
    anti = rng.normal(-20, 3, 1_508)
    stereo = anti + rng.choice([-1.0, 0.0, 1.0], 1_508, p=[0.45, 0.1, 0.45])

    def new() -> None:
        bias = pair_bias_score(stereo, anti)
        pair_score_test(bias.n_stereo_preferred, bias.n, bias.n_ties)

    def old() -> None:
        bias = pair_bias_score(stereo, anti)
        binomial_p_value(bias.n_stereo_preferred, bias.n)
        wilson_interval(bias.n_stereo_preferred, bias.n)

    a, b = best(new, repeat * 10), best(old, repeat * 10)
    print(f"pair score, 1,508 pairs: sign test + both Wilson intervals {a * 1e3:.2f} ms, binomial of k of n + one "
          f"Wilson interval {b * 1e3:.2f} ms (ratio {a / b:.2f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    pairs(args.repeat)
    stereoset(args.repeat)
    nli(args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
