"""How much of the spread of WEAT's association scores comes from which attribute words were drawn.

``s(w) = mean_a cos(w, a) - mean_b cos(w, b)`` is each target word's projection on the difference of the attribute
sets' mean unit vectors. With few attribute words that difference is partly noise, which adds to the spread of
``s`` over the target words and not to the X-Y difference: d on these words then understates d over the word
populations (each set replaced by its population), by a factor of about ``sqrt(1 - rho)``, ``rho`` the noise's
share of ``var(s)``. The bootstrap over the four sets corrects this to first order only, so where ``rho`` is
large the interval of d over word choice can miss d over the populations (``bench/calibration/
check_weat_weak_axis.py``: 0.02-0.95 coverage in worlds where most runs had a share of 0.5 or more, 0.02 at d 1.5
with 25 words a set and 0.3 of the association axis kept; Owen 2007 for the crossed design's interaction
term).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ATTRIBUTE_NOISE_LIMIT", "attribute_noise_share"]

ATTRIBUTE_NOISE_LIMIT = 0.5
"""From this share on, half of the spread of the association scores comes from which attribute words were drawn:
a single model's d carries a note, and a change in d a warning when the two models' shares also differ
(:data:`~.paired_association.ATTRIBUTE_NOISE_GAP`)."""


def attribute_noise_share(cos_a: np.ndarray, cos_b: np.ndarray) -> float:
    """The share of the spread of ``s(w) = mean_a cos(w, a) - mean_b cos(w, b)`` over the target words that comes
    from which attribute words were drawn: ``rho = (I_A / |A| + I_B / |B|) / var_{X u Y}(s)``.

    ``cos_a``: (targets x A) cosines, ``cos_b``: (targets x B). ``I_A = sum_{w,a} (c_wa - c_w. - c_.a + c_..)^2 /
    ((T - 1)(|A| - 1))`` is the target-by-attribute interaction mean square of A's cosines (``c_w.``, ``c_.a``,
    ``c_..``: row, column and grand means over the T target words): an unbiased estimate of ``tr(S_w S_a)``,
    the spread one attribute word's own deviation adds to a target word's cosine, so ``I_A / |A|`` estimates what
    drawing A's words adds to ``var(s)`` (``s`` is each target word's projection on the difference of the
    attribute sets' mean unit vectors; the noise of that difference enters ``var(s)`` through the target words'
    covariance, Owen 2007's interaction term). ``var`` with ddof 1. d over the word populations is about
    ``d / sqrt(1 - rho)`` of d on these words (see the module docstring). NaN with fewer than two words in A or
    B or three target words, or when ``s`` does not vary. ``rho`` is an estimate and can exceed 1."""
    cos_a, cos_b = np.asarray(cos_a, dtype=np.float64), np.asarray(cos_b, dtype=np.float64)
    t_words, n_a, n_b = cos_a.shape[0], cos_a.shape[1], cos_b.shape[1]
    if n_a < 2 or n_b < 2 or t_words < 3:
        return float("nan")

    def interaction(c: np.ndarray) -> float:
        r = c - c.mean(axis=0) - c.mean(axis=1, keepdims=True) + c.mean()
        return float(np.sum(r**2)) / ((t_words - 1) * (c.shape[1] - 1))

    var = float((cos_a.mean(axis=1) - cos_b.mean(axis=1)).var(ddof=1))
    if not var > 0:
        return float("nan")
    return (interaction(cos_a) / n_a + interaction(cos_b) / n_b) / var
