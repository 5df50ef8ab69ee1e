"""Live sense edits (issue 20, item 5): ``SenseAssociationTest.run(provisional=True)`` and the sense explorer show
every d at once with a p from the first block of sampled splits, then the full p, as the WEAT explorer does.

The provisional null distribution must be exactly the first block of the full run's (same seed, same sampler),
d must be the full run's, and twins already run in full must be reused in full."""

from __future__ import annotations

import numpy as np
import pytest

from embias_widgets.analysis.senses import LEVELS, SenseAssociationTest
from embias_widgets.metrics import sense_weat
from embias_widgets.metrics.permutation import first_block_samples
from embias_widgets.models.sense_vectors import load_sense_file
from embias_widgets.widgets.sense_explorer import SenseWeatExplorer

TARG1 = ["rose", "tulip", "daisy", "lily", "violet", "aster", "clover", "iris", "orchid", "poppy", "peony", "lilac"]
TARG2 = ["ant", "bee", "wasp", "moth", "flea", "tick", "gnat", "beetle", "spider", "locust", "roach", "louse"]
ATTR1 = ["love", "peace", "gift"]
ATTR2 = ["hatred", "war", "filth"]


@pytest.fixture(scope="module")
def sense_file(wn, tmp_path_factory):
    rng = np.random.default_rng(11)
    keys = [s.key for lemma in TARG1 + TARG2 + ATTR1 + ATTR2 for s in wn.senses(lemma)]
    path = tmp_path_factory.mktemp("senses") / "lmms.txt"
    path.write_text("".join(k + " " + " ".join(f"{v:.6f}" for v in rng.normal(size=8)) + "\n" for k in keys))
    return str(path)


def study(sense_file, **options):
    options = {"n_samples": 20_000, "sampler": "keys", "seed": 3, **options}
    return SenseAssociationTest(model=sense_file, targ1=TARG1, targ2=TARG2, attr1=ATTR1, attr2=ATTR2, **options)


def test_the_provisional_run_is_the_first_block_of_the_full_run(sense_file):
    # C(24, 12) = 2,704,156 splits: sampled. 20,000 samples fit in one keys block of 2**20 // 24 = 43,690 rows at
    # n = 24: nothing to gain, so nothing is provisional
    assert first_block_samples(24, 12, 20_000, "auto", "keys") is None
    res = study(sense_file).run(provisional=True)
    assert res.provisional_levels == () and res.provisional_of is None

    test = study(sense_file, n_samples=100_000)
    quick = first_block_samples(24, 12, 100_000, "auto", "keys")
    assert quick == (1 << 20) // 24 + 1
    first = test.run(provisional=True)
    full = test.run()
    assert first.provisional_levels == LEVELS and first.provisional_of == 100_000
    assert full.provisional_levels == () and full.provisional_of is None
    for level in LEVELS:
        a, b = first.core(level), full.core(level)
        assert a.effect_size == b.effect_size  # d is final at once
        assert a.n_permutations == quick and b.n_permutations == 100_000
        np.testing.assert_array_equal(a.null_distribution, b.null_distribution[: quick - 1])
        assert abs(a.pvalue - b.pvalue) < 5 * np.sqrt(max(b.pvalue, 1e-3) / quick)  # within Monte Carlo error
    # p of the sense level, re-derived from the metric core on the same vectors with the quick sample count
    vecs = load_sense_file(sense_file)
    groups = [[vecs.vectors(vecs.keys_of(w)) for w in s] for s in (TARG1, TARG2, ATTR1, ATTR2)]
    direct = sense_weat(*groups, n_samples=quick, rng=3, sampler="keys").result
    assert first.pvalue == direct.pvalue and first.effect_size == pytest.approx(direct.effect_size)
    assert "provisional" in first.summary() and "provisional" not in full.summary()
    assert first.to_dict()["provisional_of"] == 100_000 and "provisional_of" not in full.to_dict()


def test_a_sense_pick_of_a_seen_lemma_reuses_the_full_twins(sense_file):
    test = study(sense_file, n_samples=100_000)
    full = test.run()
    test.set_items("targ1", [f"{TARG1[0]}%1:20:00::", *TARG1[1:]])  # rose, the flower sense: same lemmas
    first = test.run(provisional=True)
    assert first.provisional_levels == ("sense",)
    assert first.core("word_average").pvalue == full.core("word_average").pvalue
    assert first.core("word_average").n_permutations == 100_000
    assert first.provisional_of_level("sense") == 100_000 and first.provisional_of_level("word_max") is None


def test_the_explorer_draws_d_with_a_provisional_p_then_the_full_p(sense_file):
    explorer = SenseWeatExplorer(study(sense_file, n_samples=100_000))
    drawn = []
    bars = explorer.sense_bars
    explorer.sense_bars.observe(lambda c: drawn.append((bars.p_provisional, bars.p_value, bars.effect_size,
                                                        bars.method_text, bars.busy)), names="revision")
    explorer.selectors["targ2"].set_state({"selected": TARG2[1:]})  # one edit
    want = study(sense_file, n_samples=100_000)
    want.set_items("targ2", TARG2[1:])
    first, full = want.run(provisional=True), want.run()
    shown = [row for row in drawn if row[1] is not None]
    assert [row[0] for row in shown] == [True, False]
    assert shown[0][1] == first.pvalue and shown[1][1] == full.pvalue
    assert shown[0][2] == shown[1][2] == pytest.approx(full.effect_size)
    assert "provisional p" in shown[0][3] and "provisional" not in shown[1][3]
    assert shown[0][4] and not shown[1][4]  # busy until the full p is drawn
    assert not explorer.sense_bars.busy and not explorer.sense_bars.p_provisional
    assert explorer.first_ms is not None and explorer.first_ms <= explorer.elapsed_ms


def test_without_progressive_one_full_run(sense_file):
    explorer = SenseWeatExplorer(study(sense_file, n_samples=100_000), progressive=False)
    revisions = []
    explorer.sense_bars.observe(lambda c: revisions.append(explorer.sense_bars.p_provisional), names="revision")
    explorer.selectors["targ2"].set_state({"selected": TARG2[1:]})
    assert True not in revisions
    assert explorer.result.provisional_levels == ()
