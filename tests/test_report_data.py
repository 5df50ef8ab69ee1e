"""report.json schema 2's data blocks, read from the sections only: findings with their numbers at full precision,
what ran, the calibration table from a JSON file (and none without one); a schema-1 dict is written back as 2 and
validates against the schema file."""

from __future__ import annotations

import json

import jsonschema

from embias_widgets.analysis.publish.page import page
from embias_widgets.analysis.publish.report_data import coverage_data, findings_data, methods_run
from embias_widgets.analysis.report import SECTION_KEYS, ReportResult
from embias_widgets.analysis.report.result import SCHEMA_FILE


def _report() -> dict:
    iv = {"low": 0.8, "high": 1.7, "level": 0.95, "method": "BCa"}
    section = dict.fromkeys(SECTION_KEYS)
    section.update(id="weat--m", title="WEAT", method="weat", model="m", what="One. Two.", status="done",
                   seconds=1.0, table={"columns": ["test", "effect size d", "95% interval", "p"],
                                       "rows": [["weat1", 1.2345678901234567, iv, 0.001], ["weat2", 0.1, None, 0.4]]},
                   published=[], chart={"x": "effect size d", "y": "test", "interval": "95% interval", "ref": 0},
                   significance=[{"label": "weat1", "p": 0.001, "p_holm": 0.002, "significant": True},
                                 {"label": "weat2", "p": 0.4, "p_holm": 0.4, "significant": False}],
                   notes=[], figure={"svg": None, "svg_path": None, "png_path": None})
    return {"schema": "embias-report/1", "title": "t", "created": "2025-01-01T00:00:00+00:00", "quick": True,
            "provenance": {"package_version": "0", "python": "3", "platform": "p", "seconds": 1.0,
                           "options": {"sizes": "quick"}},
            "models": [{"name": "m", "kind": "static", "fingerprint": "f"}], "data_files": {},
            "sections": [section], "holm": {"alpha": 0.01, "n_tests": 2}}


def test_findings_keep_every_digit_and_the_interval():
    f = findings_data(_report())[0]
    assert [r["label"] for r in f["survive"]] == ["weat1"] and [r["label"] for r in f["not_significant"]] == ["weat2"]
    top = f["survive"][0]
    assert top["value"] == 1.2345678901234567 and top["interval"]["low"] == 0.8 and top["p_holm"] == 0.002
    assert top["direction"] == "above" and top["text"].startswith("WEAT weat1: effect size d 1.23 [0.80, 1.70]")


def test_version_one_is_written_as_two_and_validates(tmp_path):
    d = ReportResult(_report()).to_dict()
    assert d["schema"] == "embias-report/2" and d["comparisons"] == []
    jsonschema.validate(d, json.loads(SCHEMA_FILE.read_text()))
    assert methods_run(d) == {"columns": ["method", "m"], "rows": [["WEAT 1-10 and the b variants", "run"],
                                                                   ["RIPA on the definitional pairs", "not run"],
                                                                   ["Projection debiasing check against a random "
                                                                    "direction", "not run"]]}


def test_calibration_table_from_its_file_only_for_methods_that_ran(tmp_path):
    rows = [{"check": c, "setting": {"n": 8}, "key": "covered", "quantity": "q", "estimand": "e", "kind": "coverage",
             "rate": 0.95, "reps": 200, "mc_error": 0.015, "band": [0.9, 0.99], "ok": True, "seconds": 1.0}
            for c in ("weat", "compare-pairs", "nli")]
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"meta": {"grid": "full", "reps": 200}, "rows": rows}))
    got = coverage_data(_report(), path)
    assert [r["check"] for r in got["rows"]] == ["weat"] and got["rows"][0]["methods"] == ["weat", "seat", "sense-weat"]
    assert coverage_data(_report(), tmp_path / "absent.json") is None
    d = ReportResult(_report()).to_dict()
    d["coverage"] = got
    jsonschema.validate(d, json.loads(SCHEMA_FILE.read_text()))
    table = next(b for b in page(d) if b["t"] == "table" and b["columns"][-1] == "promise")
    assert table["rows"] == [["weat", "n 8", "q", "e", "coverage", "0.950 ± 0.015 (200)", "[0.90, 0.99]"]]
