"""WEAT permutation test: our vectorised core vs sent-bias's own loop, in the
same process, on the same per-word associations.

    python bench/bench_weat.py            # prints a table; --json for machine output

The baseline is sent-bias's ``p_val_permutation_test`` (weat.py) as written:
one ``np.random.shuffle`` of an index array (the global RandomState) and one
``s_wAB_memo[Xi].sum()`` per sampled split, ``itertools.combinations`` when
exact. Cases: 25+25, 350+350 and the uneven 20+700 targets with 100,000
sampled splits (the default ``sampler="auto"``, the fastest exactly uniform
sampler for the sizes, beside each named sampler: "keys", the earlier default
(random sort keys per split), "bits" and "indices"), 8+8 exact (12,870 splits); then the
kernel-side latency from one edited word to new d and p on GloVe 6B 50d (weat1
sampled, weat6 exact). Times are medians of ``--repeat`` runs (wall clock and
this process's CPU time; the machine may be shared, so the load average is
printed too).

    python bench/bench_weat.py --sizes    # the samplers side by side over sizes (choose_sampler's crossovers)
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import math
import os
import time

import numpy as np

from embias_widgets.analysis import AssociationTest
from embias_widgets.metrics import permutation_test
from embias_widgets.metrics.samplers import INDEX_MIN_USABLE, choose_sampler, index_acceptance


def sent_bias_loop(memo: np.ndarray, size: int, n_samples: int, seed: int) -> float:
    """sent-bias's non-parametric p-value, as in its weat.py (one Python iteration per split)."""
    np.random.seed(seed)  # noqa: NPY002 - the reference uses the legacy global RandomState
    XY = np.arange(memo.size)
    X = XY[:size].copy()
    s = memo[X].sum()  # s_XAB(X, s_wAB_memo); the constant total makes it equivalent to s_XYAB
    total_true = total = 0
    if math.comb(memo.size, size) > n_samples:
        total_true += 1  # the hallucinated observed split
        total += 1
        for _ in range(n_samples - 1):
            np.random.shuffle(XY)  # noqa: NPY002
            Xi = XY[:size]
            si = memo[Xi].sum()
            if si >= s:
                total_true += 1
            total += 1
    else:
        for Xi in itertools.combinations(XY, size):
            si = memo[np.array(Xi, dtype=np.int64)].sum()
            if si >= s:
                total_true += 1
            total += 1
    return total_true / total


def timed(fn, repeat: int, warm_up: bool = False) -> tuple[float, float, object]:
    """Median wall and CPU seconds of ``repeat`` calls (after one untimed call with ``warm_up``), and the last
    result."""
    out, wall, cpu = fn() if warm_up else None, [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return float(np.median(wall)), float(np.median(cpu)), out


def permutation_cases(repeat: int, loop_repeat: int) -> list[dict]:
    rows: list[dict] = []
    params = inspect.signature(permutation_test).parameters
    named = ("auto", "keys", "bits", "indices") if "sampler" in params else (None,)  # older checkouts: none
    for n_x, n_y, n_samples in ((25, 25, 100_000), (350, 350, 100_000), (20, 700, 100_000), (8, 8, 100_000)):
        n = n_x + n_y
        s = np.random.default_rng(0).normal(size=n) * 0.1 + np.r_[np.full(n_x, 0.01), np.zeros(n_y)]
        loop_wall, loop_cpu, p_loop = timed(lambda s=s, k=n_x, m=n_samples: sent_bias_loop(s, k, m, seed=1),
                                            loop_repeat)
        usable = [s for s in named if s != "indices" or index_acceptance(n, n_x) >= INDEX_MIN_USABLE]
        for sampler in usable if math.comb(n, n_x) > n_samples else named[:1]:
            options = {} if sampler is None else {"sampler": sampler}
            wall, cpu, ours = timed(
                lambda s=s, k=n_x, m=n_samples, o=options: permutation_test(s, k, n_samples=m, rng=1, **o), repeat,
                warm_up=True,
            )
            se = math.sqrt(max(ours.pvalue * (1 - ours.pvalue), 1e-12) * 2 / n_samples)
            label = "default" if sampler in (None, "auto") else sampler
            if sampler == "auto":
                label += f" = {choose_sampler(n, n_x)}"
            kind = "exact" if ours.exact else f"{n_samples // 1000}k, {label}"
            rows.append({
                "case": f"{n_x}+{n_y} {kind}", "ours_ms": wall * 1000, "ours_cpu_ms": cpu * 1000,
                "loop_ms": loop_wall * 1000, "loop_cpu_ms": loop_cpu * 1000,
                "speedup": loop_wall / wall, "speedup_cpu": loop_cpu / cpu,
                "p_ours": ours.pvalue, "p_loop": p_loop, "p_diff_in_se": abs(ours.pvalue - p_loop) / se,
                "exact": ours.exact,
            })
    return rows


def sampler_sizes(repeat: int) -> None:
    """Each sampler's time for 100,000 splits over sizes, and what ``"auto"`` picks (its crossovers)."""
    from embias_widgets.metrics.samplers import split_sums

    print(f"{'n_x+n_y':>9} {'keys':>9} {'bits':>9} {'indices':>9}  auto    (ms, min of {repeat})")
    for n, share in itertools.product((50, 200, 700), (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)):
        k = max(1, round(n * share))
        values = np.random.default_rng(n).normal(size=n)
        cells = []
        for sampler in ("keys", "bits", "indices"):
            if sampler == "indices" and index_acceptance(n, k) < 0.05:  # hours: every draw repeats an index
                cells.append(f"{'-':>9}")
                continue
            best = min(timed(lambda v=values, k=k, s=sampler: split_sums(v, k, 99_999, np.random.default_rng(0), s),
                             1)[0] for _ in range(repeat))
            cells.append(f"{best * 1000:9.1f}")
        print(f"{f'{k}+{n - k}':>9} {' '.join(cells)}  {choose_sampler(n, k)}", flush=True)


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
    parser.add_argument("--loop-repeat", type=int, default=3, help="runs of the (slow) sent-bias loop per case")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sizes", action="store_true", help="only the samplers side by side over sizes")
    args = parser.parse_args()
    if args.sizes:
        sampler_sizes(args.repeat)
        return
    load = os.getloadavg()
    perm, edits = permutation_cases(args.repeat, args.loop_repeat), edit_latency(args.repeat)
    if args.json:
        print(json.dumps({"load_average": load, "permutation": perm, "edit": edits}, indent=2))
        return
    print(f"load average {load[0]:.2f} at start, {os.getloadavg()[0]:.2f} at end, {os.cpu_count()} CPUs; "
          "medians; baseline: sent-bias's shuffle-and-sum loop")
    print(f"{'case':32} {'ours':>9} {'loop':>9} {'ratio':>6} {'CPU ratio':>9} "
          f"{'p ours':>8} {'p loop':>8} {'|dp|/se':>7}")
    for r in perm:
        print(f"{r['case']:32} {r['ours_ms']:7.1f}ms {r['loop_ms']:7.0f}ms {r['speedup']:5.1f}x "
              f"{r['speedup_cpu']:8.1f}x {r['p_ours']:8.5f} {r['p_loop']:8.5f} {r['p_diff_in_se']:7.2f}")
    for r in edits:
        print(f"{r['case']:52} median {r['median_ms']:6.1f} ms, max {r['max_ms']:6.1f} ms")


if __name__ == "__main__":
    main()
