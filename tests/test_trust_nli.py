"""NLI intervals and template sensitivity (issue 28): NN's t and FN's/T's Wilson intervals at both levels
against scipy on the per-pair rows, the statistics' sums of squares across chunks, NN and FN per template
against a direct grouping, one template's heatmap, and ``embias nli --level --by-template``."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from _tiny_nli import Keyed
from scipy import stats

from embias_widgets.analysis.nli import NliProbe
from embias_widgets.analysis.nli.templates import template_label
from embias_widgets.cli import main
from embias_widgets.metrics.neutrality import NeutralityStats, nli_intervals
from embias_widgets.stimuli.nli_probes import TemplateProbe, templates, user_probe


@pytest.fixture(scope="module")
def result():
    source = TemplateProbe("tiny", ["rude", "kind"], ["Iraqi", "Welsh", "Dutch"], template_list=templates()[::200],
                           person=True)
    return NliProbe(source, Keyed(), chunk_size=7, top_k=3, taus=(0.4, 0.6)).run(per_pair=True)


def _wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(level, method="wilson")
    return ci.low, ci.high


def test_intervals_at_both_levels_equal_scipy(result) -> None:
    table = result.pairs_table()
    P = table[["entailment", "neutral", "contradiction"]].to_numpy()
    d = result.to_dict(level=0.9)
    pairs, words = d["pairs"], d["word_pairs"]
    n = len(P)
    assert pairs["n"] == n and words["n"] == 6
    lo, hi = stats.t.interval(0.9, n - 1, loc=P[:, 1].mean(), scale=stats.sem(P[:, 1]))
    assert (pairs["net_neutral_interval"]["low"], pairs["net_neutral_interval"]["high"]) == pytest.approx((lo, hi))
    k = int(np.sum(P.argmax(axis=1) == 1))
    assert (pairs["fraction_neutral_interval"]["low"], pairs["fraction_neutral_interval"]["high"]) == \
        pytest.approx(_wilson(k, n, 0.9))
    k4 = int(np.sum(P[:, 1] > 0.4))
    assert pairs["threshold_0.4_interval"]["low"] == pytest.approx(_wilson(k4, n, 0.9)[0])
    M = table.groupby(["premise_word", "hypothesis_word"], sort=False)[["entailment", "neutral",
                                                                        "contradiction"]].mean().to_numpy()
    lo, hi = stats.t.interval(0.9, 5, loc=M[:, 1].mean(), scale=stats.sem(M[:, 1]))
    assert words["net_neutral_interval"]["low"] == pytest.approx(lo)
    assert words["fraction_neutral_interval"]["high"] == pytest.approx(_wilson(int(np.sum(M.argmax(1) == 1)), 6,
                                                                               0.9)[1])
    assert "sentence pairs" in pairs["net_neutral_interval"]["method"]
    assert "template means" in words["fraction_neutral_interval"]["method"]
    assert pairs["net_neutral_interval"]["level"] == 0.9


def test_nli_intervals_moved_to_the_metric_core_unchanged() -> None:
    neutral = np.full(20, 0.5) + np.arange(20) / 100
    got = nli_intervals(neutral, np.arange(20) < 7)
    lo, hi = stats.t.interval(0.95, 19, loc=neutral.mean(), scale=stats.sem(neutral))
    assert got["nn"] == pytest.approx((lo, hi)) and got["fn"] == pytest.approx(_wilson(7, 20))


def test_sums_of_squares_add_across_chunks_and_unknown_stays_unknown() -> None:
    rng = np.random.default_rng(0)
    P = rng.dirichlet([1, 2, 1], size=40)
    words = [("a", "x"), ("a", "y"), ("b", "x")]
    pw = [words[i % 3][0] for i in range(40)]
    hw = [words[i % 3][1] for i in range(40)]
    whole = NeutralityStats.from_probs(P, pw, hw)
    parts = NeutralityStats.combine([NeutralityStats.from_probs(P[:13], pw[:13], hw[:13]),
                                     NeutralityStats.from_probs(P[13:], pw[13:], hw[13:])])
    a, b = whole.intervals()["pairs"]["net_neutral"], parts.intervals()["pairs"]["net_neutral"]
    assert (a.low, a.high) == pytest.approx((b.low, b.high), abs=1e-12)
    old = NeutralityStats(whole.taus, whole.keys, whole.count, whole.sums, whole.argmax, whole.above)
    assert old.squares is None and old.intervals()["pairs"]["net_neutral"] is None
    assert old.merge(whole).squares is None
    assert old.intervals()["pairs"]["fraction_neutral"] is not None


def test_templates_equal_a_direct_grouping(result) -> None:
    t = result.templates(level=0.9)
    P = result.pairs_table()[["entailment", "neutral", "contradiction"]].to_numpy()
    tpls = result.source.templates
    labels = [template_label(tpls[i % len(tpls)].verb, tpls[i % len(tpls)].object) for i in range(len(P))]
    assert t["n_templates"] == len(tpls) == len(t["rows"])
    for row in t["rows"]:
        mask = np.array([lab == row["template"] for lab in labels])
        assert row["n"] == 6 and row["net_neutral"] == pytest.approx(P[mask, 1].mean())
        assert row["fraction_neutral"] == pytest.approx(np.mean(P[mask].argmax(axis=1) == 1))
        assert row["net_neutral_interval"]["level"] == 0.9
    nn = {r["template"]: r["net_neutral"] for r in t["rows"]}
    assert t["most_neutral"]["template"] == max(nn, key=nn.get)
    assert t["least_neutral"]["template"] == min(nn, key=nn.get)
    assert t["spread"] == pytest.approx(max(nn.values()) - min(nn.values()))
    assert result.to_dict()["templates"]["rows"][0]["template"] == t["rows"][0]["template"]


def test_one_template_heatmap(result) -> None:
    tpls = result.source.templates
    name = template_label(tpls[2].verb, tpls[2].object)
    grid = result.template_heatmap(name, "neutral", ["rude", "kind"], ["Iraqi", "Welsh", "Dutch", "nobody"])
    block = result.source.word_pair_range("kind", "Welsh")
    table = result.pairs_table().set_index("index")
    assert grid[1][1] == pytest.approx(table.loc[block.start + 2, "neutral"])
    assert grid[0][3] is None
    with pytest.raises(ValueError, match="no scored pair uses the template"):
        result.template_heatmap("ate a moon", "neutral", ["rude"], ["Iraqi"])


def test_no_per_pair_rows_no_templates_key() -> None:
    source = user_probe(["rude"], ["Iraqi"], person=True)
    run = NliProbe(source, Keyed(), limit=20).run()
    assert "templates" not in run.to_dict()
    with pytest.raises(ValueError, match="per_pair=True"):
        run.templates()


def test_cli_level_and_by_template(tmp_path) -> None:
    from _tiny_nli import tiny_nli_dir

    out = io.StringIO()
    code = main(["nli", "--probe", "religion-polarity", "--model", str(tiny_nli_dir()), "--limit", "30",
                 "--format", "json", "--level", "0.8", "--by-template", "--device", "cpu"], out=out)
    assert code == 0
    obj = json.loads(out.getvalue())
    assert obj["pairs"]["net_neutral_interval"]["level"] == 0.8
    assert obj["templates"]["most_neutral"]["template"] and obj["templates"]["n_templates"] == 30
    out = io.StringIO()
    assert main(["nli", "--probe", "religion-polarity", "--model", str(tiny_nli_dir()), "--limit", "30",
                 "--by-template", "--device", "cpu"], out=out) == 0
    text = out.getvalue()
    assert "most neutral" in text and "intervals (0.95)" in text and "[" in text


def test_frame_and_summary_carry_the_intervals(result) -> None:
    frame = result.frame(level=0.9).set_index(["level", "measure"])
    d = result.to_dict(level=0.9)
    for name in ("pairs", "word_pairs"):
        iv = d[name]["fraction_neutral_interval"]
        assert frame.loc[(name, "fraction_neutral"), "low"] == iv["low"]
        assert frame.loc[(name, "net_neutral"), "high"] == d[name]["net_neutral_interval"]["high"]
    nn = result.to_dict()["pairs"]["net_neutral_interval"]
    assert f"[{nn['low']:.4f}, {nn['high']:.4f}]" in result.summary()


def test_a_resumed_run_keeps_every_interval(tmp_path) -> None:
    """Chunk files keep the sums of squares, so a run resumed from --results-dir has NN's sentence-pair interval
    too, equal to the uninterrupted run's; a chunk file without them leaves only that interval undefined."""
    from embias_widgets.analysis.nli.chunks import ChunkResult

    source = TemplateProbe("tiny", ["rude", "kind"], ["Iraqi", "Welsh"], template_list=templates()[::300],
                           person=True)
    class Fingerprinted(Keyed):
        calls = 0

        def fingerprint(self) -> str:
            return "keyed-v1"  # its scores are a fixed function of the pair

        def predict(self, premises, hypotheses):
            self.calls += 1
            return super().predict(premises, hypotheses)

    first = NliProbe(source, Fingerprinted(), chunk_size=5, top_k=3).run(results_dir=tmp_path)
    resumed = Fingerprinted()
    again = NliProbe(source, resumed, chunk_size=5, top_k=3).run(results_dir=tmp_path)
    assert resumed.calls == 0  # every chunk read back from its file
    assert first.to_dict()["pairs"]["net_neutral_interval"] is not None
    assert again.to_dict()["pairs"] == first.to_dict()["pairs"]
    path = next(p for p in sorted(tmp_path.rglob("*.npz")))
    chunk = ChunkResult.load(path)
    assert chunk.stats.squares is not None
    with np.load(path) as z:  # a chunk file of an earlier version: no squares stored
        np.savez(path, **{k: z[k] for k in z.files if k != "squares"})
    assert ChunkResult.load(path).stats.squares is None
