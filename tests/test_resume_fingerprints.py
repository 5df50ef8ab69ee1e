"""A resumed NLI run proves it is the same run: content fingerprints of pairs, model and options.

Refused: an edited pairs CSV (same name, count and first id), weights retrained into the same folder, an
option that changes scores, chunks without a manifest, an old manifest. Resumed: the exact same run (equal
to a fresh one). ``fresh=True`` starts over. Damaged chunks are named in a note and re-scored.
"""

import io
import json
import shutil
import zipfile

import numpy as np
import pytest
from _tiny_lm import one_thread
from _tiny_nli import build_tiny_nli, tiny_nli_dir, tiny_tokenizer

from embias_widgets.analysis.nli import NliProbe, NliRunError
from embias_widgets.cli import main
from embias_widgets.stimuli.nli_probes import load_probe, write_pairs_csv

_threads = pytest.fixture(autouse=True)(one_thread)


class Counting:
    """A deterministic classifier (probabilities from a hash of the pair) that counts the pairs it scores."""

    name, description = "counting", "hash-based probabilities"

    def __init__(self, fingerprint="counting-v1"):
        self.fingerprint = fingerprint
        self.calls = []

    def predict(self, premises, hypotheses):
        self.calls.append(len(premises))
        return np.array([np.random.default_rng(abs(hash((p, h))) % 2**32).dirichlet([1, 2, 1])
                         for p, h in zip(premises, hypotheses, strict=True)])


def probe():
    return load_probe("gender-occupation", premise_words=["nurse", "pilot"], hypothesis_words=["man", "woman"])


def run(results_dir, clf=None, **options):
    clf = clf or Counting()
    kwargs = {"chunk_size": 500, "limit": 2000, **options}
    fresh = kwargs.pop("fresh", False)
    return NliProbe(probe(), clf, **kwargs).run(results_dir=results_dir, fresh=fresh), clf


def test_exact_match_resumes_and_equals_a_fresh_run(tmp_path):
    first, _ = run(tmp_path)
    chunks = sorted(tmp_path.glob("chunk_*.npz"))
    assert len(chunks) == 4
    chunks[2].unlink()
    resumed, clf = run(tmp_path)
    assert clf.calls == [500]  # only the lost chunk
    plain, _ = run(None)
    assert resumed.scores() == plain.scores() == first.scores()
    np.testing.assert_array_equal(resumed.stats.sums, plain.stats.sums)
    assert resumed.notes == first.notes == (f"a subset: the first 2,000 of {len(probe()):,} pairs",)


def test_fresh_flag_reruns_every_chunk(tmp_path):
    run(tmp_path)
    redone, clf = run(tmp_path, Counting("counting-v2"), fresh=True)
    assert clf.calls == [500] * 4
    manifest = json.loads((tmp_path / "run.json").read_text())
    assert manifest["format"] == 3 and len(manifest["fingerprint"]) == 64
    again, clf = run(tmp_path, Counting("counting-v2"))
    assert clf.calls == [] and again.scores() == redone.scores()


@pytest.mark.parametrize(("change", "named"), [
    ({"taus": (0.5, 0.6)}, "taus"),
    ({"top_k": 3}, "top_k"),
    ({"chunk_size": 400}, "chunk_size"),
    ({"limit": 1500}, "n_pairs"),
    ({"model_options": {"token_budget": 64}}, "model_options"),
])
def test_an_option_that_changes_scores_is_refused(tmp_path, change, named):
    run(tmp_path)
    with pytest.raises(NliRunError, match=rf"another run .*{named}.*fresh=True .*another results directory"):
        run(tmp_path, **change)
    assert len(list(tmp_path.glob("chunk_*.npz"))) == 4  # nothing merged, nothing deleted


def test_neutral_model_options_do_not_block_a_resume(tmp_path):
    run(tmp_path, model_options={"progress": False})
    _, clf = run(tmp_path, model_options={"progress": True})
    assert clf.calls == []


def test_another_model_object_is_refused(tmp_path):
    run(tmp_path)
    with pytest.raises(NliRunError, match=r"differs in the model \(its weights"):
        run(tmp_path, Counting("counting-v2"))


def test_edited_pairs_csv_with_same_name_count_and_first_id_is_refused(tmp_path):
    pairs = tmp_path / "pairs.csv"
    write_pairs_csv(probe().iter_pairs(0, 600), pairs)
    out = tmp_path / "run"
    NliProbe(str(pairs), Counting(), chunk_size=200).run(results_dir=out)
    lines = pairs.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[300] = lines[300].rstrip("\n").rsplit(",", 1)[0] + ",A person did nothing .\n"  # a hypothesis, id kept
    assert lines[300] != pairs.read_text(encoding="utf-8").splitlines(keepends=True)[300]
    pairs.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(NliRunError, match=r"differs in the pairs \(their content hash changed"):
        NliProbe(str(pairs), Counting(), chunk_size=200).run(results_dir=out)


def test_other_template_words_are_refused(tmp_path):
    NliProbe(probe(), Counting(), chunk_size=500, limit=1000).run(results_dir=tmp_path)
    other = load_probe("gender-occupation", premise_words=["nurse", "chef"], hypothesis_words=["man", "woman"])
    with pytest.raises(NliRunError, match="differs in the pairs"):
        NliProbe(other, Counting(), chunk_size=500, limit=1000).run(results_dir=tmp_path)


def test_model_retrained_in_the_same_folder_is_refused(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(tiny_nli_dir(), folder)
    options = {"device": "cpu"}
    before = NliProbe(probe(), str(folder), chunk_size=100, limit=200, model_options=options)
    before.run(results_dir=tmp_path / "run")
    build_tiny_nli(tiny_tokenizer(), seed=1).save_pretrained(folder)  # same folder, new weights
    after = NliProbe(probe(), str(folder), chunk_size=100, limit=200, model_options=options)
    with pytest.raises(NliRunError, match=r"differs in the model"):
        after.run(results_dir=tmp_path / "run")
    # and the in-process model cache does not hand back the old weights either
    plain_before = NliProbe(probe(), str(tiny_nli_dir()), chunk_size=100, limit=200, model_options=options).run()
    plain_after = after.run()
    assert plain_after.scores() != plain_before.scores()


def test_chunks_without_a_manifest_are_never_merged(tmp_path):
    run(tmp_path)
    (tmp_path / "run.json").unlink()
    with pytest.raises(NliRunError, match=r"4 chunk file\(s\) such as chunk_000000000000_000000000500.npz but no "
                                          r"run.json manifest.*never merged"):
        run(tmp_path)


def test_a_manifest_without_fingerprint_is_refused(tmp_path):
    run(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({"probe": "gender-occupation", "n_pairs": 2000}))
    with pytest.raises(NliRunError, match="no fingerprint"):
        run(tmp_path)


def test_a_manifest_of_the_earlier_chunk_format_is_refused(tmp_path):
    """Format 2 chunks hold no per-template sums, so the two-way intervals could not be computed from them:
    such a directory is refused (never merged), naming why and the way out."""
    run(tmp_path)
    manifest = json.loads((tmp_path / "run.json").read_text())
    (tmp_path / "run.json").write_text(json.dumps({**manifest, "format": 2}))
    with pytest.raises(NliRunError, match=r"earlier version.*chunk format 2, this version reads 3.*per-template "
                                          r"sums.*fresh=True"):
        run(tmp_path)
    redone, clf = run(tmp_path, fresh=True)
    assert clf.calls == [500] * 4 and redone.n_templates == len(probe().templates)


def test_object_without_fingerprint_cannot_use_a_results_dir(tmp_path):
    class Anonymous:
        name = "anon"

        def predict(self, premises, hypotheses):
            return np.full((len(premises), 3), 1 / 3)

    with pytest.raises(NliRunError, match=r"cannot fingerprint the model object 'anon'.*fingerprint\(\) method"):
        NliProbe(probe(), Anonymous(), limit=10).run(results_dir=tmp_path)
    assert NliProbe(probe(), Anonymous(), limit=10).run().n_scored == 10  # without a results dir it runs


def _flip_data_byte(path, member="sums.npy"):
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    data = bytearray(path.read_bytes())
    name_len = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little")
    extra_len = int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
    at = info.header_offset + 30 + name_len + extra_len + info.file_size - 3  # inside the array's bytes
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["empty", "truncated", "bad-crc", "garbage"])
def test_a_damaged_chunk_is_named_and_rescored(tmp_path, damage):
    full, _ = run(tmp_path)
    bad = sorted(tmp_path.glob("chunk_*.npz"))[1]
    if damage == "empty":
        bad.write_bytes(b"")
    elif damage == "truncated":
        bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])
    elif damage == "bad-crc":
        _flip_data_byte(bad)
    else:
        bad.write_bytes(b"not a zip file at all" * 10)
    resumed, clf = run(tmp_path)
    assert clf.calls == [500]
    assert resumed.scores() == full.scores()
    note = [n for n in resumed.notes if bad.name in n]
    assert len(note) == 1 and "re-scored" in note[0] and "empty, truncated or corrupt" in note[0]
    again, clf = run(tmp_path)  # the re-scored chunk is whole again
    assert clf.calls == [] and again.scores() == full.scores()


def cli(*argv):
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_cli_fresh_timeout_and_table_notes(tmp_path, capsys):
    model = str(tiny_nli_dir())
    base = ("nli", "--probe", "gender-occupation", "--model", model, "--limit", "100", "--chunk-size", "50",
            "--device", "cpu")
    code, text = cli(*base, "--format", "table")
    assert code == 0 and "note: a subset: the first 100 of 1,912,896 pairs" in text
    for bad in ("-5", "0", "nan", "inf"):
        code, _ = cli(*base, "--timeout", bad, "--scheduler", "tcp://127.0.0.1:1")
        err = capsys.readouterr().err
        assert code == 2 and "--timeout must be a positive number of seconds" in err and "scheduler" not in err
    code, _ = cli(*base, "--fresh")
    assert code == 2 and "--fresh starts a --results-dir over" in capsys.readouterr().err
    assert cli(*base, "--results-dir", str(tmp_path))[0] == 0
    code, _ = cli(*base, "--results-dir", str(tmp_path), "--tau", "0.6")
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--fresh" in err and "Traceback" not in err
    code, text = cli(*base, "--results-dir", str(tmp_path), "--tau", "0.6", "--fresh", "--format", "json")
    measures = {k for k in json.loads(text)["pairs"] if k != "n" and not k.endswith("_interval")}
    assert code == 0 and measures == {"net_neutral", "fraction_neutral", "threshold_0.6"}
