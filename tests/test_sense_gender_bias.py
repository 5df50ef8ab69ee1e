"""sense_gender_bias (analysis/senses/gender.py): Zhou et al. eq. 8 against numpy, and its result's protocol."""

from __future__ import annotations

import numpy as np
import pytest
from _result_protocol import assert_study_result


def test_gender_direction_bias_eq8_against_numpy(wn, tmp_path):
    """m and f are word embeddings (eq. 7: the mean of all their senses), as the paper defines eq. 8;
    sense keys as pairs give a one-sense direction instead."""
    from embias_widgets.analysis import sense_gender_bias
    from embias_widgets.stimuli.sense_sentences import GENDER_PAIR_KEYS, GENDER_PAIR_LEMMAS

    rng = np.random.default_rng(11)
    lemmas = [w for pair in GENDER_PAIR_LEMMAS for w in pair] + ["nurse"]
    keys = list(dict.fromkeys(s.key for lemma in lemmas for s in wn.senses(lemma)))
    assert len(keys) > len(lemmas)  # several senses per word, so eq. 7 differs from one sense
    table = {k: rng.normal(size=5) for k in keys}
    path = tmp_path / "g.txt"
    path.write_text("".join(k + " " + " ".join(f"{v:.6f}" for v in table[k]) + "\n" for k in keys))
    vec = {k: np.array([float(f"{v:.6f}") for v in table[k]]) for k in keys}

    def word(lemma):
        return np.mean([vec[s.key] for s in wn.senses(lemma)], axis=0)

    def cos(u, v):
        return u @ v / np.linalg.norm(u) / np.linalg.norm(v)

    occupation = [("nurse", "nurse%1:18:00::", "nurse%2:29:00::")]
    for pairs, g in (
        (GENDER_PAIR_LEMMAS, np.mean([word(m) - word(f) for m, f in GENDER_PAIR_LEMMAS], axis=0)),
        (GENDER_PAIR_KEYS, np.mean([vec[m] - vec[f] for m, f in GENDER_PAIR_KEYS], axis=0)),
    ):
        res = sense_gender_bias(str(path), occupations=occupation, **({} if pairs is GENDER_PAIR_LEMMAS
                                                                       else {"pairs": pairs}))
        frame = res.frame().set_index("kind")["bias"]
        assert frame["noun sense"] == pytest.approx(cos(vec["nurse%1:18:00::"], g))
        assert frame["verb sense"] == pytest.approx(cos(vec["nurse%2:29:00::"], g))
        assert frame["word (eq. 7)"] == pytest.approx(cos(word("nurse"), g))
    assert res.chart().to_dict()["encoding"]["xOffset"]["field"] == "kind"
    assert_study_result(res)
