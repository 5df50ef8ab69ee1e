"""Pairs data (SSSB, CrowS-Pairs, StereoSet, NLI pairs) given as a path or URL that cannot be read: one error
line naming the path or URL and what to do, exit 2, no traceback. Servers are on 127.0.0.1 only."""

from __future__ import annotations

import functools
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli_inprocess import embias_inprocess
from _tiny_lm import tiny_mlm_dir

from embias_widgets.stimuli.pairs import read_pairs
from embias_widgets.stimuli.pairs.download import fetch


@pytest.fixture
def empty_server(tmp_path: Path) -> Iterator[str]:
    """A loopback ``http.server`` serving an empty folder (every file is a 404); yields its base URL."""
    www = tmp_path / "www"
    www.mkdir()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=www))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_404_names_the_url_and_the_status(empty_server: str, tmp_path: Path) -> None:
    url = f"{empty_server}/crows.csv"
    with pytest.raises(ConnectionError) as err:
        fetch(url, cache_dir=tmp_path / "cache")
    message = str(err.value)
    assert url in message and "HTTP 404" in message and "check the URL" in message
    assert "download it yourself" in message and "offline" not in message


def test_no_answer_asks_whether_offline(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/x.csv"
    with pytest.raises(ConnectionError) as err:
        read_pairs(url, cache_dir=tmp_path / "cache")
    message = str(err.value)
    assert url in message and "no answer from 127.0.0.1" in message and "offline" in message
    assert "embias data fetch" in message and "<urlopen error" not in message


def _one_error(run, *needles: str) -> str:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    (line,) = [line for line in run.stderr.splitlines() if ": error:" in line]
    for needle in needles:
        assert needle in line, line
    return line


@pytest.mark.parametrize("option", ["--crows-pairs", "--stereoset", "--pairs"])
def test_report_names_a_url_with_no_answer(monkeypatch, tmp_path: Path, option: str) -> None:
    monkeypatch.setenv("EMBIAS_CACHE", str(tmp_path / "cache"))
    url = f"http://127.0.0.1:{_closed_port()}/data.{'json' if option == '--stereoset' else 'csv'}"
    run = embias_inprocess("report", "--quick", "--no-progress", "--model", str(tiny_mlm_dir()),
                           "--out", str(tmp_path / "out"), option, url)
    _one_error(run, url, "offline")


def test_report_names_a_404(monkeypatch, empty_server: str, tmp_path: Path) -> None:
    monkeypatch.setenv("EMBIAS_CACHE", str(tmp_path / "cache"))
    url = f"{empty_server}/crows_pairs_anonymized.csv"
    run = embias_inprocess("report", "--quick", "--no-progress", "--model", str(tiny_mlm_dir()),
                           "--out", str(tmp_path / "out"), "--crows-pairs", url)
    _one_error(run, url, "HTTP 404", "check the URL")


def test_pll_says_a_missing_file_is_missing_whatever_its_extension(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "file"
    run = embias_inprocess("pll", "--model", str(tiny_mlm_dir()), "--pairs", str(missing))
    _one_error(run, f"no pairs file at {missing}")


def test_pll_names_a_404(empty_server: str, tmp_path: Path) -> None:
    url = f"{empty_server}/pairs.txt"
    run = embias_inprocess("pll", "--model", str(tiny_mlm_dir()), "--pairs", url, "--cache-dir", str(tmp_path))
    _one_error(run, url, "HTTP 404")


def test_nli_pairs_url_is_named_as_a_url(empty_server: str) -> None:
    url = f"{empty_server}/pairs.csv"
    _one_error(embias_inprocess("nli", "--pairs", url), url, "not a URL", "give its path")


def test_nli_missing_pairs_file(tmp_path: Path) -> None:
    missing = tmp_path / "pairs.csv"
    _one_error(embias_inprocess("nli", "--pairs", str(missing)), f"no NLI pairs file at {missing}")
