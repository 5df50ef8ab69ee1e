"""Word influence, subset stability and the interval of d: our vectorised result methods against
doing the same through the public API in a loop, in the same process, on GloVe 6B 50d.

    python bench/bench_robustness.py            # prints a table; --json for machine output

Cases: weat6 (8 + 8 names, 8 + 8 attribute words; every p exact) and 350 + 350 target words with 350 + 350
attribute words taken from GloVe's vocabulary (p from sampled splits: ours min(n_samples, 10,000) shared
splits, the loop 10,000 splits per run). Word influence draws the run's ``n_samples`` splits up to a budget of
2**23 indicator cells (:func:`embias_widgets.metrics.robustness.influence_samples`): all 10,000 here.

- influence: ``result.influence()`` (every word of every set left out, d and p) vs, per word,
  ``study.set_items(key, items without it)`` and ``study.run(confidence_interval=False)`` (the study's cache:
  nothing re-encoded);
- stability: ``result.stability(k=200)`` vs 200 loops of ``set_items`` on all four sets and ``run()``;
- interval: ``run()`` with and without its bootstrap intervals (2,000 resamples; BCa by default, and the
  percentile and targets-only options, in the same process);
- live edit (weat6): add one word, ``run()`` (interval included) and ``influence()``: what the WEAT explorer's
  influence view waits for after an edit (the target: under 300 ms).

At 350 + 350 the loop is timed on ``--loop-words`` words / subsets and scaled to all of them (said in the
table). Times are medians of ``--repeat`` runs; the machine may be shared, so the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from embias_widgets.analysis import AssociationTest
from embias_widgets.models import load_model

KEYS = ("targ1", "targ2", "attr1", "attr2")


CPU: dict[str, float] = {}


def timed(fn, repeat: int, name: str = "") -> tuple[float, object]:
    """Median wall seconds of ``repeat`` calls after one untimed warm-up call, and the last result; the median
    CPU seconds of this process go to ``CPU[name]`` (on a loaded machine wall time also counts waiting)."""
    out, wall, cpu = fn(), [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    CPU[name] = float(np.median(cpu))
    return float(np.median(wall)), out


def loop_influence(study: AssociationTest, limit: int | None) -> tuple[float, int, int]:
    """Seconds for leaving out ``limit`` words (all when None) one at a time through the public API; the
    number timed and the number there are."""
    jobs = [(key, i) for key in KEYS for i in range(len(getattr(study.spec, key).examples))]
    timed_jobs = jobs if limit is None else jobs[:: max(1, len(jobs) // limit)][:limit]
    t0 = time.perf_counter()
    for key, i in timed_jobs:
        items = list(getattr(study.spec, key).examples)
        study.set_items(key, items[:i] + items[i + 1 :])
        study.run(confidence_interval=False)
        study.set_items(key, items)
    return time.perf_counter() - t0, len(timed_jobs), len(jobs)


def loop_stability(study: AssociationTest, k: int, keep: float, seed: int) -> float:
    """Seconds for ``k`` random subsets (``round(keep n)`` words of each set, at least 2) through the public API."""
    rng = np.random.default_rng(seed)
    full = {key: list(getattr(study.spec, key).examples) for key in KEYS}
    t0 = time.perf_counter()
    for _ in range(k):
        for key, items in full.items():
            size = min(len(items), max(2, round(keep * len(items))))
            study.set_items(key, [items[i] for i in sorted(rng.choice(len(items), size, replace=False))])
        study.run(confidence_interval=False)
    elapsed = time.perf_counter() - t0
    for key, items in full.items():
        study.set_items(key, items)
    return elapsed


def case(name: str, study: AssociationTest, repeat: int, loop_words: int | None, loop_subsets: int) -> dict:
    study.run()  # encode once
    t_interval, result = timed(lambda: study.run(), repeat)
    t_percentile, _ = timed(lambda: study.run(interval_method="percentile"), repeat)
    t_targets, _ = timed(lambda: study.run(resample="targets"), repeat)
    t_plain, _ = timed(lambda: study.run(confidence_interval=False), repeat)
    t_influence, records = timed(lambda: result.influence(), repeat, "influence")
    t_stability, record = timed(lambda: result.stability(k=200), repeat, "stability")
    loop_seconds, n_timed, n_words = loop_influence(study, loop_words)
    loop_all = loop_seconds / n_timed * n_words
    subsets = 200 if loop_words is None else loop_subsets
    stability_loop = loop_stability(study, subsets, 0.8, seed=1) / subsets * 200
    return {
        "case": name, "sizes": {k: len(result.items[k]) for k in KEYS}, "exact_p": bool(result.core.exact),
        "run_with_interval_s": t_interval, "run_without_interval_s": t_plain,
        "interval_cost_s": t_interval - t_plain, "run_with_percentile_s": t_percentile,
        "percentile_cost_s": t_percentile - t_plain, "run_with_targets_s": t_targets,
        "influence_s": t_influence, "influence_cpu_s": CPU["influence"], "stability_cpu_s": CPU["stability"],
        "influence_loop_s": loop_all, "influence_loop_words_timed": n_timed,
        "influence_words": n_words, "influence_ratio": loop_all / t_influence,
        "stability_s": t_stability, "stability_loop_s": stability_loop, "stability_loop_subsets_timed": subsets,
        "stability_ratio": stability_loop / t_stability, "verdict": record["verdict"],
        "flips": sum(r["flips_sign"] or r["flips_significance"] for r in records),
    }


def live_edit(glove, repeat: int) -> dict:
    """weat6: one added word, then run() (interval included) and influence(): the influence view's wait."""
    study = AssociationTest("weat6", model=glove)
    study.run().influence()
    extra = ["Robert", "Mark", "Gary", "Eric", "Scott", "Brian", "Kevin", "Jason", "Ryan", "Adam"]
    base = list(study.spec.targ1.examples)
    times, parts = [], []
    for i in range(max(repeat, 5)):
        word = extra[i % len(extra)]
        study.set_items("targ1", base)
        study.run()
        t0 = time.perf_counter()
        study.set_items("targ1", [*base, word])
        result = study.run()
        t1 = time.perf_counter()
        result.influence()
        t2 = time.perf_counter()
        times.append(t2 - t0)
        parts.append((t1 - t0, t2 - t1))
    run_s, influence_s = (float(np.median([p[i] for p in parts])) for i in (0, 1))
    return {"edit_to_influence_s": float(np.median(times)), "run_s": run_s, "influence_s": influence_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loop-words", type=int, default=40, help="words of the 350 + 350 loop actually timed")
    parser.add_argument("--loop-subsets", type=int, default=10, help="subsets of the 350 + 350 loop actually timed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    glove = load_model("glove-6b-50d")
    words = [w for w in glove.words[1000:6000] if w.isalpha()]
    big = {key: words[i * 350 : (i + 1) * 350] for i, key in enumerate(KEYS)}
    rows = [
        case("weat6 (8+8, 8+8)", AssociationTest("weat6", model=glove), args.repeat, None, 200),
        case("350+350, 350+350", AssociationTest(**big, model=glove, n_samples=10_000), max(1, args.repeat // 2),
             args.loop_words, args.loop_subsets),
    ]
    live = live_edit(glove, args.repeat)
    load = os.getloadavg()
    if args.json:
        print(json.dumps({"cases": rows, "live_edit": live, "load_average": load}, indent=2))
        return
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores (shared machine)")
    for r in rows:
        print(f"\n{r['case']}: exact p {r['exact_p']}, verdict {r['verdict']}, {r['flips']} word(s) flip something")
        print(f"  run with interval {r['run_with_interval_s'] * 1e3:9.1f} ms, without "
              f"{r['run_without_interval_s'] * 1e3:9.1f} ms: the interval costs {r['interval_cost_s'] * 1e3:.1f} ms")
        print(f"  BCa (default) {r['interval_cost_s'] * 1e3:.1f} ms against percentile "
              f"{r['percentile_cost_s'] * 1e3:.1f} ms beyond d and p, same process; BCa over X and Y only "
              "(resample='targets'): run "
              f"{r['run_with_targets_s'] * 1e3:.1f} ms")
        print(f"  influence  {r['influence_s'] * 1e3:9.1f} ms (CPU {r['influence_cpu_s'] * 1e3:.1f} ms) vs API loop "
              f"{r['influence_loop_s']:8.2f} s ({r['influence_loop_words_timed']} of {r['influence_words']} words "
              f"timed): {r['influence_ratio']:.0f}x")
        print(f"  stability  {r['stability_s'] * 1e3:9.1f} ms (CPU {r['stability_cpu_s'] * 1e3:.1f} ms) vs API loop "
              f"{r['stability_loop_s']:8.2f} s ({r['stability_loop_subsets_timed']} of 200 subsets timed): "
              f"{r['stability_ratio']:.0f}x")
    print(f"\nlive edit (weat6, one word added): {live['edit_to_influence_s'] * 1e3:.1f} ms to the influence view "
          f"(run with interval {live['run_s'] * 1e3:.1f} ms + influence {live['influence_s'] * 1e3:.1f} ms)")


if __name__ == "__main__":
    main()
