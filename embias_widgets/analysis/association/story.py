"""One story per association finding: what the permutation p and the bootstrap interval say together.

The two answer different questions. The permutation p (Caliskan et al. 2017) asks whether X and Y differ *with
these attribute words* (it conditions on the four lists and shuffles X and Y). The bootstrap interval of d asks
what d would be *with other words of the same kinds* (it resamples the words of every set; see
:mod:`embias_widgets.metrics.bootstrap`). When they disagree, every place that shows the finding (the
stability record, the CLI, the widgets, the report's findings and notes) says so in one sentence, e.g.
"significant for these words; the interval over word choice includes 0".

The stability verdict follows from the same two facts: **stable** when the test is significant and the
interval excludes 0 on d's side (the finding holds for these words and for other words of the same kinds),
otherwise **fragile**. So "stable" never stands beside an interval that holds 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...metrics.attribute_noise import ATTRIBUTE_NOISE_LIMIT

__all__ = ["attribute_noise_notes", "calibration_notes", "excludes_zero", "story_sentence", "verdict_reason"]


def excludes_zero(interval: dict[str, Any] | None, effect_size: float | None) -> bool | None:
    """Whether ``interval`` (``{"low", "high", ...}``) lies wholly on d's side of 0; None without an interval
    or a defined d."""
    if not interval or interval.get("low") is None or interval.get("high") is None or effect_size is None:
        return None
    if effect_size > 0:
        return interval["low"] > 0
    if effect_size < 0:
        return interval["high"] < 0
    return False


def story_sentence(significant: bool, interval: dict[str, Any] | None, effect_size: float | None, *,
                   choice: str = "word choice", these: str = "these words",
                   alternative: str = "two-sided") -> str | None:
    """The one sentence for a finding whose p and interval disagree, None when they agree (or there is no
    interval): "significant for these words; the interval over word choice includes 0", or "not significant
    for these words; the interval over word choice excludes 0" (with "(the one-sided test looks only for
    d > 0)" when d lies on the side a one-sided ``alternative`` does not test)."""
    outside = excludes_zero(interval, effect_size)
    if outside is None or outside == significant:
        return None
    if significant:
        return f"significant for {these}; the interval over {choice} includes 0"
    text = f"not significant for {these}; the interval over {choice} excludes 0"
    d = float(effect_size or 0.0)  # defined here: excludes_zero gave a bool
    if (alternative == "greater" and d < 0) or (alternative == "less" and d > 0):
        text += f" (the one-sided test looks only for d {'>' if alternative == 'greater' else '<'} 0)"
    return text


def verdict_reason(significant: bool, interval: dict[str, Any] | None, effect_size: float | None, *,
                   choice: str = "word choice", these: str = "these words",
                   alternative: str = "two-sided") -> tuple[str, str]:
    """``(verdict, reason)``: ``"stable"`` when the test is significant and the interval excludes 0 on d's
    side, else ``"fragile"``, with the reason in one sentence."""
    outside = excludes_zero(interval, effect_size)
    if outside is None:
        return "fragile", ("no interval of d" if effect_size is not None else "d is undefined") + \
            ": nothing says how far it holds for other words"
    if significant and outside:
        return "stable", f"significant for {these}, and the interval over {choice} excludes 0"
    sentence = story_sentence(significant, interval, effect_size, choice=choice, these=these, alternative=alternative)
    if sentence is not None:
        return "fragile", sentence
    return "fragile", f"not significant for {these}, and the interval over {choice} includes 0: no finding to keep"


def calibration_notes(sizes: dict[str, int], effect_size: float | None, *, method: str, resample: str) -> list[str]:
    """Where the calibration suite (``bench/calibration/check_weat.py``; docs: How far to trust a number) found
    the interval of d short of its promise, a note for a run in that setting: with 4 to 24 items in the
    smallest set and ``|d| >= 1.25`` the BCa interval over the four sets held the population d in about 91% of
    runs (8 words a set, d = 1.5, widely spread words; 94-97% elsewhere); the conditional interval
    (``resample="targets"``) held its d in 71-90% of runs with 3 target words a set, and in about 89-90% with 8
    and ``|d| >= 1``."""
    if effect_size is None:
        return []
    d = abs(effect_size)
    if resample == "targets":
        targets = min(sizes["targ1"], sizes["targ2"])
        if targets <= 3:
            return [f"a target set has {targets} item(s): with 3 target words a set the conditional interval of d "
                    "(attribute words fixed) held its d in only 71-90% of calibration runs, not its level"]
        if targets < 25 and d >= 1:
            return [f"the smallest target set has {targets} items and |d| >= 1: with 8 words a set the conditional "
                    "interval of d held its d in about 89-90% of calibration runs, not 95%"]
        return []
    smallest = min(sizes.values())
    if method == "BCa" and 3 < smallest < 25 and d >= 1.25:
        return [f"the smallest set has {smallest} items and |d| >= 1.25: with 8 widely spread words a set and d = 1.5 "
                "the BCa interval of d held the population d in about 91% of calibration runs, not 95%"]
    return []


def attribute_noise_notes(share: float) -> list[str]:
    """A note where the attribute words' own spread makes up at least
    :data:`~embias_widgets.metrics.attribute_noise.ATTRIBUTE_NOISE_LIMIT` of the spread of the association scores
    (:func:`~embias_widgets.metrics.attribute_noise.attribute_noise_share`): d on these words then understates d
    over the word populations, and the interval of d over word choice can miss it
    (``bench/calibration/check_weat_weak_axis.py``)."""
    if not (np.isfinite(share) and share >= ATTRIBUTE_NOISE_LIMIT):
        return []
    return [f"the attribute words' own spread makes up {share:.2f} of the spread of the association scores (at "
            f"least {ATTRIBUTE_NOISE_LIMIT:g}): d on these words understates d over the word populations (by a "
            "factor of about sqrt(1 - share)), and the interval of d over word choice may miss it (in simulated "
            "worlds where most runs had such shares it held the population d in 0.02-0.95 of runs); more "
            "attribute words make the share smaller"]
