"""Sense selector lookups: the time from a typed lemma (the ``query`` trait) to its senses in the
``senses`` trait, against a plain nltk loop reading the same fields, in the same process.

    python bench/bench_sense_selector.py          # table; --json for machine output

Lemmas: every lemma of the bundled sense tests plus the paper's six occupations. Reports the
WordNet load (first call of ``load_wordnet()`` in this process), then per lemma the median, 95th
percentile and maximum of: the widget's lookup on first sight of a lemma (Sense objects built), the
same lemma again (cached), and the baseline (nltk ``synsets`` -> lemma keys, lexnames, glosses,
examples, every time). Also the lookups of misspelled lemmas, which compute close matches.
The target: every sense of a typed lemma listed under 100 ms after the WordNet load.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

OCCUPATIONS = ("engineer", "nurse", "judge", "mentor", "guide", "carpenter")
MISSPELLED = ("nurrse", "enginer", "carpentre", "japanesse", "blak", "flowr", "insekt", "maths")


def lemmas() -> list[str]:
    from embias_widgets.stimuli import SET_KEYS
    from embias_widgets.stimuli.sense_tests import load_sense_test, sense_test_names

    out = dict.fromkeys(OCCUPATIONS)
    for name in sense_test_names():
        spec = load_sense_test(name)
        for key in SET_KEYS:
            for item in getattr(spec, key).examples:
                out[item.split("%")[0]] = None
    return list(out)


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "median_ms": statistics.median(ordered),
        "p95_ms": ordered[int(0.95 * (len(ordered) - 1))],
        "max_ms": ordered[-1],
    }


def widget_lookup(selector: Any, lemma: str) -> float:
    t0 = time.perf_counter()
    selector.query = lemma
    elapsed = (time.perf_counter() - t0) * 1000
    assert selector.answered == f"{lemma}|", lemma
    assert selector.senses or selector.suggestions, lemma
    return elapsed


def nltk_lookup(reader: Any, lemma: str) -> float:
    t0 = time.perf_counter()
    rows = [
        (lem.key(), synset.lexname(), synset.definition(), synset.examples())
        for synset in reader.synsets(lemma)
        for lem in synset.lemmas()
        if lem.name().lower() == lemma
    ]
    elapsed = (time.perf_counter() - t0) * 1000
    assert rows, lemma
    return elapsed


def run() -> dict[str, Any]:
    from embias_widgets.stimuli.wordnet import load_wordnet
    from embias_widgets.widgets.sense_selector import SenseSelector

    t0 = time.perf_counter()
    wordnet = load_wordnet()
    load_s = time.perf_counter() - t0
    words = lemmas()
    selector = SenseSelector(wordnet=wordnet)
    reader = wordnet._reader  # the nltk reader underneath: the baseline reads the same data
    first = [widget_lookup(selector, w) for w in words]
    again = [widget_lookup(selector, w) for w in words]
    baseline = [nltk_lookup(reader, w) for w in words]
    misspelled = [widget_lookup(selector, w) for w in MISSPELLED]
    n_senses = [len(wordnet.senses(w)) for w in words]
    return {
        "wordnet_source": wordnet.source,
        "wordnet_load_s": load_s,
        "n_lemmas": len(words),
        "senses_per_lemma": {"median": statistics.median(n_senses), "max": max(n_senses)},
        "widget_first": summary(first),
        "widget_cached": summary(again),
        "nltk_baseline": summary(baseline),
        "misspelled_with_suggestions": summary(misspelled),
        "ratio_first_over_baseline_median": statistics.median(first) / statistics.median(baseline),
        "ratio_cached_over_baseline_median": statistics.median(again) / statistics.median(baseline),
        "under_100ms_first": sum(ms < 100 for ms in first) / len(first),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    report = run()
    if parser.parse_args().json:
        print(json.dumps(report, indent=2))
        return
    print(f"WordNet: {report['wordnet_source']}, loaded in {report['wordnet_load_s']:.2f} s")
    print(f"{report['n_lemmas']} lemmas, senses per lemma: {report['senses_per_lemma']}")
    for name in ("widget_first", "widget_cached", "nltk_baseline", "misspelled_with_suggestions"):
        s = report[name]
        print(f"{name:>30}: median {s['median_ms']:7.2f} ms  p95 {s['p95_ms']:7.2f} ms  max {s['max_ms']:7.2f} ms")
    print(
        f"first / baseline (median) {report['ratio_first_over_baseline_median']:.2f}x; "
        f"cached / baseline {report['ratio_cached_over_baseline_median']:.2f}x; "
        f"{100 * report['under_100ms_first']:.0f}% of first lookups under 100 ms"
    )


if __name__ == "__main__":
    main()
