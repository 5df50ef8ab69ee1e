"""Bench: May et al.'s whole SEAT suite on a sentence encoder, first run vs
cached re-run, and one edited word in a sentence test.

    python bench/bench_seat.py [--model all-MiniLM-L6-v2] [--device cpu|cuda] [--tsv out.tsv]
    python bench/bench_seat.py --edit-only    # just the one-edited-word latency

Prints wall times, how many sentences went through the model, and the
effect sizes of a few tests; then, through the WeatExplorer as a front-end
edit reaches it, the kernel-side time from one edited word of sent-weat1
(350 + 350 sentences) to the first bars (d and the provisional p from the
first block of splits) and to the full-precision p, medians over several
words, against the 300 ms target.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SHOWN = ["sent-weat1", "sent-weat3", "sent-weat6", "sent-weat7", "sent-weat8",
         "sent-angry_black_woman_stereotype", "sent-heilman_double_bind_competent_one_word",
         "heilman_double_bind_competent_one_sentence", "heilman_double_bind_likable_1-"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--device", default=None, help="default: cuda when available, else cpu")
    parser.add_argument("--tsv", default=None, help="write the suite's results.tsv here")
    parser.add_argument("--edit-only", action="store_true", help="only the one-edited-word latency")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    parser.add_argument("--repeat", type=int, default=5, help="edited words for the latency")
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)

    from embias_widgets.analysis.association import SentenceAssociationTest, paper_test_names, run_suite
    from embias_widgets.models import load_model
    from embias_widgets.models.sentence_encoders import clear_encoding_cache

    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"cuda {torch.cuda.is_available()}")
    options = {"device": args.device} if args.device else {}
    t0 = time.perf_counter()
    encoder = load_model(args.model, **options)
    print(f"load {args.model} on {encoder.device}: {time.perf_counter() - t0:.2f} s")

    if args.edit_only:
        edit_latency(encoder, args.repeat)
        return

    clear_encoding_cache()
    encoder = load_model(args.model, **options)  # a fresh, empty cache
    n_tests = len(paper_test_names())
    t0 = time.perf_counter()
    first = run_suite(["all"], [encoder], progress=False)
    t_first = time.perf_counter() - t0
    encoded_first = encoder.n_encoded
    t0 = time.perf_counter()
    again = run_suite(["all"], [encoder], progress=False)
    t_again = time.perf_counter() - t0
    print(f"suite, {n_tests} tests, first run: {t_first:.1f} s ({encoded_first} sentences encoded)")
    print(f"suite, cached re-run:          {t_again:.1f} s "
          f"({encoder.n_encoded - encoded_first} sentences encoded)")
    assert list(again.frame()["effect_size"]) == list(first.frame()["effect_size"])

    test = SentenceAssociationTest("sent-weat1", model=encoder)
    test.run()
    before = encoder.n_encoded
    words = list(test.spec.targ1.examples)
    test.set_items("targ1", ["edelweiss", *words[1:]])  # replaces "aster"
    t0 = time.perf_counter()
    test.encoded()
    t_encode = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = test.run()
    t_run = time.perf_counter() - t0
    print(f"edit one word of sent-weat1 (aster -> edelweiss): encode {t_encode * 1000:.0f} ms "
          f"({encoder.n_encoded - before} new sentences), then the test "
          f"(100,000 permutations) {t_run:.2f} s; d = {result.effect_size:+.3f}")

    edit_latency(encoder, args.repeat)

    frame = first.frame().set_index("test")
    print("\nselected tests:")
    for name in SHOWN:
        row = frame.loc[name]
        print(f"  {name:45s} d = {row.effect_size:+.3f}  p = {row.p_value:.2g}  "
              f"Holm: {'significant' if row.significant_holm else '-'}")
    print(f"\n{int(frame['significant_holm'].sum())} of {len(frame)} tests significant after "
          f"Holm-Bonferroni at {first.alpha:g}")
    if args.tsv:
        with open(args.tsv, "w", encoding="utf-8") as fh:
            fh.write(first.to_tsv())
        print(f"wrote {args.tsv}")


def edit_latency(encoder: object, repeat: int) -> None:
    """One edited word of sent-weat1 through the explorer: to the first bars, and to the final p."""
    import json
    import statistics

    from embias_widgets.widgets import WeatExplorer

    explorer = WeatExplorer("sent-weat1", model=encoder)
    words = ["edelweiss", "lotus", "jasmine", "orchids", "lavender", "foxglove", "primrose", "camellia"][:repeat]
    first, full, encode, new = [], [], [], []
    for word in words:
        before = encoder.n_encoded
        sets = json.loads(json.dumps(explorer.editor.sets))
        sets["targ1"]["examples"] = [word, *sets["targ1"]["examples"][1:]]
        t0 = time.perf_counter()
        explorer.analysis.set_items("targ1", sets["targ1"]["examples"])
        explorer.analysis.encoded()  # the encoding alone, then the same edit as the front end sends it
        encode.append((time.perf_counter() - t0) * 1000)
        new.append(encoder.n_encoded - before)
        explorer.editor.set_state({"sets": sets})
        first.append(getattr(explorer, "first_ms", explorer.elapsed_ms) + encode[-1])  # older: no first bars
        full.append(explorer.elapsed_ms + encode[-1])
    res = explorer.result
    print(f"edit one word of sent-weat1 ({len(res.items['targ1'])} + {len(res.items['targ2'])} sentences, "
          f"median of {len(words)} words, {statistics.median(new):.0f} new sentences each):")
    to_first, to_full = statistics.median(first), statistics.median(full)
    print(f"  encode {statistics.median(encode):.0f} ms; to the first bars (d, provisional p): {to_first:.0f} ms; "
          f"to the full p ({res.core.n_permutations:,} splits, p = {res.pvalue:.5g}): {to_full:.0f} ms")
    print(f"  target: new bars within 300 ms: {'met' if to_first < 300 else 'missed'} "
          f"({to_first / 300:.2f} of it; the full p at {to_full / 300:.2f} of it)")
    print(f"  load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
