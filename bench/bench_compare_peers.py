"""The same two models compared three ways: ours (paired: McNemar's exact test on the discordant pairs and a
paired bootstrap interval), mlm-bias's ``RelativeBiasMLMs`` and lm-evaluation-harness's unpaired z-test, each
computed from its own formula on the very same sentence scores.

    python -m bench.bench_compare_peers --pairs 200 [--crows PATH] [--metric cps]

Models: the offline demo MLM and its copy with the he-she direction projected out of its MLM head
(:mod:`embias_widgets.models.language_models.head_debias`). Data: the first N CrowS-Pairs pairs.

- mlm-bias (``compute_mlms_relative_bias.py``): per pair, ``mdif = (M2(S1) - M1(S1)) - (M2(S2) - M2(S1))`` with
  ``M(S)`` a model's sentence score, S1 the more and S2 the less stereotypical sentence; the relative bias is
  ``100 mean(mdif > 0)``, with no interval and no test (the second term uses model 2 twice: it is not a
  difference in differences).
- lm-evaluation-harness: each model's ``pct_stereotype`` (mean of the per-pair indicator) with its standard error
  ``sqrt(var / n)`` (sample variance), compared by ``z = (m2 - m1) / sqrt(se1^2 + se2^2)``, ``p = 2 (1 - Phi(|z|))``:
  unpaired, as if the models had scored different pairs.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np
from scipy import stats

from embias_widgets.analysis.compare import save_model
from embias_widgets.analysis.likelihood import PairedLikelihood
from embias_widgets.metrics.paired import pair_score_change
from embias_widgets.models.language_models.demo_mlm import load_demo_mlm
from embias_widgets.models.language_models.head_debias import project_out_head_direction
from embias_widgets.stimuli.pairs import read_pairs


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--crows", default="/work/shared/data/crows_pairs/crows_pairs_anonymized.csv")
    ap.add_argument("--metric", default="cps")
    args = ap.parse_args(argv)
    pairs = read_pairs(args.crows, format_in="crows", limit=args.pairs)
    folder = tempfile.mkdtemp()
    debiased = save_model(project_out_head_direction(load_demo_mlm()), folder)
    t0 = time.perf_counter()
    res = [PairedLikelihood(pairs, model=m, metric=args.metric, progress=False).run()
           for m in ("embias-demo-mlm", debiased)]
    seconds = time.perf_counter() - t0
    ok = [i for i in range(len(pairs)) if all(r.rows[i].scores is not None for r in res)]
    s1 = [np.array([r.rows[i].scores.stereo.score for i in ok]) for r in res]
    s2 = [np.array([r.rows[i].scores.anti.score for i in ok]) for r in res]
    succ = [np.asarray(r.bias.preferred)[ok] == 1 for r in res]  # after the metric's rounding (CPS: 3 decimals)
    ours = pair_score_change(succ[0], succ[1], rng=0)
    mdif = (s1[1] - s1[0]) - (s2[1] - s1[1])
    relative = 100 * float(np.mean(mdif > 0))
    m = [float(x.mean()) for x in succ]
    se = [float(np.sqrt(x.var(ddof=1) / x.size)) for x in succ]
    z = (m[1] - m[0]) / np.hypot(*se)
    out = {"pairs": len(ok), "metric": args.metric, "seconds_scoring": round(seconds, 1),
           "ours": {"before": ours.before, "after": ours.after, "change": ours.change,
                    "interval": [ours.interval.low, ours.interval.high], "mcnemar_b": ours.counts["b"],
                    "mcnemar_c": ours.counts["c"], "p": ours.p_value},
           "mlm_bias_relative": relative,
           "lm_eval": {"z": float(z), "p": float(2 * stats.norm.sf(abs(z))),
                       "interval_95": [100 * (m[1] - m[0] - 1.959964 * np.hypot(*se)),
                                       100 * (m[1] - m[0] + 1.959964 * np.hypot(*se))]}}
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
