"""How far to trust an association result: its interval, word influence, subset stability and templates.

Everything here reads what a run already holds (:class:`~embias_widgets.analysis.association.result.
AssociationTestResult`'s cosine matrices, options and seed): nothing is encoded again. The formulas are in
:mod:`embias_widgets.metrics.robustness` and :mod:`embias_widgets.metrics.bootstrap`; this module turns them
into the JSON records of ``to_dict()`` and the CLI (``effect_size_interval``, ``influence``, ``stability``,
``templates``), each saying how it was computed. Ethayarajh, Duvenaud & Hirst (2019) and Antoniak & Mimno
(2021, "Bad Seeds") show how much WEAT rests on the words chosen; Seshadri, Pezeshkpour & Singh (2022) how
much template-based measures rest on the templates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...metrics import DEFAULT_ALPHA, BootstrapInterval
from ...metrics.bootstrap import effect_size_interval_from_cosines
from ...metrics.robustness import (
    LeaveOneOut,
    SubsetStability,
    associations_from_cosines,
    effect_sizes_by_row,
    leave_one_out,
    subset_stability,
)
from ...metrics.robustness_groups import group_subset_stability, leave_groups_out
from ...stimuli import SET_KEYS
from .story import story_sentence, verdict_reason

#: Bootstrap resamples by default: 2,000 put about 50 replicates beyond each end of a 95% interval (Efron &
#: Tibshirani 1993 ask for 1,000 or more, and BCa reads its ends from the same replicates), and cost about 10 ms
#: at weat6's size.
DEFAULT_RESAMPLES = 2_000
#: Subsets of the stability check by default, and the share of each set's words a subset keeps.
DEFAULT_SUBSETS, DEFAULT_KEEP = 200, 0.8

Significant = Callable[[np.ndarray], np.ndarray]

_HOW = {"BCa": "BCa bootstrap (bias-corrected and accelerated, Efron 1987)",
        "percentile": "percentile bootstrap (Efron 1979)"}
_STATISTIC = {"effect_size": "d", "association_difference": "mean_X s - mean_Y s"}


def interval_record(interval: BootstrapInterval | None, *, seed: int | None, what: str = "words") -> dict | None:
    """``{"low", "high", "level", "method"}`` of a bootstrap interval (None when there is none)."""
    if interval is None or not np.isfinite([interval.low, interval.high]).all():
        return None
    return {"low": float(interval.low), "high": float(interval.high), "level": float(interval.confidence_level),
            "method": interval_method(interval, seed=seed, what=what)}


def choice_words(interval: BootstrapInterval | None, what: str = "words") -> str:
    """What the interval varies, in the words of the one-sentence story: "word choice", "the choice of
    sentences", "target-word choice (attribute words fixed)"."""
    unit = "word" if what == "words" else what.split()[0].rstrip("s")
    if interval is not None and interval.resample == "targets":
        return f"target-{unit} choice (attribute {unit}s fixed)"
    return f"{unit} choice"


def interval_method(interval: BootstrapInterval, *, seed: int | None, what: str = "words") -> str:
    """The interval's method in words: how it is read, what is resampled, how many times, the seed, and the
    quantity it is an interval for (its estimand)."""
    statistic = _STATISTIC.get(interval.statistic, interval.statistic)
    if interval.resample == "targets":
        drawn = (f"the {what} of each of X and Y drawn with replacement within their set, A and B kept as they are; "
                 f"an interval for {statistic} with these attribute {what} over the populations of target {what} X "
                 "and Y stand for (what the permutation test conditions on)")
    else:
        drawn = (f"the {what} of each of X, Y, A and B drawn with replacement within their set; an interval for "
                 f"{statistic} over the populations of {what} the four sets stand for (other {what} of the same "
                 "kinds)")
    text = f"{_HOW[interval.method]}: {interval.n_resamples:,} resamples, {drawn}, seed {seed}"
    if interval.fallback:
        text += f"; {interval.fallback}"
    if interval.n_undefined:
        text += f"; {interval.n_undefined:,} resamples with an undefined d left out"
    return text


def significance(alpha: float, significant: Significant | None) -> Significant:
    """``significant`` as given, else ``p < alpha`` (the widgets' mark)."""
    return significant if significant is not None else (lambda p: np.asarray(p) < alpha)


def _groups(result: Any) -> dict[str, list[np.ndarray]] | None:
    """SEAT: per set, the item (sentence) indices of each word, words in first-seen order; None for WEAT."""
    if result.item_words is None:
        return None
    out = {}
    for key in SET_KEYS:
        where: dict[str, list[int]] = {}
        for i, word in enumerate(result.item_words[key]):
            where.setdefault(word, []).append(i)
        out[key] = [np.array(v) for v in where.values()]
    return out


def _labels(result: Any) -> dict[str, list[str]]:
    if result.item_words is None:
        return {key: list(result.items[key]) for key in SET_KEYS}
    return {key: list(dict.fromkeys(result.item_words[key])) for key in SET_KEYS}


def _options(result: Any) -> dict[str, Any]:
    if result.cosines is None or result.run_options is None:
        raise ValueError(
            "this result holds no cosine matrices (it was built by hand or by an older version): run the study "
            "again with AssociationTest.run() to get its influence, stability and templates"
        )
    o = result.run_options
    return dict(variant=result.core.variant, ddof=result.core.ddof, n_samples=o["n_samples"],
                alternative=o["alternative"], method="parametric" if o["method"] == "parametric" else "auto")


def word_influence(result: Any) -> LeaveOneOut:
    """The metric core's leave-one-out arrays for ``result`` (per word for SEAT: all its sentences out)."""
    options = _options(result)
    cos_a, cos_b = result.cosines
    n_x = len(result.items["targ1"])
    groups = _groups(result)
    if groups is None:
        return leave_one_out(cos_a, cos_b, n_x, rng=result.run_options["seed"], **options)
    return leave_groups_out(cos_a, cos_b, n_x, groups, rng=result.run_options["seed"], **options)


def _sign(d: Any) -> float:
    return 0.0 if d is None or not np.isfinite(d) else float(np.sign(d))


def influence_records(
    result: Any, *, alpha: float = DEFAULT_ALPHA, significant: Significant | None = None,
    loo: LeaveOneOut | None = None,
) -> list[dict]:
    """One record per word of each set: d and p without it, and whether its removal flips d's sign or the
    test's significance (``significant``, default ``p < alpha``), and how far d moves (``loo``: the
    :func:`word_influence` arrays when already computed)."""
    loo = word_influence(result) if loo is None else loo
    is_sig = significance(alpha, significant)
    full_sig = bool(is_sig(np.array([result.pvalue]))[0])
    d_full = result.effect_size
    rows = []
    for key in SET_KEYS:
        d, p = loo.effect_size[key], loo.pvalue[key]
        sig = is_sig(np.nan_to_num(p, nan=1.0))
        for i, word in enumerate(_labels(result)[key]):
            defined = bool(np.isfinite(d[i]))
            rows.append({
                "set": key, "category": result.categories[key], "word": word,
                "effect_size_without": float(d[i]) if defined else None,
                "effect_size_change": float(d[i] - d_full) if defined and d_full is not None else None,
                "p_value_without": float(p[i]) if np.isfinite(p[i]) else None,
                "flips_sign": _sign(d[i]) != _sign(d_full),
                "flips_significance": bool(sig[i]) != full_sig if np.isfinite(p[i]) else full_sig,
            })
    return rows


def influence_method(result: Any, loo: LeaveOneOut, rule: str) -> str:
    """How the influence records (from ``loo``) were computed, in words."""
    exact = all(loo.exact.values())
    if exact:
        how = "exact permutation tests"
    else:
        n = int(max(c.max() for c in loo.n_permutations.values() if len(c)))
        how = (f"sampled permutation tests: {n:,} uniform splits of the full test shared by every word, seeded (a "
               "target word's test uses those that put it in its own set, about half); Monte Carlo error of each p "
               "about sqrt(p (1 - p) / splits), so a p near alpha may flip by chance")
    unit = "word (all its sentences)" if result.item_words is not None else "word"
    return (f"each {unit} of each set left out in turn, every other choice kept (variant, ddof, seed); p from "
            f"{how}; flips_significance: the test's significance changes, significant meaning {rule}")


def significance_rule(alpha: float, correction: str | None = None) -> str:
    """The significance rule in words (what flips_significance and the stability share use)."""
    if correction:
        return f"rejected by {correction} at alpha = {alpha:g}"
    return f"p < alpha = {alpha:g}, no correction for multiple tests"


def stability_rule(k: int, keep: float, rule: str, interval: dict[str, Any] | None, choice: str) -> str:
    """The stable/fragile rule in words, wherever the verdict is shown."""
    if interval:
        how = interval["method"].split(":")[0]
        which = f"the {interval['level']:.0%} {how} interval of d over {choice}"
    else:
        which = f"the interval of d over {choice}"
    return (f"stable when the test is significant ({rule}) and {which} excludes 0 on d's side: the finding holds "
            f"for these words and for other words of the same kinds; otherwise fragile. The {k} random subsets "
            f"(each keeping {keep:.0%} of every set's words, at least 2; Antoniak & Mimno 2021) show how far d "
            "moves and do not enter the verdict")


def unit_of(result: Any) -> str:
    """What the interval resamples, in the method text's words: "words", "sentences" (SEAT) or the result's
    ``interval_unit`` (sense WEAT's items)."""
    return getattr(result, "interval_unit", None) or ("words" if result.item_words is None else "sentences")


def verdict_interval(result: Any, *, seed: int | None) -> BootstrapInterval | None:
    """The interval the verdict reads: the run's own (the one every display shows beside d) or, when the run
    computed none, the default (BCa, the four sets resampled, 95%, :data:`DEFAULT_RESAMPLES`, ``seed``) from
    the run's cosines. None when d is undefined."""
    if result.effect_size is None:
        return None
    if getattr(result, "interval", None) is not None:
        return result.interval
    cos_a, cos_b = result.cosines
    return effect_size_interval_from_cosines(cos_a, cos_b, len(result.items["targ1"]), variant=result.core.variant,
                                             ddof=result.core.ddof, n_resamples=DEFAULT_RESAMPLES, rng=seed)


def finding_story(result: Any, *, alpha: float = DEFAULT_ALPHA, significant: Significant | None = None) -> str | None:
    """The one sentence (:func:`~.story.story_sentence`) when the result's permutation test (significant by
    ``significant``, else ``p < alpha``) and its interval of d over word choice disagree; None when they agree
    or the run computed no interval."""
    if result.effect_size is None or getattr(result, "interval", None) is None:
        return None
    unit = unit_of(result)
    full_sig = bool(np.asarray(significance(alpha, significant)(np.array([np.nan_to_num(result.pvalue, nan=1.0)])))[0])
    record = {"low": float(result.interval.low), "high": float(result.interval.high)}
    return story_sentence(full_sig, record, result.effect_size, choice=choice_words(result.interval, unit),
                          these=f"these {unit.split()[0]}", alternative=result.core.alternative)


def subset_draws(result: Any, *, k: int, keep: float, seed: int | None) -> SubsetStability:
    """The metric core's subset-stability arrays for ``result`` (subsets of words for SEAT)."""
    options = _options(result)
    cos_a, cos_b = result.cosines
    n_x = len(result.items["targ1"])
    groups = _groups(result)
    if groups is None:
        return subset_stability(cos_a, cos_b, n_x, k=k, keep=keep, rng=seed, **options)
    return group_subset_stability(cos_a, cos_b, n_x, groups, k=k, keep=keep, rng=seed, **options)


def stability_record(
    result: Any, *, k: int = DEFAULT_SUBSETS, keep: float = DEFAULT_KEEP, seed: int | None = None,
    alpha: float = DEFAULT_ALPHA, significant: Significant | None = None, correction: str | None = None,
) -> dict[str, Any]:
    """The stability record: the verdict (``"stable"`` / ``"fragile"``, :func:`~.story.verdict_reason`: the test
    significant and the interval of d over word choice excluding 0), its ``reason``, the one-sentence ``story``
    when p and interval disagree (None when they agree), the ``interval`` the verdict read
    (:func:`verdict_interval`) and the ``rule``; then d over ``k`` seeded subsets and the shares with d's sign
    and significant, which describe how far d moves and do not enter the verdict. ``seed`` defaults to the
    run's seed."""
    seed = result.run_options["seed"] if seed is None and result.run_options else seed
    draws = subset_draws(result, k=k, keep=keep, seed=seed)
    d = draws.effect_sizes
    sign = _sign(result.effect_size)
    same = float(np.mean(np.sign(np.nan_to_num(d, nan=0.0)) == sign)) if sign else 0.0
    is_sig = significance(alpha, significant)
    sig = float(np.mean(is_sig(np.nan_to_num(draws.pvalues, nan=1.0))))
    # A subset's p is at least 1/splits: when even that is not significant (few words, a strict correction), no
    # subset can be, and the share significant says nothing about the words.
    p_floor = 1.0 / draws.n_permutations
    reachable = bool(np.asarray(is_sig(np.array([p_floor])))[0])
    full_sig = bool(np.asarray(is_sig(np.array([np.nan_to_num(result.pvalue, nan=1.0)])))[0])
    unit = unit_of(result)
    interval = verdict_interval(result, seed=seed)
    record = interval_record(interval, seed=seed, what=unit)
    words = dict(choice=choice_words(interval, unit), these=f"these {unit.split()[0]}",
                 alternative=result.core.alternative)
    verdict, reason = verdict_reason(full_sig, record, result.effect_size, **words)
    defined = d[np.isfinite(d)]
    quantiles = (0.025, 0.25, 0.5, 0.75, 0.975)
    return {
        "verdict": verdict, "reason": reason,
        "story": story_sentence(full_sig, record, result.effect_size, **words),
        "significant": full_sig, "interval": record,
        "rule": stability_rule(k, keep, significance_rule(alpha, correction), record, words["choice"]),
        "k": k, "keep": keep, "seed": seed, "sizes": draws.sizes,
        "effect_sizes": [float(v) if np.isfinite(v) else None for v in d],
        "effect_size_quantiles": ({str(q): float(v) for q, v in zip(quantiles, np.quantile(defined, quantiles),
                                                                   strict=True)} if defined.size else None),
        "share_same_sign": same, "share_significant": sig, "significance_reachable": reachable,
        "share_significant_note": None if reachable else (
            f"no subset can be significant: its smallest attainable p, 1/{draws.n_permutations:,} = {p_floor:.2g}, "
            "is not significant by the rule, so the share significant says nothing about the words"),
        "exact": draws.exact, "n_permutations": int(draws.n_permutations),
    }


def _spread(values: list[float]) -> dict[str, float] | None:
    v = np.array([x for x in values if x is not None])
    if v.size == 0:
        return None
    return {"min": float(v.min()), "max": float(v.max()), "range": float(v.max() - v.min()),
            "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0}


def template_record(result: Any) -> dict[str, Any] | None:
    """SEAT template sensitivity: d with the target sentences of one template only (all attribute sentences
    kept), and d with the attribute sentences of one template only (all target sentences kept), per template,
    and the spread of each list. None for WEAT (no templates)."""
    if result.item_templates is None:
        return None
    _options(result)
    cos_a, cos_b = result.cosines
    variant, ddof = result.core.variant, result.core.ddof
    n_x = len(result.items["targ1"])
    t = result.item_templates
    target_t = np.array([*t["targ1"], *t["targ2"]], dtype=object)
    out: dict[str, Any] = {"targets": [], "attributes": []}
    s = associations_from_cosines(cos_a, cos_b, variant)
    for template in dict.fromkeys(target_t):
        rows = np.flatnonzero(target_t == template)
        k = int(np.count_nonzero(rows < n_x))
        d = effect_sizes_by_row(s[rows], k, ddof)[0]
        out["targets"].append({"template": template, "n_x": k, "n_y": len(rows) - k,
                               "effect_size": float(d) if np.isfinite(d) else None})
    ta, tb = np.array(t["attr1"], dtype=object), np.array(t["attr2"], dtype=object)
    for template in dict.fromkeys([*ta, *tb]):
        ia, ib = np.flatnonzero(ta == template), np.flatnonzero(tb == template)
        d = np.nan
        if ia.size and ib.size:
            d = effect_sizes_by_row(associations_from_cosines(cos_a[:, ia], cos_b[:, ib], variant), n_x, ddof)[0]
        out["attributes"].append({"template": template, "n_a": int(ia.size), "n_b": int(ib.size),
                                  "effect_size": float(d) if np.isfinite(d) else None})
    out["spread"] = {role: _spread([r["effect_size"] for r in out[role]]) for role in ("targets", "attributes")}
    out["method"] = ("d over one template's sentences: 'targets' keeps only the target sentences made from the "
                     "template (every attribute sentence kept), 'attributes' only the attribute sentences made from "
                     "it (every target sentence kept); None where a set has no sentence of it or d is undefined")
    return out
