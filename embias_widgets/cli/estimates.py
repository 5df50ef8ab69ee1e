"""What a long command says before it starts: its size, and how long it will take here, measured here.

``embias nli`` and ``embias pll`` time a small slice of their own work with the model they just loaded (the
same code path as the run; what it scores is not wasted: the run's caches keep it) and state the whole run's
size and estimate on stderr before scoring, as ``embias weat`` and ``embias report`` state their sizes. Progress
bars are on by default when stderr is a terminal (:func:`progress_default`).
"""

from __future__ import annotations

import sys
import time
from typing import Any

LONG_NLI_PAIRS = 20_000
"""An NLI run of more pairs than this states its estimate (a smaller one is over in about a minute)."""
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


def nli_estimate(probe: Any, workers: int | None, *, sample: int = 512) -> str:
    """``gender-occupation: 1,912,896 pairs with M; about 5 h in one process here (106 pairs/s on the first
    512, ...)``: the size, and the time of ``sample`` pairs scored by the loaded model through the probe's own
    path (after a warm-up of 32), scaled to the whole run (``embias nli`` asks over :data:`LONG_NLI_PAIRS`)."""
    from ..analysis.nli import NliProbe

    n, total = probe.n_pairs, len(probe.source)
    text = f"{probe.source.name}: {n:,} pairs" + (f" (the first {n:,} of {total:,})" if n < total else "")
    text += f" with {probe.model_name}"
    sample = min(sample, n)
    model = probe.model  # loaded now; the run uses the same object
    NliProbe(probe.source, model, limit=32, chunk_size=32).run()  # warm-up: tokenizer parts, one-time checks
    start = time.perf_counter()
    NliProbe(probe.source, model, limit=sample, chunk_size=sample).run()
    rate = sample / max(time.perf_counter() - start, 1e-9)
    text += f"; about {duration(n / rate)} in one process here ({rate:,.0f} pairs/s on the first {sample})"
    if workers:
        text += f", at best {duration(n / rate / workers)} on {workers} workers"
    return text + "; --limit N scores the first N pairs"


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
