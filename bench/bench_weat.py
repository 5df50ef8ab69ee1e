"""WEAT permutation test: our vectorised core vs a plain per-split Python loop
(the way sent-bias's `p_val_permutation_test` and Caliskan's code do it), in
the same process, on the same per-word associations.

    python bench/bench_weat.py            # prints a table; --json for machine output

Cases: 25+25 targets with 100,000 sampled splits; 8+8 targets exact
(12,870 splits); and the kernel-side latency from one edited word to new d
and p on GloVe 6B 50d (weat1 sampled, weat6 exact).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np

from embias_widgets.analysis import AssociationTest
from embias_widgets.metrics import permutation_test


def loop_reference(s: np.ndarray, n_x: int, n_samples: int, seed: int) -> float:
    """One Python iteration per split, as the reference implementations do."""
    idx = np.arange(s.size)
    observed = s[:n_x].sum() - s[n_x:].sum()
    n_splits = 1
    for k in range(n_x):
        n_splits = n_splits * (s.size - k) // (k + 1)
    rng = np.random.default_rng(seed)
    if n_splits <= n_samples:
        hits = total = 0
        for xi in itertools.combinations(idx, n_x):
            mask = np.zeros(s.size, dtype=bool)
            mask[list(xi)] = True
            si = s[mask].sum() - s[~mask].sum()
            hits += si >= observed - abs(observed) * 1e-14
            total += 1
        return hits / total
    hits = 1
    for _ in range(n_samples - 1):
        rng.shuffle(idx)
        si = s[idx[:n_x]].sum() - s[idx[n_x:]].sum()
        hits += si >= observed - abs(observed) * 1e-14
    return hits / n_samples


def best_of(fn, repeat: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def permutation_cases(repeat: int) -> list[dict]:
    rows = []
    for name, n, n_samples in (("25+25 sampled 100,000", 25, 100_000), ("8+8 exact 12,870", 8, 100_000)):
        s = np.random.default_rng(0).normal(size=2 * n) + np.r_[np.full(n, 0.2), np.zeros(n)]
        t_ours, ours = best_of(lambda s=s, n=n, m=n_samples: permutation_test(s, n, n_samples=m, rng=1), repeat)
        t_ref, p_ref = best_of(lambda s=s, n=n, m=n_samples: loop_reference(s, n, m, seed=1), 1)
        rows.append({"case": name, "ours_s": t_ours, "loop_s": t_ref, "speedup": t_ref / t_ours,
                     "p_ours": ours.pvalue, "p_loop": p_ref, "exact": ours.exact})
    return rows


def edit_latency(repeat: int) -> list[dict]:
    rows = []
    for test, extra in (("weat1", ["sunflower", "lotus", "jasmine", "orchids", "lavender"]),
                        ("weat6", ["Tom", "Mark", "Dan", "Bob", "Ed"])):
        at = AssociationTest(test)
        at.run()
        times = []
        for word in extra[:repeat]:
            at.set_items("targ1", [*at.spec.targ1.examples[:-1], word])  # edit one word, sizes unchanged
            t0 = time.perf_counter()
            at.set_items("targ1", at.spec.targ1.examples)
            res = at.run()
            times.append(time.perf_counter() - t0)
        rows.append({"case": f"edit one word, {test} ({res.core.method}, {res.core.n_permutations:,} splits)",
                     "median_ms": 1000 * float(np.median(times)), "max_ms": 1000 * max(times)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    perm, edits = permutation_cases(args.repeat), edit_latency(args.repeat)
    if args.json:
        print(json.dumps({"permutation": perm, "edit": edits}, indent=2))
        return
    print(f"{'case':28} {'ours':>9} {'loop':>9} {'speedup':>8} {'p ours':>9} {'p loop':>9}")
    for r in perm:
        print(f"{r['case']:28} {r['ours_s']*1000:7.1f}ms {r['loop_s']:8.2f}s {r['speedup']:7.0f}x "
              f"{r['p_ours']:9.5f} {r['p_loop']:9.5f}")
    for r in edits:
        print(f"{r['case']:52} median {r['median_ms']:6.1f} ms, max {r['max_ms']:6.1f} ms")


if __name__ == "__main__":
    main()
