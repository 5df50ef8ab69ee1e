"""The offline vega bundle of the chart widget is built once per content and read back from the cache folder:
the same text altair builds, a damaged file built again, a new key when what determines the bundle changes."""

from __future__ import annotations

import pytest

from embias_widgets.analysis import chart_bundle


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBIAS_CACHE", str(tmp_path))
    return tmp_path


def _fresh_chart_class() -> type:
    import altair as alt

    return type("Chart", (alt.JupyterChart,), {"_is_offline": False})


class _Counting:
    """A stand-in chart class whose ``enable_offline`` counts its (otherwise 2.5 s) builds."""

    builds = 0
    _is_offline = False
    _esm = "online"

    @classmethod
    def enable_offline(cls, offline=True):
        cls.builds += 1
        cls._esm = "bundle text\nline two"
        cls._is_offline = True


def _counting() -> type:
    return type("Counting", (_Counting,), {})  # its own counts and state: enable_offline sets them on the subclass


def test_the_cached_bundle_is_the_one_altair_builds(cache):
    key = chart_bundle.bundle_key()
    assert key is not None and len(key) == 64
    built = _fresh_chart_class()
    chart_bundle.enable_offline(built)  # nothing cached: altair builds it, and it is kept
    assert built._is_offline and chart_bundle.bundle_path(key).is_file()
    read = _fresh_chart_class()
    chart_bundle.enable_offline(read)
    assert read._is_offline and read._esm == built._esm
    assert "vega" in read._esm and len(read._esm) > 100_000


def test_a_damaged_file_is_built_again(cache, monkeypatch):
    monkeypatch.setattr(chart_bundle, "bundle_key", lambda: "k" * 64)
    first = _counting()
    chart_bundle.enable_offline(first)
    second = _counting()
    chart_bundle.enable_offline(second)
    assert (first.builds, second.builds) == (1, 0) and second._esm == "bundle text\nline two"
    path = chart_bundle.bundle_path("k" * 64)
    path.write_text(path.read_text().replace("line two", "line 2"))  # the recorded hash no longer matches
    third = _counting()
    chart_bundle.enable_offline(third)
    assert third.builds == 1 and chart_bundle._read(path) == "bundle text\nline two"


def test_the_key_follows_altairs_source_and_the_vl_convert_build(monkeypatch):
    import altair.jupyter.jupyter_chart as jc

    key = chart_bundle.bundle_key()
    monkeypatch.setattr(chart_bundle, "vl_convert_build", lambda: "sha256=another-build")
    other_build = chart_bundle.bundle_key()
    source = jc.load_js_src()
    monkeypatch.setattr(jc, "load_js_src", lambda: source + "\n// changed")
    other_source = chart_bundle.bundle_key()
    assert len({key, other_build, other_source}) == 3


def test_nothing_is_kept_without_a_recorded_hash(cache, monkeypatch):
    monkeypatch.setattr(chart_bundle, "vl_convert_build", lambda: None)
    chart = _counting()
    chart_bundle.enable_offline(chart)
    assert chart.builds == 1 and not (cache / "vega-bundles").exists()


def test_an_unwritable_cache_only_loses_the_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("EMBIAS_CACHE", str(blocker))
    monkeypatch.setattr(chart_bundle, "bundle_key", lambda: "k" * 64)
    chart = _counting()
    chart_bundle.enable_offline(chart)
    assert chart.builds == 1 and chart._is_offline
