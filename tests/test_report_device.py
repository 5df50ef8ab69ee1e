"""``Report(device=, dtype=)`` and ``embias report --device/--dtype`` (issue 19: every model kind, in the API too),
on CPU in bfloat16 with a tiny random NLI model: passed to every model load, recorded in ``report.json``, part of
the resume fingerprint, the half precision's tolerance in the notes. Also the NLI sections' note on word-pair
measures over the sampled templates only, checked against the sample drawn here."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _tiny_nli import tiny_nli_dir

from embias_widgets.analysis.nli import NliProbe
from embias_widgets.analysis.report import Report, ReportInputError, ReportRunError
from embias_widgets.analysis.report import runner as report_runner
from embias_widgets.analysis.report.plan import QUICK_SIZES, ModelSpec, plan_sections
from embias_widgets.analysis.report.sections_lm import SampledPairs
from embias_widgets.cli import main
from embias_widgets.models.runtime import precision_note
from embias_widgets.stimuli.nli_probes import load_probe

BF16 = {"device": "cpu", "dtype": "bfloat16"}
PROBES = ("gender-occupation", "nationality-polarity", "religion-polarity")


@pytest.fixture(scope="module")
def bf16_cli(tmp_path_factory):
    """``embias report --device cpu --dtype bfloat16`` over the tiny NLI model: (model, out dir, report dict)."""
    model, out = str(tiny_nli_dir()), tmp_path_factory.mktemp("bf16")
    assert main(["report", "--model", model, "--quick", "--out", str(out), "--no-html", "--no-progress",
                 "--device", "cpu", "--dtype", "bfloat16"]) == 0
    return model, out, json.loads((out / "report.json").read_text())


def _value(section: dict, measure: str) -> float:
    return next(r[1] for r in section["table"]["rows"] if r[0] == measure)


def test_device_and_dtype_are_recorded_and_reach_every_section(bf16_cli):
    _, out, report = bf16_cli
    options = report["provenance"]["options"]
    assert (options["device"], options["dtype"]) == ("cpu", "bfloat16")
    assert options["sizes"].startswith("quick sizes: ")  # the sizes of the methods that apply, stated first, ...
    assert options["sizes"].endswith("; device cpu; dtype bfloat16")  # ... then the device and dtype
    assert [s["status"] for s in report["sections"]] == ["done"] * 3
    for s in report["sections"]:
        saved = json.loads((out / "sections" / f"{s['id']}.json").read_text())  # what the fingerprint covers
        assert {k: saved["determines"]["options"][k] for k in BF16} == BF16
        assert s["notes"][0] == precision_note("bfloat16", "probabilities")  # the tolerance, first


def test_numbers_equal_nli_probe_loaded_in_bfloat16(bf16_cli):
    model, _, report = bf16_cli
    for probe_name, section in zip(PROBES, report["sections"], strict=True):
        source = SampledPairs(load_probe(probe_name), QUICK_SIZES["nli_pairs"], 0)
        half = NliProbe(source, model=model, model_options=BF16).run().to_dict()
        assert _value(section, "NN (pairs)") == half["pairs"]["net_neutral"]  # full precision
        assert _value(section, "FN (word pairs)") == half["word_pairs"]["fraction_neutral"]
        if probe_name != PROBES[0]:
            continue
        exact = NliProbe(source, model=model, model_options={"device": "cpu"}).run().to_dict()
        assert half["pairs"]["net_neutral"] != exact["pairs"]["net_neutral"]  # bfloat16 really ran
        assert abs(half["pairs"]["net_neutral"] - exact["pairs"]["net_neutral"]) <= 2e-2  # the stated tolerance


def test_dtype_is_part_of_the_resume_fingerprint(bf16_cli, monkeypatch):
    model, out, before = bf16_cli

    def boom(spec):
        raise AssertionError(f"section {spec.id} was run again")

    monkeypatch.setattr(report_runner, "run_section", boom)
    again = Report([model], out=out, quick=True, progress=False, html=False, **BF16).run().to_dict()  # the API
    assert [s["table"] for s in again["sections"]] == [s["table"] for s in before["sections"]]
    with pytest.raises(ReportRunError, match=r"differs in options.*--fresh"):
        Report([model], out=out, quick=True, progress=False, html=False, device="cpu").run()
    with pytest.raises(ReportRunError, match="differs in options"):
        Report([model], out=out, quick=True, progress=False, html=False, device="cpu", dtype="float16").run()


def test_word_vectors_take_neither_and_state_no_tolerance():
    specs = plan_sections([ModelSpec("glove-6b-50d", "static"), ModelSpec("all-MiniLM-L6-v2", "sentence")],
                          {"crows-pairs": None, "stereoset": None}, quick=True, seed=0, runtime=BF16)
    for spec in specs:
        given = {k: spec.options.get(k) for k in BF16}
        assert given == ({"device": None, "dtype": None} if spec.model.kind == "static" else BF16)
        notes = report_runner.precision_notes(spec)
        assert notes == ([] if spec.model.kind == "static" else [precision_note("bfloat16", "vectors")])


def test_bad_dtype_or_device_is_one_clear_error(tmp_path, capsys):
    with pytest.raises(ReportInputError, match="`dtype` must be one of float32, bfloat16, float16, got 'half'"):
        Report(["glove-6b-50d"], out=tmp_path, dtype="half")
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: asking for it is not an error here")
    assert main(["report", "--model", "glove-6b-50d", "--quick", "--out", str(tmp_path), "--device", "cuda"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("embias report: error: ") and "cuda" in err


def test_nli_notes_state_the_word_pair_sample(bf16_cli):
    _, _, report = bf16_cli
    for probe_name, section in zip(PROBES, report["sections"], strict=True):
        probe = load_probe(probe_name)
        source = SampledPairs(probe, QUICK_SIZES["nli_pairs"], 0)
        words = [(p.premise_word, p.hypothesis_word) for p in source.iter_pairs()]
        counts = np.array(sorted({w: words.count(w) for w in words}.values()))
        expected = (f"word-pair measures average each word pair's sampled templates only: {len(counts):,} word "
                    f"pairs, {counts.min()}-{counts.max()} (median {float(np.median(counts)):g}) of its "
                    f"{len(probe.templates):,} templates each")
        assert any(n.startswith(expected) for n in section["notes"]), section["notes"]
