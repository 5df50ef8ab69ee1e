"""Bench: the sense-level view (sense selector, gloss sense vectors, LMMS sense files).

    python bench/bench_senses.py selector          # WordNet load, senses of a typed lemma
    python bench/bench_senses.py gloss             # gloss vectors for a 25+25+8+8 test, first vs cached, one edit
    python bench/bench_senses.py lmms [--rows 207000 --dim 2048 --keys 200]   # sense file: 200 keys vs full load
    python bench/bench_senses.py all

selector: time of ``load_wordnet()`` and of ``WordNet.senses(lemma)`` for lemmas
typed for the first time (what the SenseSelector asks), against nltk's bare
``synsets(lemma)`` in the same process; also an unknown lemma with its suggestions.

gloss: every sense of the lemmas of a 25+25+8+8 test (sense-weat1's flowers and
insects, sense-weat5's 8+8 pleasant/unpleasant) through SenseAssociationTest on
all-MiniLM-L6-v2 gloss vectors: first run (empty caches), a cached re-run, and one
edited sense (to another sense of a lemma already seen, and to a sense of a new
lemma) to the new d with a first p (``run(provisional=True)``, what the sense explorer
draws first) and to the full p, with the default sampler and with ``sampler="keys"``
(the earlier default: random sort keys per split); then the same through ``SenseWeatExplorer``.

lmms: a generated LMMS-shaped ``.npz`` (labels + float32 vectors, uncompressed as
``np.savez`` writes it) in a temporary directory; each way of reading 200 keys runs
in a fresh process that reports its wall time and peak resident memory
(``ru_maxrss``) above the interpreter with numpy imported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent


# -- selector ------------------------------------------------------------------------------------------
def bench_selector() -> None:
    from embias_widgets.stimuli.wordnet import UnknownSenseError, load_wordnet

    t0 = time.perf_counter()
    wn = load_wordnet()
    print(f"load_wordnet(): {time.perf_counter() - t0:.2f} s ({wn.source})")
    lemmas = ["black", "nurse", "engineer", "judge", "japanese", "run", "set", "guide", "mentor", "carpenter",
              "violet", "cricket", "bank", "play", "light", "head", "break", "good", "fair", "woman"]
    ours, counts = [], []
    for lemma in lemmas:  # first time for each lemma: nltk reads its index and data lines, we build every Sense
        t = time.perf_counter()
        senses = wn.senses(lemma)
        ours.append(time.perf_counter() - t)
        counts.append(len(senses))
    wn._reader._synset_offset_cache.clear()
    bare = []
    for lemma in lemmas:  # the plain baseline: nltk's own synsets(lemma), cold
        t = time.perf_counter()
        wn._reader.synsets(lemma)
        bare.append(time.perf_counter() - t)
    print(f"senses(lemma), first time, {len(lemmas)} lemmas ({sum(counts)} senses, max {max(counts)} for "
          f"{lemmas[counts.index(max(counts))]!r}): median {1e3 * statistics.median(ours):.1f} ms, "
          f"max {1e3 * max(ours):.1f} ms; nltk synsets() alone (cold) median {1e3 * statistics.median(bare):.2f} ms, "
          f"max {1e3 * max(bare):.1f} ms (ratio of medians {statistics.median(ours) / statistics.median(bare):.1f}x)")
    again = []
    for lemma in lemmas:
        t = time.perf_counter()
        wn.senses(lemma)
        again.append(time.perf_counter() - t)
    print(f"senses(lemma), again: median {1e3 * statistics.median(again):.2f} ms")
    for typo in ("engneer", "nurses", "blakc"):
        t = time.perf_counter()
        try:
            wn.senses(typo)
        except UnknownSenseError as err:
            print(f"unknown {typo!r}: {1e3 * (time.perf_counter() - t):.1f} ms -> suggestions {err.suggestions[:4]}")


# -- gloss ---------------------------------------------------------------------------------------------
def bench_gloss(threads: int | None) -> None:
    import torch

    if threads:
        torch.set_num_threads(threads)
    from embias_widgets.analysis.senses import SenseAssociationTest
    from embias_widgets.models import load_model
    from embias_widgets.models.sense_vectors import GlossSenseVectors
    from embias_widgets.models.sense_vectors.gloss import clear_gloss_cache
    from embias_widgets.stimuli import load_wordnet, sense_test_table

    wn = load_wordnet()

    def lemmas(test: str, key: str) -> list[str]:
        return [r["key"].split("%")[0] for r in sense_test_table(test) if r["set"] == key and r["key"]]

    sets = {"targ1": lemmas("weat1", "targ1"), "targ2": lemmas("weat1", "targ2"),
            "attr1": lemmas("weat5", "attr1"), "attr2": lemmas("weat5", "attr2")}
    n_senses = sum(len(wn.senses(w)) for s in sets.values() for w in s)
    print(f"test: {'+'.join(str(len(v)) for v in sets.values())} lemmas, {n_senses} senses; torch threads "
          f"{torch.get_num_threads()}")
    t0 = time.perf_counter()
    encoder = load_model("all-MiniLM-L6-v2", device="cpu")
    print(f"load all-MiniLM-L6-v2: {time.perf_counter() - t0:.2f} s")
    clear_gloss_cache()
    model = GlossSenseVectors(encoder, wn)
    before = encoder.n_encoded
    t0 = time.perf_counter()
    study = SenseAssociationTest(model=model, **sets)
    first = study.run()
    t_first = time.perf_counter() - t0
    print(f"first run: {t_first:.2f} s, {encoder.n_encoded - before} glosses encoded; "
          f"d sense {first.effect_size:+.3f}, word (eq. 7) {first.word_average.effect_size:+.3f}, p {first.pvalue:.2g}")
    times = []
    for _ in range(3):
        before = encoder.n_encoded
        t0 = time.perf_counter()
        SenseAssociationTest(model=GlossSenseVectors(encoder, wn), **sets).run()
        times.append(time.perf_counter() - t0)
    print(f"cached re-run (new study, same model): median {statistics.median(times):.3f} s, "
          f"{encoder.n_encoded - before} encoded ({t_first / statistics.median(times):.0f}x faster)")
    # one edited sense: a target item becomes one sense key
    edits = [("another sense of a lemma already seen", "iris%1:08:00::"),
             ("a sense of a new lemma", "sunflower%1:20:00::")]
    import numpy as np

    from embias_widgets.metrics import weat

    rng = np.random.default_rng(0)
    arrays = [rng.normal(size=(n, 384)) for n in (25, 25, 8, 8)]
    for sampler in ("auto", "keys"):
        t0 = time.perf_counter()
        weat(*arrays, variant="max", rng=0, sampler=sampler)
        print(f"baseline: one plain weat() on 25+25+8+8 arrays, 100,000 sampled splits, sampler={sampler!r}: "
              f"{1e3 * (time.perf_counter() - t0):.0f} ms")
    for sampler in ("auto", "keys"):  # the default, and the earlier default (random sort keys)
        study.options["sampler"] = sampler
        name = "default sampler" if sampler == "auto" else f"sampler={sampler!r} (old default)"
        for label, key in edits:
            study.set_items("targ1", [key, *sets["targ1"][1:]])
            before = encoder.n_encoded
            t0 = time.perf_counter()
            first = study.run(provisional=True)
            t_first = time.perf_counter() - t0
            res = study.run() if first.provisional_levels else first
            dt = time.perf_counter() - t0
            print(f"one edited sense ({label}, {key}), {name}: {1e3 * t_first:.0f} ms to d {res.effect_size:+.3f} "
                  f"and a first p {first.pvalue:.2g} ({first.core().n_permutations:,} splits"
                  f"{', provisional' if first.provisional_levels else ', final'}), {1e3 * dt:.0f} ms to the full p "
                  f"{res.pvalue:.2g} ({res.core().n_permutations:,}); {encoder.n_encoded - before} glosses encoded")
            study.set_items("targ1", sets["targ1"])
            study.run()  # back to the original items (their twins cached again)
    explorer_edit(study, sets, wn)


def explorer_edit(study, sets: dict, wn) -> None:
    """One edited sense through the SenseWeatExplorer (the kernel side of a chip picked in the front end)."""
    from embias_widgets.widgets.sense_explorer import SenseWeatExplorer

    study.options["sampler"] = "auto"
    explorer = SenseWeatExplorer(study)
    times = []
    for key in ("iris%1:20:00::", "daisy%1:20:00::", "lily%1:20:00::"):
        explorer.selectors["targ1"].set_state({"selected": [key, *sets["targ1"][1:]]})
        times.append((explorer.first_ms, explorer.elapsed_ms))
    print("SenseWeatExplorer, one edited sense (3 edits): first bars "
          + ", ".join(f"{a:.0f}" for a, _ in times) + " ms; full p " + ", ".join(f"{b:.0f}" for _, b in times)
          + " ms")


# -- lmms ----------------------------------------------------------------------------------------------
def write_lmms_like(path: Path, rows: int, dim: int, seed: int = 0) -> list[str]:
    """An uncompressed .npz with 'labels' and 'vectors' written in chunks (never the whole array in memory)."""
    import numpy as np

    labels = np.array([f"lemma{i}%1:{i % 45:02d}:{i % 7:02d}::" for i in range(rows)])
    rng = np.random.default_rng(seed)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        with zf.open("labels.npy", "w", force_zip64=True) as fh:
            np.lib.format.write_array(fh, labels)
        with zf.open("vectors.npy", "w", force_zip64=True) as fh:
            header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)), "fortran_order": False,
                      "shape": (rows, dim)}
            np.lib.format.write_array_header_2_0(fh, header)
            for start in range(0, rows, 8192):
                n = min(8192, rows - start)
                fh.write(rng.standard_normal((n, dim), dtype=np.float32).tobytes())
    return labels.tolist()


CHILD = r"""
import json, resource, sys, time
import numpy as np
path, mode, keys = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
if mode == "naive":
    data = np.load(path)
    labels = [str(x) for x in data["labels"]]
    matrix = data["vectors"]
    row = {k: i for i, k in enumerate(labels)}
    out = matrix[[row[k] for k in keys]].astype(np.float64)
else:
    from embias_widgets.models.sense_vectors import load_sense_file
    vecs = load_sense_file(path, keys=keys) if mode == "keys" else load_sense_file(path)
    out = vecs.vectors(keys)
dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": dt, "peak_mb": (peak - base) / 1024, "checksum": float(out.sum()), "shape": out.shape}))
"""


def bench_lmms(rows: int, dim: int, n_keys: int, keep: str | None) -> None:
    import numpy as np

    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="embias-lmms-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"lmms-like-{rows}x{dim}.npz"
    try:
        if not path.exists():
            t0 = time.perf_counter()
            labels = write_lmms_like(path, rows, dim)
            print(f"wrote {path} ({path.stat().st_size / 2**30:.2f} GiB) in {time.perf_counter() - t0:.1f} s")
        else:
            labels = [str(x) for x in np.load(path)["labels"]]
        keys = [labels[i] for i in np.random.default_rng(1).choice(len(labels), n_keys, replace=False)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        results = {}
        for mode in ("keys", "lazy", "naive"):
            # drop the file from the page cache is not possible without root tools; run each twice, report both
            for attempt in (1, 2):
                proc = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, json.dumps(keys)],
                                      capture_output=True, text=True, env=env, check=True)
                results[(mode, attempt)] = json.loads(proc.stdout)
        names = {"keys": "load_sense_file(path, keys=200 keys)", "lazy": "load_sense_file(path) memory-mapped",
                 "naive": "naive np.load(path)['vectors'] then index"}
        checks = {r["checksum"] for r in results.values()}
        print(f"{n_keys} keys from {rows:,} x {dim} float32 ({rows * dim * 4 / 2**30:.2f} GiB of vectors); "
              f"same vectors in all modes: {len(checks) == 1}")
        for mode in ("keys", "lazy", "naive"):
            a, b = results[(mode, 1)], results[(mode, 2)]
            print(f"  {names[mode]:45s} {a['seconds']:6.2f} s / {b['seconds']:6.2f} s (2nd run), "
                  f"peak +{max(a['peak_mb'], b['peak_mb']):7.1f} MB")
        naive, ours = results[("naive", 2)], results[("keys", 2)]
        print(f"  ratio naive/ours (2nd runs): time {naive['seconds'] / ours['seconds']:.1f}x, "
              f"peak memory {naive['peak_mb'] / max(ours['peak_mb'], 1e-9):.1f}x")
    finally:
        if not keep:
            path.unlink(missing_ok=True)
            folder.rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("selector", "gloss", "lmms", "all"))
    parser.add_argument("--rows", type=int, default=207_000)
    parser.add_argument("--dim", type=int, default=2048)
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--keep", default=None, help="keep the generated file in this folder (default: temp, removed)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads for the gloss part")
    args = parser.parse_args()
    if args.part in ("selector", "all"):
        bench_selector()
    if args.part in ("gloss", "all"):
        bench_gloss(args.threads)
    if args.part in ("lmms", "all"):
        bench_lmms(args.rows, args.dim, args.keys, args.keep)


if __name__ == "__main__":
    main()
