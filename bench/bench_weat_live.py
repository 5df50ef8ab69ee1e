"""The WEAT explorer's live edit with everything that says how far to trust d: from one
edited word (``editor.set_state`` as the front end sends it) to bars holding the new d, p, bootstrap interval,
subset-stability verdict and every word's influence, at weat6's size on GloVe 6B 50d (the target: under
300 ms). In the same process, the baseline: the same edit's d and p alone (``run(confidence_interval=False)``,
all the explorer computed before it showed the interval, stability and influence), so the ratio is the cost of
the trust view; and the parts (interval, ``influence()``, ``stability()``) each timed alone.

    python bench/bench_weat_live.py            # prints a table; --json for machine output

Times are medians of ``--repeat`` edits (wall clock); each edit adds a word to one target set and the next
removes it, so every edit is a real recompute. The machine may be shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable

from embias_widgets.analysis import AssociationTest
from embias_widgets.models import load_model
from embias_widgets.widgets import WeatExplorer

WORDS = ("Alice", "Jill", "Emma", "Grace")


def _median_ms(fn: Callable[[int], object], repeat: int) -> float:
    times = []
    for i in range(repeat):
        t0 = time.perf_counter()
        fn(i)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def measure(repeat: int = 15) -> dict[str, float]:
    glove = load_model("glove-6b-50d")
    explorer = WeatExplorer("weat6", model=glove)
    published = json.loads(json.dumps(explorer.editor.sets))

    def edit(i: int) -> None:
        sets = json.loads(json.dumps(published))
        sets["targ2"]["examples"].append(WORDS[i % len(WORDS)])
        explorer.editor.set_state({"sets": sets})
        if not (explorer.bars.influence and explorer.bars.stability and explorer.bars.effect_size_interval):
            raise RuntimeError(f"the bars lack the trust view after an edit: {explorer.bars.error}")

    study = AssociationTest("weat6", model=glove)

    def set_word(i: int) -> None:
        study.set_items("targ2", [*published["targ2"]["examples"], WORDS[i % len(WORDS)]])

    def baseline(i: int) -> None:
        set_word(i)
        study.run(confidence_interval=False)

    edit(0), baseline(0)  # warm: every word encoded once, as after the first edit in a session
    live = _median_ms(edit, repeat)
    base = _median_ms(baseline, repeat)
    result = study.run()
    plain = _median_ms(lambda i: study.run(confidence_interval=False), repeat)
    parts = {
        "interval_ms": _median_ms(lambda i: study.run(), repeat) - plain,
        "percentile_interval_ms": _median_ms(lambda i: study.run(interval_method="percentile"), repeat) - plain,
        "influence_ms": _median_ms(lambda i: result.influence(), repeat),
        "stability_ms": _median_ms(lambda i: result.stability(), repeat),
    }
    return {"edit_to_trust_view_ms": live, "edit_to_d_and_p_only_ms": base, "ratio": live / base, **parts,
            "words": sum(len(published[k]["examples"]) for k in published) + 1,
            "load_average_1min": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = measure(args.repeat)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"weat6 on glove-6b-50d, {out['words']} words, median of {args.repeat} edits "
          f"(load average {out['load_average_1min']:.1f}):")
    print(f"  edit -> d, p, interval, stability, influence in the bars  {out['edit_to_trust_view_ms']:7.1f} ms "
          "(target < 300 ms)")
    print(f"  edit -> d and p only (no trust view), same process       {out['edit_to_d_and_p_only_ms']:7.1f} ms "
          f"(ratio {out['ratio']:.1f}x)")
    print(f"  parts: interval (BCa) {out['interval_ms']:.1f} ms (percentile {out['percentile_interval_ms']:.1f} ms), "
          f"influence() {out['influence_ms']:.1f} ms, stability() {out['stability_ms']:.1f} ms")


if __name__ == "__main__":
    main()
