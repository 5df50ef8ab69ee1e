"""What a long command says before it starts: its size, and how long it will take here, measured here.

``embias nli`` and ``embias pll`` time a small slice of their own work with the model they just loaded (the
same code path as the run; what it scores is not wasted: the run's caches keep it) and state the whole run's
size and estimate on stderr before scoring, as ``embias weat`` and ``embias report`` state their sizes. Progress
bars are on by default when stderr is a terminal (:func:`progress_default`).

``embias nli`` states a run's size at once, before it loads the model (:func:`nli_size`), for every run of more
than :data:`MEASURED_NLI_PAIRS` pairs; then it times the first pairs for about :data:`TIMING_SECONDS` (at most
512 of them) and states the estimate (:func:`nli_estimate`), all before the first chunk is scored. A local run on
the CPU scores chunks of about :data:`CHUNK_SECONDS` of work (:func:`cpu_chunk`) unless told otherwise, so its
progress bar moves within seconds.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

MEASURED_NLI_PAIRS = 1_000
"""An NLI run of more pairs than this states its size at once and its measured estimate before scoring (at 50
pairs a second, a slow CPU's rate for a real model, 1,000 pairs take 20 s)."""
TIMING_SECONDS = 1.0
"""How long the estimate times the run's first pairs (after a warm-up of 8)."""
CPU_CHUNK = 512
"""Pairs per chunk of a local run on the CPU whose rate was not measured (``embias nli`` without ``--chunk-size``,
``--results-dir`` or a cluster). On CUDA, on Dask and with a results directory, chunks are 4,096 pairs (a GPU
batches them; saved chunks keep their size)."""
CHUNK_SECONDS = 3.0
"""About how long one chunk of a measured local CPU run takes (:func:`cpu_chunk`): the progress bar's step."""
LONG_PLL_PAIRS = 200
"""A likelihood run of more pairs than this states its estimate."""


def progress_default(flag: bool | None) -> bool:
    """``--progress``/``--no-progress`` as given, else on when stderr is a terminal (not in a pipe or a log)."""
    if flag is not None:
        return bool(flag)
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


def duration(seconds: float) -> str:
    """``42 s``, ``12 min``, ``3 h 20 min``, ``2 days 4 h``."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} min"
    hours, rest = divmod(round(minutes), 60)
    if hours < 48:
        return f"{hours} h {rest} min" if rest else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} days {hours} h"


def nli_size(probe: Any) -> str:
    """``gender-occupation: 20,000 pairs (the first 20,000 of 1,912,896) with M``: what the run will score, said
    before the model is loaded."""
    n, total = probe.n_pairs, len(probe.source)
    text = f"{probe.source.name}: {n:,} pairs" + (f" (the first {n:,} of {total:,})" if n < total else "")
    return text + f" with {probe.model_name}"


def nli_rate(probe: Any, *, sample: int = 512, seconds: float = TIMING_SECONDS) -> tuple[float, int]:
    """``(pairs per second, pairs timed)``: the run's first pairs scored by the loaded model through the engine's
    own path (:func:`~embias_widgets.analysis.nli.chunks.score_chunk`, after its first-use checks and a warm-up
    of 8 pairs), in slices of 32 until ``seconds`` have passed or ``sample`` pairs are scored."""
    from ..analysis.nli.chunks import score_chunk, warm_up

    n, source = probe.n_pairs, probe.source
    model = probe.model  # loaded now; the run uses the same object
    options = {"taus": probe.taus, "top_k": probe.top_k, "per_pair": False}
    warm_up(model, source)
    score_chunk(model, source, 0, min(8, n), **options)
    most, done, start = min(sample, n), 0, time.perf_counter()
    while done < most and (done == 0 or time.perf_counter() - start < seconds):
        step = min(32, most - done)
        score_chunk(model, source, done, done + step, **options)
        done += step
    return done / max(time.perf_counter() - start, 1e-9), done


def nli_estimate(probe: Any, workers: int | None, rate: tuple[float, int]) -> str:
    """``about 5 h in one process here (106 pairs/s on the first 512), ...``: the rate :func:`nli_rate` measured
    scaled to the whole run."""
    per_second, timed = rate
    n = probe.n_pairs
    text = f"about {duration(n / per_second)} in one process here ({per_second:,.0f} pairs/s on the first {timed})"
    if workers:
        text += f", at best {duration(n / per_second / workers)} on {workers} workers"
    return text + "; --limit N scores the first N pairs"


def cpu_chunk(pairs_per_second: float | None) -> int:
    """Pairs per chunk of a local CPU run: about :data:`CHUNK_SECONDS` of work at the measured rate (a power of
    two from 64 to 4,096), or :data:`CPU_CHUNK` unmeasured, so the progress bar moves every few seconds."""
    if not pairs_per_second:
        return CPU_CHUNK
    fits = max(64.0, min(4096.0, pairs_per_second * CHUNK_SECONDS))
    return 2 ** int(math.log2(fits))


def pll_estimate(study: Any, *, sample: int = 6) -> str:
    """``1,508 pairs (3,016 sentences, 52,311 tokens) with M; about 12 min here (...)``: the size, and the time
    of ``sample`` pairs (after one warm-up pair) scored with the run's metric, scaled by the sum of squared
    sentence lengths (a masked LM scores one masked copy of the whole sentence per token; ``embias pll`` asks
    over :data:`LONG_PLL_PAIRS` pairs)."""
    scorer = study.scorer

    def length(sentence: str) -> int:
        try:
            return len(scorer.tokenize(sentence).ids)
        except ValueError:  # refused text (its row says why): no work
            return 0

    pairs = [(p.stereo, p.anti) for p in study.pairs]
    lengths = {s: length(s) for pair in pairs for s in pair}
    text = (f"{len(pairs):,} pairs ({len(lengths):,} sentences, {sum(lengths.values()):,} tokens) with "
            f"{scorer.name}")
    scorable = [pair for pair in pairs if lengths[pair[0]] and lengths[pair[1]]][: sample + 1]
    if len(scorable) < 2:
        return text
    scorer.score_pairs(scorable[:1], study.metric)  # warm-up
    start = time.perf_counter()
    scorer.score_pairs(scorable[1:], study.metric)
    squares = sum(lengths[s] ** 2 for pair in scorable[1:] for s in pair)
    whole = (time.perf_counter() - start) / squares * sum(n * n for n in lengths.values())
    return text + (f"; about {duration(whole)} here (the first {len(scorable) - 1} pairs timed, scaled by length "
                   "squared); --limit N scores the first N pairs")
