"""BBQ: intervals of accuracy and of the bias scores s_AMB and s_DIS (Parrish et al. 2022), on simulated
templates whose answer habits vary from template to template (template-level random effects).

Each replicate draws ``templates`` templates of one category. Template ``t`` has, per context condition, a
probability of answering UNKNOWN ``u_t = expit(mu_u + tau z)`` and, when not, of choosing the biased answer
``q_t = expit(mu_q + tau z')``; it yields ``items`` items per condition (negative and non-negative questions
alternating; in disambiguated contexts the correct answer is the biased one for every other item). The estimand
of each interval is the score over the population of templates (ratios of expectations over templates, by a
seeded Monte Carlo of 400,000 templates): ``s = 2 E[(1-u) q] / E[1-u] - 1``, ``s_AMB = (1 - E[u]) s``,
accuracy ``E[u]`` (ambiguous). ``tau = 0`` is the independent-items case. The library's ``bbq_scores``
computes every interval: redrawing templates (the promise) and, as the 'before' row, redrawing items.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from embias_widgets.metrics import bbq_scores

from .core import Check, Outcome

RESAMPLES = 1_000
MU = {"ambig": (-0.4, 1.0), "disambig": (1.5, 0.2)}  # (mu_u, mu_q): logits of UNKNOWN and of the biased answer


def _expit(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _habits(rng: np.random.Generator, n: int, tau: float, cond: str) -> tuple[np.ndarray, np.ndarray]:
    mu_u, mu_q = MU[cond]
    return _expit(mu_u + tau * rng.standard_normal(n)), _expit(mu_q + tau * rng.standard_normal(n))


@cache
def truth(tau: float) -> dict[str, float]:
    """Population scores (x100 for bias scores) of templates with spread ``tau`` (seeded Monte Carlo)."""
    rng = np.random.default_rng(20260)
    out = {}
    for cond in ("ambig", "disambig"):
        u, q = _habits(rng, 400_000, tau, cond)
        s = 2 * np.mean((1 - u) * q) / np.mean(1 - u) - 1
        out[cond] = 100 * s * ((1 - np.mean(u)) if cond == "ambig" else 1.0)
        if cond == "ambig":
            out["accuracy"] = float(np.mean(u))
    return out


def simulate(rng: np.random.Generator, templates: int, items: int, tau: float) -> tuple[np.ndarray, dict[str, Any]]:
    """One category's predictions and item columns (a mapping ``bbq_scores`` reads)."""
    cols: dict[str, list] = {k: [] for k in ("label", "target_loc", "context_condition", "question_polarity",
                                            "question_index")}
    pred = []
    for cond in ("ambig", "disambig"):
        u, q = _habits(rng, templates, tau, cond)
        for t in range(templates):
            k = np.arange(items)
            target = np.where(k % 2 == 0, 0, 1)  # neg: the stereotyped person (0); nonneg: the other (1)
            other = 1 - target
            unknown = rng.random(items) < u[t]
            biased = rng.random(items) < q[t]
            pred.append(np.where(unknown, 2, np.where(biased, target, other)))
            label = np.full(items, 2) if cond == "ambig" else np.where((k // 2) % 2 == 0, target, other)
            cols["label"].append(label)
            cols["target_loc"].append(target)
            cols["context_condition"].append(np.full(items, cond, dtype=object))
            cols["question_polarity"].append(np.where(k % 2 == 0, "neg", "nonneg").astype(object))
            cols["question_index"].append(np.full(items, t))
    columns = {k: np.concatenate(v) for k, v in cols.items()}
    n = columns["label"].size
    columns.update(unknown_loc=np.full(n, 2), category=np.full(n, "Simulated", dtype=object))
    return np.concatenate(pred), columns


def replicate(params: dict[str, Any], rng: np.random.Generator) -> dict[str, bool]:
    pred, cols = simulate(rng, params["templates"], params["items"], params["tau"])
    true = truth(params["tau"])
    seed = int(rng.integers(2**32))
    out = {}
    for resample, prefix in (("template", ""), ("item", "item_")):
        s = bbq_scores(pred, cols, n_resamples=RESAMPLES, resample=resample, rng=seed)
        amb, dis = s.cell("Simulated", "ambig"), s.cell("Simulated", "disambig")
        out[f"{prefix}s_amb_covered"] = bool(amb.bias_interval.low <= true["ambig"] <= amb.bias_interval.high)
        out[f"{prefix}s_dis_covered"] = bool(dis.bias_interval.low <= true["disambig"] <= dis.bias_interval.high)
        out[f"{prefix}accuracy_covered"] = bool(amb.accuracy_interval.low <= true["accuracy"]
                                                <= amb.accuracy_interval.high)
    return out


_POP = "over the population of templates"
CHECKS = [
    Check(
        name="bbq",
        description="BBQ on simulated templates with template-level answer habits (spread tau), one category",
        outcomes=[
            Outcome("s_amb_covered", "s_AMB, percentile bootstrap over templates", f"s_AMB {_POP}", "coverage",
                    (0.90, 0.99)),
            Outcome("s_dis_covered", "s_DIS, percentile bootstrap over templates", f"s_DIS {_POP}", "coverage",
                    (0.90, 0.99)),
            Outcome("accuracy_covered", "accuracy (ambiguous), percentile bootstrap over templates",
                    f"accuracy {_POP}", "coverage", (0.90, 0.99)),
            Outcome("item_s_amb_covered", "before: s_AMB, bootstrap over items", f"s_AMB {_POP}", "coverage"),
            Outcome("item_s_dis_covered", "before: s_DIS, bootstrap over items", f"s_DIS {_POP}", "coverage"),
            Outcome("item_accuracy_covered", "before: accuracy, bootstrap over items", f"accuracy {_POP}",
                    "coverage"),
        ],
        replicate=replicate,
        fast=[{"templates": 25, "items": 16, "tau": 0.8}],
        full=[{"templates": g, "items": m, "tau": tau} for tau in (0.0, 0.4, 0.8) for g in (10, 25, 50)
              for m in (16,)],
    ),
]
