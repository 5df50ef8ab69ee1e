"""``embias nli``: the JSON object, per-pair rows, and bad input as one line with exit status 2."""

import io
import json
import socket

import pytest
from _tiny_lm import one_thread
from _tiny_nli import tiny_nli_dir, tiny_tokenizer

from embias_widgets.cli import main
from embias_widgets.stimuli.nli_probes import load_probe, write_pairs_csv

_threads = pytest.fixture(autouse=True)(one_thread)


def run(*argv):
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_probe_json_object():
    code, text = run("nli", "--probe", "gender-occupation", "--model", str(tiny_nli_dir()), "--limit", "300",
                     "--chunk-size", "128", "--device", "cpu", "--format", "json")
    assert code == 0
    obj = json.loads(text)
    assert obj["n_pairs"] == 300 and obj["model"] == str(tiny_nli_dir())
    for level in ("pairs", "word_pairs"):
        # every measure has its interval beside it and the n it was computed from (issue 28)
        measures = {k for k in obj[level] if not k.endswith("_interval")}
        assert measures == {"net_neutral", "fraction_neutral", "threshold_0.5", "threshold_0.7", "n"}
        assert all(0 <= obj[level][k] <= 1 for k in measures - {"n"})
    assert "first 300 of 1,912,896" in obj["notes"][0]
    assert len(obj["top_entailment"]) == 10


def test_pairs_file_with_per_pair_rows_equals_the_probe(tmp_path):
    path = tmp_path / "pairs.csv"
    probe = load_probe("religion-polarity", style="paper")
    write_pairs_csv(probe.iter_pairs(0, 50), path)
    code, text = run("nli", "--pairs", str(path), "--model", str(tiny_nli_dir("mnli")), "--per-pair",
                     "--tau", "0.4", "--device", "cpu", "--output", str(tmp_path / "scored.csv"), "--format", "json")
    assert (tmp_path / "scored.csv").read_text().count("\n") == 51
    assert code == 0
    obj = json.loads(text)
    rows = obj["per_pair"]
    assert len(rows) == obj["n_pairs"] == 50
    assert rows[0]["premise"] == "The awful person bought an apple."
    # every measure has its interval beside it and the n it was computed from (issue 28)
    measures = {k for k in obj["pairs"] if not k.endswith("_interval")}
    assert measures == {"net_neutral", "fraction_neutral", "threshold_0.4", "n"}
    nn = sum(r["neutral"] for r in rows) / 50
    assert obj["pairs"]["net_neutral"] == pytest.approx(nn, rel=1e-9)
    assert obj["pairs"]["threshold_0.4"] == pytest.approx(sum(r["neutral"] > 0.4 for r in rows) / 50)
    code, same = run("nli", "--probe", "religion-polarity", "--style", "paper", "--limit", "50", "--model",
                     str(tiny_nli_dir("mnli")), "--tau", "0.4", "--device", "cpu", "--format", "json")
    assert json.loads(same)["pairs"] == obj["pairs"]


def test_table_format():
    code, text = run("nli", "--probe", "gender-occupation", "--model", str(tiny_nli_dir()), "--limit", "40",
                     "--format", "table", "--device", "cpu")
    assert code == 0 and "word_pairs" in text and "net_neutral" in text


def bad(capsys, *argv):
    capsys.readouterr()
    code, _ = run(*argv)
    err = capsys.readouterr().err.strip()
    assert code == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def test_bad_input_is_one_line(capsys, tmp_path):
    model = str(tiny_nli_dir())
    assert "unknown probe 'gender'" in bad(capsys, "nli", "--probe", "gender", "--model", model)
    csv_path = tmp_path / "bad.csv"
    csv_path.write_text("premise,hypothesis,premise_filler_word,hypothesis_filler_word\nA.,B.,a,b\nC.,D.\n")
    assert "line 3: 2 fields" in bad(capsys, "nli", "--pairs", str(csv_path), "--model", model)
    missing = bad(capsys, "nli", "--pairs", str(tmp_path / "none.csv"), "--model", model)
    assert "no NLI pairs file at" in missing and "none.csv" in missing and "existing CSV file" in missing
    # a model whose labels are not NLI labels
    import transformers

    tok = tiny_tokenizer()
    cfg = transformers.BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=1,
                                  num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
                                  num_labels=2)
    transformers.BertForSequenceClassification(cfg).save_pretrained(tmp_path / "sentiment")
    tok.save_pretrained(tmp_path / "sentiment")
    err = bad(capsys, "nli", "--probe", "gender-occupation", "--model", str(tmp_path / "sentiment"), "--limit", "5")
    assert "0='LABEL_0', 1='LABEL_1'" in err
    transformers.BertForMaskedLM(cfg).save_pretrained(tmp_path / "mlm")
    tok.save_pretrained(tmp_path / "mlm")
    err = bad(capsys, "nli", "--probe", "gender-occupation", "--model", str(tmp_path / "mlm"), "--limit", "5")
    assert "not a sequence classifier" in err
    assert "--workers must be at least 1" in bad(capsys, "nli", "--probe", "gender-occupation", "--workers", "0")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = bad(capsys, "nli", "--probe", "gender-occupation", "--model", model, "--limit", "5",
              "--scheduler", f"tcp://127.0.0.1:{port}", "--timeout", "1")
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port}" in err
    err = bad(capsys, "nli", "--probe", "gender-occupation", "--model", model, "--limit", "5",
              "--scheduler", "nonsense:xx")
    assert "scheduler address 'nonsense:xx' is not of the form tcp://host:8786" in err
