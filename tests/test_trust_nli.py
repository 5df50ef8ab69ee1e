"""NLI intervals and template sensitivity: the two-way bootstrap over templates and word pairs at both levels
against a replicate-by-replicate re-implementation on the per-pair rows and against the two-way cluster variance
computed by hand, the statistics' sums across chunks and in chunk files, NN and FN per template against a
direct grouping, one template's heatmap, and ``embias nli --level --by-template``."""

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


def _two_way_by_hand(P, words, tmpl, taus, level, n_resamples, seed):
    """The two-way bootstrap re-done from the per-pair rows, replicate by replicate (the library works from
    sufficient statistics, vectorised): the same draws (one batch: word-pair counts, then template counts)."""
    wkeys, tkeys = list(dict.fromkeys(words)), list(dict.fromkeys(tmpl))
    wi = np.array([wkeys.index(w) for w in words])
    ti = np.array([tkeys.index(t) for t in tmpl])
    W, T, N = len(wkeys), len(tkeys), len(P)
    x = np.column_stack([P[:, 1], P.argmax(axis=1) == 1, *[P[:, 1] > t for t in taus]]).astype(float)
    m = x.mean(axis=0)
    Ht = np.array([x[ti == t].sum(axis=0) for t in range(T)])
    nt = np.array([np.sum(ti == t) for t in range(T)])
    U = (Ht - nt[:, None] * m) / N
    v_t = (U ** 2).sum(axis=0)
    v_tw = ((x - m) ** 2).sum(axis=0) / N ** 2
    lam = np.sqrt(np.clip(v_t - v_tw, 0, None) / v_t)
    St = np.array([P[ti == t].sum(axis=0) for t in range(T)])
    D = (St - nt[:, None] * P.mean(axis=0)) / N
    M = np.array([P[wi == w].mean(axis=0) for w in range(W)])
    rng = np.random.default_rng(seed)
    b_idx, a_idx = rng.integers(0, W, (n_resamples, W)), rng.integers(0, T, (n_resamples, T))
    pair_reps, word_reps = [], []
    for bi, ai in zip(b_idx, a_idx, strict=True):
        b, a = np.bincount(bi, minlength=W), np.bincount(ai, minlength=T) - 1.0
        weight = b[wi]  # every sentence pair of a drawn word pair, as often as it was drawn
        pair_reps.append((weight[:, None] * x).sum(axis=0) / weight.sum() + lam * (a @ U))
        Mr = M + lam[0] * (a @ D)
        vals = [Mr[:, 1], Mr.argmax(axis=1) == 1, *[Mr[:, 1] > t for t in taus]]
        word_reps.append([np.sum(b * v) / b.sum() for v in vals])
    Hw = np.array([x[wi == w].sum(axis=0) for w in range(W)])
    nw = np.array([np.sum(wi == w) for w in range(W)])
    v_w = (((Hw - nw[:, None] * m) / N) ** 2).sum(axis=0)
    v_t = lam ** 2 * v_t
    df = (v_w + v_t) ** 2 / (v_w ** 2 / (W - 1) + v_t ** 2 / (T - 1))  # Satterthwaite
    z = np.sqrt((df + 1) / df) * stats.t.ppf((1 + level) / 2, df)  # Hesterberg's expanded percentile
    wide = 2 * stats.norm.cdf(z) - 1

    def quantiles(reps, widths):
        return np.array([np.quantile(r, [(1 - a) / 2, (1 + a) / 2]) for r, a in zip(reps.T, widths,
                                                                                   strict=True)]).T

    pair_iv = np.clip(quantiles(np.array(pair_reps), wide), 0, 1)
    word_iv = np.clip(quantiles(np.array(word_reps), [wide[0]] * len(wide)), 0, 1)
    share = np.array([(M.argmax(axis=1) == 1).mean(), *[(M[:, 1] > t).mean() for t in taus]])
    for j, s in enumerate(share, start=1):  # a share over word pairs: never narrower than Wilson's
        lo, hi = _wilson(round(s * W), W, level)
        word_iv[:, j] = min(word_iv[0, j], lo), max(word_iv[1, j], hi)
    return pair_iv, word_iv


def test_two_way_intervals_equal_a_replicate_by_replicate_reimplementation(result) -> None:
    from embias_widgets.metrics.neutrality_intervals import two_way_intervals

    table = result.pairs_table()
    P = table[["entailment", "neutral", "contradiction"]].to_numpy()
    words = list(zip(table["premise_word"], table["hypothesis_word"], strict=True))
    tpls = result.source.templates
    tmpl = [template_label(tpls[i % len(tpls)].verb, tpls[i % len(tpls)].object) for i in table["index"]]
    got = two_way_intervals(result.stats, level=0.9, n_resamples=400, seed=3, batch=400)
    pair_iv, word_iv = _two_way_by_hand(P, words, tmpl, (0.4, 0.6), 0.9, 400, 3)
    names = ["net_neutral", "fraction_neutral", "threshold_0.4", "threshold_0.6"]
    for j, name in enumerate(names):
        assert (got["pairs"][name].low, got["pairs"][name].high) == pytest.approx(tuple(pair_iv[:, j]), abs=1e-12)
        assert (got["word_pairs"][name].low, got["word_pairs"][name].high) == pytest.approx(tuple(word_iv[:, j]),
                                                                                            abs=1e-12)
    method = got["pairs"]["net_neutral"].method
    assert "6 word pairs" in method and "10 templates" in method and "not resampled" in method


def test_intervals_in_the_json_at_both_levels(result) -> None:
    d = result.to_dict(level=0.9)
    pairs, words = d["pairs"], d["word_pairs"]
    assert pairs["n"] == 60 and words["n"] == 6 and d["n_templates"] == 10
    again = result.stats.intervals(0.9)
    assert pairs["net_neutral_interval"]["low"] == again["pairs"]["net_neutral"].low
    assert pairs["net_neutral_interval"]["level"] == 0.9
    assert "templates and word pairs" in pairs["net_neutral_interval"]["method"]
    assert "word pairs of their means over templates" in words["fraction_neutral_interval"]["method"]


def _crossed(T: int, W: int, sa: float, sb: float, se: float, seed: int = 0):
    """Neutral logits mu + a_t + b_w + e_tw over T templates x W word pairs (entailment = contradiction)."""
    rng = np.random.default_rng(seed)
    eta = 0.3 + rng.normal(0, sa, T)[:, None] + rng.normal(0, sb, W)[None, :] + rng.normal(0, se, (T, W))
    n = np.exp(eta) / (np.exp(eta) + 2)
    P = np.stack([(1 - n) / 2, n, (1 - n) / 2], axis=-1).reshape(-1, 3)
    return P, np.tile([f"w{i}" for i in range(W)], T), np.repeat([f"t{i}" for i in range(T)], W)


def test_bootstrap_variance_is_the_two_way_cluster_variance() -> None:
    """Var of the sentence-pair replicates = V_W + V_T - V_TW (Cameron, Gelbach & Miller 2011), computed by hand
    from the pairs; with no template or word-pair effect the template part shrinks away."""
    from embias_widgets.metrics.neutrality_intervals import two_way_intervals

    P, w, t = _crossed(40, 30, 0.6, 0.4, 0.5)
    stats_ = NeutralityStats.from_probs(P, w, ["h"] * len(w), taus=(0.5,), templates=t)
    n, N = P[:, 1], len(P)
    m = n.mean()
    groups = {key: np.asarray([g == key for g in labels]) for labels in (w, t) for key in set(labels)}
    v_w = sum(((n[groups[k]] - m).sum() / N) ** 2 for k in set(w))
    v_t = sum(((n[groups[k]] - m).sum() / N) ** 2 for k in set(t))
    v_tw = ((n - m) ** 2).sum() / N ** 2
    import embias_widgets.metrics.neutrality_intervals as ni

    def shrink_and_replicates(stats_, reps):
        _, per_word, squares = ni._measures(stats_)
        part = ni._template_part(stats_, per_word.sum(axis=0) / stats_.n_pairs, squares)
        return part[1], ni._replicates(stats_, per_word, part, np.random.default_rng(0), reps)[0]

    lam, pair = shrink_and_replicates(stats_, 20_000)
    assert np.var(pair[:, 0]) == pytest.approx(v_w + v_t - v_tw, rel=0.05)
    assert lam[0] == pytest.approx(np.sqrt((v_t - v_tw) / v_t), rel=1e-9)
    noise, w0, t0 = _crossed(40, 30, 0.0, 0.0, 1.0, seed=1)  # no template effect: almost nothing left to shift
    lam0, _ = shrink_and_replicates(NeutralityStats.from_probs(noise, w0, ["h"] * len(w0), templates=t0), 10)
    assert lam0[0] < 0.5
    iv = two_way_intervals(stats_)["pairs"]["net_neutral"]
    assert iv.low < m < iv.high


def test_one_word_pair_resamples_templates_only_and_one_pair_gives_none() -> None:
    P, w, t = _crossed(25, 1, 0.6, 0.0, 0.3)
    one = NeutralityStats.from_probs(P, w, ["h"] * len(w), templates=t).intervals()
    assert one["pairs"]["net_neutral"].high > one["pairs"]["net_neutral"].low
    assert "one word pair" in one["pairs"]["net_neutral"].method
    single = NeutralityStats.from_probs(P[:1], w[:1], ["h"], templates=t[:1]).intervals()
    assert single["pairs"]["net_neutral"] is None and single["word_pairs"]["fraction_neutral"] is None
    no_templates = NeutralityStats.from_probs(*_crossed(5, 8, 0.5, 0.5, 0.5)[:2], ["h"] * 40).intervals()
    assert "templates not recorded" in no_templates["pairs"]["net_neutral"].method


def test_nli_intervals_moved_to_the_metric_core_unchanged() -> None:
    neutral = np.full(20, 0.5) + np.arange(20) / 100
    got = nli_intervals(neutral, np.arange(20) < 7)
    lo, hi = stats.t.interval(0.95, 19, loc=neutral.mean(), scale=stats.sem(neutral))
    assert got["nn"] == pytest.approx((lo, hi)) and got["fn"] == pytest.approx(_wilson(7, 20))


def test_sums_add_across_chunks_and_unknown_squares_stay_unknown() -> None:
    rng = np.random.default_rng(0)
    P = rng.dirichlet([1, 2, 1], size=40)
    words = [("a", "x"), ("a", "y"), ("b", "x")]
    pw = [words[i % 3][0] for i in range(40)]
    hw = [words[i % 3][1] for i in range(40)]
    tl = [f"t{i % 5}" for i in range(40)]
    whole = NeutralityStats.from_probs(P, pw, hw, templates=tl)
    parts = NeutralityStats.combine([NeutralityStats.from_probs(P[:13], pw[:13], hw[:13], templates=tl[:13]),
                                     NeutralityStats.from_probs(P[13:], pw[13:], hw[13:], templates=tl[13:])])
    assert parts.templates.keys == whole.templates.keys
    np.testing.assert_allclose(parts.templates.sums, whole.templates.sums, atol=1e-12)
    a, b = whole.intervals()["pairs"]["net_neutral"], parts.intervals()["pairs"]["net_neutral"]
    assert (a.low, a.high) == pytest.approx((b.low, b.high), abs=1e-12)
    old = NeutralityStats(whole.taus, whole.keys, whole.count, whole.sums, whole.argmax, whole.above)
    assert old.squares is None and old.merge(whole).squares is None and old.merge(whole).templates is None
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
    """Chunk files keep the sums of squares and the per-template sums, so a run resumed from --results-dir has
    the same two-way intervals as the uninterrupted run; a chunk file without them is refused and re-scored."""
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
    assert chunk.stats.squares is not None and chunk.stats.templates is not None
    assert sum(chunk.stats.templates.count) == chunk.stop - chunk.start
    with np.load(path) as z:  # a chunk without the per-template sums (an earlier layout): refused, re-scored
        np.savez(path, **{k: z[k] for k in z.files if k not in ("tkeys", "tcount", "tsums", "targmax", "tabove")})
    with pytest.raises(KeyError, match="per-template sums"):
        ChunkResult.load(path)
    redone = Fingerprinted()
    third = NliProbe(source, redone, chunk_size=5, top_k=3).run(results_dir=tmp_path)
    assert redone.calls == 1 and any(path.name in note and "re-scored" in note for note in third.notes)
    assert third.to_dict()["pairs"] == first.to_dict()["pairs"]


def test_a_pairs_file_names_each_template_by_its_frame() -> None:
    """A pairs file in the authors' layout has no verb and object: the template is the premise's frame after the
    slot word, so its pairs group by template as the probe's do (and give the same intervals, test_nli_cli)."""
    from embias_widgets.analysis.nli.chunks import template_key

    assert template_key("bought", "apple", "", "", "") == "bought an apple"
    assert template_key("", "", "X1 bought Y", "The awful person bought an apple.", "awful") == \
        "person bought an apple."
    assert template_key("", "", "X1 bought Y", "An Awful person bought an apple.", "awful") == \
        "person bought an apple."
    assert template_key("", "", "X1 bought Y", "Nobody bought it.", "awful") == "X1 bought Y"


def test_word_pair_shares_warn_when_few_templates_leave_their_means_noisy() -> None:
    """The pairs' own noise over 8 templates swamps a small spread between word pairs: the word-pair shares are
    then biased (the calibration suite measured 0.89 coverage), and their method text says so; with 200
    templates it does not."""
    from embias_widgets.metrics.neutrality_intervals import noisy_word_means

    P, w, t = _crossed(8, 30, 0.1, 0.3, 1.5, seed=2)
    noisy = NeutralityStats.from_probs(P, w, ["h"] * len(w), templates=t)
    share = noisy_word_means(noisy)
    # by hand: the pairs' own variance (within a word pair, less the template means' variance) over 8 templates
    n = P[:, 1].reshape(8, 30)
    own = n.var(axis=0, ddof=1).mean() - n.mean(axis=1).var(ddof=1)
    assert share == pytest.approx(own / 8 / n.mean(axis=0).var(ddof=1))
    assert share > 0.3 and "warning" in noisy.intervals()["word_pairs"]["fraction_neutral"].method
    assert "warning" not in noisy.intervals()["pairs"]["fraction_neutral"].method
    P, w, t = _crossed(200, 30, 0.1, 0.3, 1.5, seed=2)
    calm = NeutralityStats.from_probs(P, w, ["h"] * len(w), templates=t)
    assert noisy_word_means(calm) < 0.3 and "warning" not in calm.intervals()["word_pairs"]["fraction_neutral"].method
