"""A single model's d notes when the attribute words' own spread dominates its association scores: the note's
threshold, and the note reaching an AssociationTest's result (and only for the estimand it concerns)."""

import numpy as np
import pytest

from embias_widgets.analysis import AssociationTest
from embias_widgets.analysis.association.story import attribute_noise_notes
from embias_widgets.metrics.attribute_noise import ATTRIBUTE_NOISE_LIMIT, attribute_noise_share
from embias_widgets.models import StaticVectors


def test_note_from_the_limit_on_with_the_share_and_never_for_an_undefined_share():
    assert attribute_noise_notes(ATTRIBUTE_NOISE_LIMIT - 0.01) == []
    assert attribute_noise_notes(float("nan")) == []
    (note,) = attribute_noise_notes(0.73)
    assert "0.73" in note and "understates d over the word populations" in note


def _world(rng: np.random.Generator, n: int, keep: float, sigma: float, t: float = 0.6, dim: int = 50):
    """Word clusters whose association axis is kept at ``keep`` (a partial projection debiasing)."""
    e = np.eye(dim)
    axis = (e[0] - e[1]) / np.sqrt(2)
    sets = [m + sigma * rng.standard_normal((n, dim)) for m in (e[2] + t * axis, e[2] - t * axis, e[0], e[1])]
    sets = [v - (1 - keep) * np.outer(v @ axis, axis) for v in sets]
    names = [[f"{k}{i}" for i in range(n)] for k in "xyab"]
    model = StaticVectors([w for g in names for w in g], np.vstack(sets), name="clusters", lowercase=False)
    return names, model


@pytest.mark.parametrize(("keep", "sigma", "noted"), [(0.3, 0.4, True), (1.0, 0.25, False)])
def test_association_test_notes_a_dominant_attribute_spread(keep, sigma, noted):
    names, model = _world(np.random.default_rng(3), 25, keep, sigma)
    study = AssociationTest(targ1=names[0], targ2=names[1], attr1=names[2], attr2=names[3], model=model, seed=0)
    result = study.run(n_resamples=300)
    share = attribute_noise_share(*result.cosines)
    said = [n for n in result.notes if "attribute words' own spread" in n]
    assert bool(said) is noted and (share >= ATTRIBUTE_NOISE_LIMIT) is noted
    if noted:
        assert f"{share:.2f}" in said[0]
    # the conditional interval (attribute words fixed) is for d with these attribute words: no such note
    fixed = study.run(n_resamples=300, resample="targets")
    assert not any("attribute words' own spread" in n for n in fixed.notes)
