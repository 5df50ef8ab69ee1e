"""NliProbe: local engine against a direct computation, resume, partial results, Dask equals local."""

import socket

import numpy as np
import pytest
from _tiny_lm import one_thread
from _tiny_nli import tiny_nli_dir

from embias_widgets.analysis.nli import NliProbe, NliRunError, debias_comparison
from embias_widgets.metrics.neutrality import scores_from_probs
from embias_widgets.models.nli_classifiers import load_nli_model
from embias_widgets.stimuli.nli_probes import load_probe, user_probe, write_pairs_csv

_threads = pytest.fixture(autouse=True)(one_thread)


def small_probe():
    return load_probe("gender-occupation", premise_words=["nurse", "pilot", "chef"],
                      hypothesis_words=["man", "woman"])


class Keyed:
    """A deterministic fake classifier: probabilities from a hash of the pair (no model)."""

    name, description = "keyed", "hash-based probabilities"
    fingerprint = "keyed-dirichlet-1-2-1"  # its scores depend on nothing else (a resumable run needs one)

    def predict(self, premises, hypotheses):
        out = []
        for p, h in zip(premises, hypotheses, strict=True):
            r = np.random.default_rng(abs(hash((p, h))) % 2**32)
            out.append(r.dirichlet([1, 2, 1]))
        return np.array(out)


def direct(source, clf, n):
    chunk = source.chunk(0, n)
    return chunk, clf.predict(chunk.premises, chunk.hypotheses)


def test_local_run_equals_a_direct_computation():
    source = user_probe(["rude", "kind", "smart"], ["Iraqi", "Welsh"], person=True)
    clf = Keyed()
    result = NliProbe(source, clf, chunk_size=500, top_k=5, limit=3000).run()
    chunk, P = direct(source, clf, 3000)
    assert result.n_scored == 3000 and result.n_pairs == 3000
    assert result.scores().to_dict()["pairs"] == pytest.approx(scores_from_probs(P), rel=1e-12)
    keys = list(dict.fromkeys(zip(chunk.premise_words, chunk.hypothesis_words, strict=True)))
    means = np.array([P[[i for i in range(3000) if (chunk.premise_words[i], chunk.hypothesis_words[i]) == k]]
                      .mean(axis=0) for k in keys])
    assert result.scores().to_dict()["word_pairs"]["net_neutral"] == pytest.approx(means[:, 1].mean(), rel=1e-12)
    top = result.top_pairs("contradiction")
    assert top["index"].tolist() == np.argsort(-P[:, 2], kind="stable")[:5].tolist()
    np.testing.assert_allclose(top["contradiction"], np.sort(P[:, 2])[::-1][:5])
    assert top["premise"][0] == chunk.premises[top["index"][0]]
    rude_iraqi = result.slice("rude", "Iraqi").to_dict()
    mask = [(a, b) == ("rude", "Iraqi") for a, b in zip(chunk.premise_words, chunk.hypothesis_words, strict=True)]
    assert rude_iraqi["pairs"] == pytest.approx(scores_from_probs(P[mask]))
    assert result.notes and "first 3,000 of" in result.notes[0]
    summary = result.to_dict()
    # every measure has its interval beside it and the n it was computed from (issue 28)
    measures = {k for k in summary["pairs"] if not k.endswith("_interval")}
    assert measures == {"net_neutral", "fraction_neutral", "threshold_0.5", "threshold_0.7", "n"}
    assert len(result.word_pairs_table()) == 2 and set(result.frame()["level"]) == {"pairs", "word_pairs"}
    result.chart().to_dict()
    result.heatmap("contradiction").to_dict()


def test_partial_results_arrive_and_a_rerun_resumes(tmp_path):
    source = small_probe()
    seen = []
    NliProbe(source, Keyed(), chunk_size=1000, limit=4500).run(
        results_dir=tmp_path, on_chunk=lambda r: seen.append(r.n_scored))
    assert seen == [1000, 2000, 3000, 4000, 4500]
    files = sorted(tmp_path.glob("chunk_*.npz"))
    assert len(files) == 5
    full = NliProbe(source, Keyed(), chunk_size=1000, limit=4500).run()
    # simulate an interrupted run: two chunks lost; the re-run scores only those
    files[1].unlink()
    files[3].unlink()
    calls = []

    class Counting(Keyed):
        def predict(self, premises, hypotheses):
            calls.append(len(premises))
            return super().predict(premises, hypotheses)

    again = NliProbe(source, Counting(), chunk_size=1000, limit=4500)
    again.model_spec.name = "keyed"
    resumed = again.run(results_dir=tmp_path)
    assert sorted(calls) == [1000, 1000]
    assert resumed.scores() == full.scores()
    with pytest.raises(NliRunError, match=r"another run .*chunk_size"):
        NliProbe(source, Keyed(), chunk_size=999, limit=4500).run(results_dir=tmp_path)


def test_per_pair_rows_and_csv_source(tmp_path):
    probe = small_probe()
    path = tmp_path / "pairs.csv"
    write_pairs_csv(probe.iter_pairs(0, 700), path)
    clf = load_nli_model(str(tiny_nli_dir()), device="cpu")
    from_csv = NliProbe(str(path), clf, chunk_size=256).run(per_pair=True)
    from_probe = NliProbe(probe, clf, chunk_size=256, limit=700).run(per_pair=True)
    assert from_csv.scores() == from_probe.scores()
    rows = from_csv.pairs_table()
    assert len(rows) == 700 and list(rows.columns[-3:]) == ["entailment", "neutral", "contradiction"]
    import pandas as pd

    assert from_csv.write_pairs_csv(tmp_path / "out.csv") == 700
    back = pd.read_csv(tmp_path / "out.csv")
    assert list(back.columns[:7]) == ["id", "pair type", "premise_filler_word", "hypothesis_filler_word",
                                      "template_type", "premise", "hypothesis"]
    np.testing.assert_array_equal(back["neutral"].to_numpy(), rows["neutral"].to_numpy())
    P = clf.predict(rows["premise"].tolist(), rows["hypothesis"].tolist())
    np.testing.assert_allclose(rows[["entailment", "neutral", "contradiction"]].to_numpy(), P, rtol=1e-6)


def test_bad_run_options():
    with pytest.raises(ValueError, match="chunk_size"):
        NliProbe(small_probe(), Keyed(), chunk_size=0)
    with pytest.raises(ValueError, match="unknown engine"):
        NliProbe(small_probe(), Keyed()).run(engine="spark")
    with pytest.raises(ValueError, match="limit"):
        NliProbe(small_probe(), Keyed(), limit=0)


def test_a_scheduler_that_does_not_answer_fails_fast():
    import time

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    with pytest.raises(NliRunError, match=f"no Dask scheduler answers at tcp://127.0.0.1:{port} within 2 s"):
        NliProbe(small_probe(), Keyed(), limit=10).run(scheduler=f"tcp://127.0.0.1:{port}", connect_timeout=2)
    assert time.perf_counter() - t0 < 20


@pytest.mark.slow
def test_dask_local_cluster_equals_the_local_engine_exactly(tmp_path):
    model = str(tiny_nli_dir())
    probe = small_probe()
    options = {"device": "cpu"}
    local = NliProbe(probe, model, chunk_size=300, top_k=4, limit=1500, model_options=options).run()
    seen = []
    dist = NliProbe(probe, model, chunk_size=300, top_k=4, limit=1500, model_options=options).run(
        workers=2, results_dir=tmp_path, on_chunk=lambda r: seen.append(r.n_scored))
    assert dist.engine == "dask" and local.engine == "local"
    assert dist.scores() == local.scores()  # exactly: same chunks, same order of sums
    np.testing.assert_array_equal(dist.stats.sums, local.stats.sums)
    for by in ("entailment", "contradiction"):
        assert dist.top[by].indices.tolist() == local.top[by].indices.tolist()
    np.testing.assert_array_equal(dist.stats.templates.sums, local.stats.templates.sums)
    assert dist.stats.templates.keys == local.stats.templates.keys  # the per-template sums the intervals resample
    assert dist.to_dict()["pairs"] == local.to_dict()["pairs"]  # so the same two-way intervals
    assert sorted(seen) == [300, 600, 900, 1200, 1500]
    assert len(list(tmp_path.glob("chunk_*.npz"))) == 5


def test_debias_comparison_before_after_random():
    clf = load_nli_model(str(tiny_nli_dir()), device="cpu")
    table = debias_comparison(small_probe(), clf, limit=400, chunk_size=200)
    assert set(table["variant"]) == {"before", "debiased", "random direction"}
    wide = table.pivot_table(index=["level", "measure"], columns="variant", values="value")
    assert len(wide) == 8
    assert not np.allclose(wide["before"], wide["debiased"])


def test_one_word_pair_and_one_typed_pair_on_demand():
    source = small_probe()
    clf = Keyed()
    probe = NliProbe(source, clf)
    rows = probe.word_pair_rows("pilot", "woman", limit=30)
    assert len(rows) == 30 and rows["premise"][0] == "A pilot bought an apple ."
    assert rows["hypothesis"][0] == "A woman bought an apple ."
    assert rows["index"][0] == (1 * 2 + 1) * 1968
    P = clf.predict(rows["premise"].tolist(), rows["hypothesis"].tolist())
    np.testing.assert_allclose(rows[["entailment", "neutral", "contradiction"]].to_numpy(), P)
    assert len(probe.word_pair_rows("pilot", "woman")) == 1968
    one = probe.predict_pair("The nurse ate a bagel.", "The man ate a bagel.")
    assert set(one) == {"entailment", "neutral", "contradiction"} and sum(one.values()) == pytest.approx(1)
    from embias_widgets.stimuli.nli_probes import ProbeError

    with pytest.raises(ProbeError, match="not a word pair"):
        probe.word_pair_rows("pilot", "king")


def test_stop_returns_the_partial_result():
    probe = NliProbe(small_probe(), Keyed(), chunk_size=500, limit=5000)

    def after_two(result):
        if result.n_scored >= 1000:
            probe.stop()

    partial = probe.run(on_chunk=after_two)
    assert partial.n_scored == 1000 and not partial.complete and partial.n_pairs == 5000
    assert probe.run().complete  # a new run starts afresh
