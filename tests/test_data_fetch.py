"""``embias data fetch``: downloads from a loopback HTTP server only, verified against pinned hashes."""

from __future__ import annotations

import hashlib
import http.server
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from io import StringIO
from pathlib import Path

import pytest

from embias_widgets import data
from embias_widgets.cli import main
from embias_widgets.data import DataFetchError, DataFile, derive_stereoset_flat, fetch, git_blob_sha1
from embias_widgets.stimuli.pairs import read_stereoset

pytest.importorskip("pooch", reason="pooch is in the test extra: pip install -e '.[test]'")


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests: list[str]

    def do_GET(self) -> None:
        self.requests.append(self.path)
        super().do_GET()

    def log_message(self, *args) -> None:  # quiet
        pass


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path, list[str]]]:
    """An HTTP server on 127.0.0.1 serving ``tmp_path / "www"``: (URL base, its root, the paths asked for)."""
    root = tmp_path / "www"
    root.mkdir()
    asked: list[str] = []
    handler = type("Handler", (_Handler,), {"requests": asked})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root, asked
    httpd.shutdown()
    httpd.server_close()


def _publish(root: Path, item: DataFile, content: bytes) -> None:
    path = root / item.repo / item.commit / item.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


DEV = {"version": "1.0", "data": {
    "intersentence": [
        {"id": "i1", "target": "Ethiopia", "bias_type": "race", "context": "Many people live in Ethiopia.",
         "sentences": [{"sentence": "Cats have sharp claws.", "gold_label": "unrelated", "id": "a"},
                       {"sentence": "The people are very thin.", "gold_label": "stereotype", "id": "b"},
                       {"sentence": "The people are fat.", "gold_label": "anti-stereotype", "id": "c"}]},
        {"id": "i2", "target": "Norway", "bias_type": "race", "context": "He is from Norway.",
         "sentences": [{"sentence": "He is tall.", "gold_label": "stereotype", "id": "d"},
                       {"sentence": "He is short.", "gold_label": "anti-stereotype", "id": "e"},
                       {"sentence": "Soup is hot.", "gold_label": "unrelated", "id": "f"}]},
    ],
    "intrasentence": [
        {"id": "a1", "target": "chess player", "bias_type": "profession", "context": "The chess player was BLANK.",
         "sentences": [{"sentence": "The chess player was hispanic.", "gold_label": "anti-stereotype", "id": "g"},
                       {"sentence": "The chess player was fox.", "gold_label": "unrelated", "id": "h"},
                       {"sentence": "The chess player was asian.", "gold_label": "stereotype", "id": "i"}]},
    ],
}}


@pytest.fixture
def small_registry(monkeypatch, server) -> dict[str, bytes]:
    """A registry of three small files made here (one checked by git blob id), published on the server."""
    _, root, _ = server
    files = {
        "crows_pairs/crows_pairs_anonymized.csv": b"sent_more,sent_less\nA is bad.,B is bad.\n",
        "seat_tests/weat1.jsonl": b'{"targ1": {"category": "Flowers", "examples": ["rose"]}}\n',
        "stereoset/dev.json": json.dumps(DEV).encode(),
    }
    items = []
    for dest, content in files.items():
        blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # git hash-object
        checksum = f"git-blob:{blob}" if dest.endswith("dev.json") else hashlib.sha256(content).hexdigest()
        item = DataFile(dest, checksum, "owner/repo", "0" * 40, f"data/{Path(dest).name}")
        _publish(root, item, content)
        items.append(item)
    monkeypatch.setattr(data, "registry", lambda: tuple(items))
    return files


def test_fetch_downloads_verifies_and_derives_the_flat_stereoset(tmp_path, server, small_registry) -> None:
    base, _, asked = server
    dest = tmp_path / "data"
    status = fetch(dest=dest, url_base=base)
    assert status == {"crows_pairs/crows_pairs_anonymized.csv": "downloaded", "seat_tests/weat1.jsonl": "downloaded",
                      "stereoset/dev.json": "downloaded", data.STEREOSET_FLAT: "derived"}
    for name, content in small_registry.items():
        assert (dest / name).read_bytes() == content
    assert sorted(asked) == sorted(f"/owner/repo/{'0' * 40}/data/{Path(n).name}" for n in small_registry)
    # inter[0], intra[0], inter[1]: the flat copy's alternation, fields in its order, labels mapped by gold_label
    lines = (dest / data.STEREOSET_FLAT).read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["intersentence", "intrasentence", "intersentence"]
    assert lines[1] == ('{"type": "intrasentence", "target": "chess player", "bias_type": "profession", '
                        '"context": "The chess player was BLANK.", "stereotype": "The chess player was asian.", '
                        '"anti-stereotype": "The chess player was hispanic.", '
                        '"unrelated": "The chess player was fox."}')
    assert not list(dest.rglob("*.unverified")) and not list(dest.rglob("*.part"))
    # a second run finds every file with its pinned hash: nothing is asked for again
    n = len(asked)
    assert set(fetch(dest=dest, url_base=base).values()) == {"present", "derived"}
    assert len(asked) == n


def test_flat_stereoset_reads_as_the_official_file(tmp_path) -> None:
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps(DEV))
    assert derive_stereoset_flat(dev, tmp_path / "flat.jsonl") == 3
    first = (tmp_path / "flat.jsonl").read_bytes()
    derive_stereoset_flat(dev, tmp_path / "flat.jsonl")
    assert (tmp_path / "flat.jsonl").read_bytes() == first  # deterministic
    for kind in ("intrasentence", "intersentence"):
        official, flat = read_stereoset(dev, kind=kind), read_stereoset(tmp_path / "flat.jsonl", kind=kind)
        assert [(p.stereo, p.anti, p.unrelated, p.bias_type, p.target) for p in flat] == [
            (p.stereo, p.anti, p.unrelated, p.bias_type, p.target) for p in official]
    assert read_stereoset(tmp_path / "flat.jsonl", kind="intersentence")[1].stereo == "He is from Norway. He is tall."


def test_altered_files_are_refused_and_nothing_is_kept(tmp_path, server, small_registry) -> None:
    base, root, _ = server
    dest = tmp_path / "data"
    target = root / "owner/repo" / ("0" * 40) / "data/weat1.jsonl"
    target.write_bytes(target.read_bytes().replace(b"rose", b"rust"))
    with pytest.raises(DataFetchError, match=r"seat_tests/weat1\.jsonl: the file at http://127\.0\.0\.1.* not the"):
        fetch("sent-bias", dest=dest, url_base=base)
    assert not (dest / "seat_tests").exists() or not list((dest / "seat_tests").iterdir())
    dev = root / "owner/repo" / ("0" * 40) / "data/dev.json"
    dev.write_bytes(dev.read_bytes().replace(b"Norway", b"Sweden"))
    with pytest.raises(DataFetchError, match=r"stereoset/dev\.json: .* git blob id [0-9a-f]{40}, not the pinned"):
        fetch("stereoset", dest=dest, url_base=base)
    assert list((dest / "stereoset").iterdir()) == []


def test_a_local_file_with_other_bytes_is_replaced(tmp_path, server, small_registry) -> None:
    base, _, _ = server
    dest = tmp_path / "data"
    (dest / "crows_pairs").mkdir(parents=True)
    (dest / "crows_pairs/crows_pairs_anonymized.csv").write_text("edited by hand\n")
    assert fetch("crows-pairs", dest=dest, url_base=base) == {"crows_pairs/crows_pairs_anonymized.csv": "downloaded"}
    assert (dest / "crows_pairs/crows_pairs_anonymized.csv").read_bytes() == small_registry[
        "crows_pairs/crows_pairs_anonymized.csv"]


def test_url_base_from_the_environment_and_default_dest(tmp_path, monkeypatch, server, small_registry) -> None:
    base, _, asked = server
    monkeypatch.setenv("EMBIAS_DATA_URL", base)
    monkeypatch.setenv("EMBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("EMBIAS_DATA", raising=False)
    assert data.default_dest() == tmp_path / "cache" / "data"
    fetch("crows-pairs")
    assert (tmp_path / "cache/data/crows_pairs/crows_pairs_anonymized.csv").is_file() and len(asked) == 1
    monkeypatch.setenv("EMBIAS_DATA", str(tmp_path / "elsewhere"))
    assert data.default_dest() == tmp_path / "elsewhere"


def test_the_pinned_hashes_are_those_of_the_published_files(tmp_path, server, shared_data, monkeypatch) -> None:
    """Every pinned sha256 equals the hash of the published file the tests read (served from loopback)."""
    base, root, _ = server
    items = [f for f in data.registry() if not f.checksum.startswith("git-blob:")]
    assert len(items) == 44  # 1 CrowS-Pairs + 40 sent-bias + 3 word lists
    for item in items:
        _publish(root, item, (shared_data / item.dest).read_bytes())
    status = fetch(["crows-pairs", "sent-bias", "word-lists"], dest=tmp_path / "data", url_base=base)
    assert set(status.values()) == {"downloaded"} and len(status) == 44
    assert all(item.url().startswith(f"https://raw.githubusercontent.com/{item.repo}/") for item in data.registry())
    assert all(len(item.commit) == 40 for item in data.registry())


def test_git_blob_sha1_is_gits_own(tmp_path) -> None:
    git = shutil.which("git") or pytest.skip("git not on PATH")
    path = tmp_path / "f.txt"
    path.write_bytes(b"caf\xc3\xa9\nline two\r\n")
    expected = subprocess.run([git, "hash-object", str(path)], capture_output=True, text=True, check=True).stdout
    assert git_blob_sha1(path) == expected.strip()


@pytest.mark.parametrize(("argv", "message"), [
    (["data", "fetch", "crows"], "unknown data set 'crows': choose from crows-pairs, stereoset"),
    (["data", "fetch", "--url-base", "ftp://x"], "must start with https:// or http://"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, message, capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_cli_dest_is_a_file(tmp_path, capsys) -> None:
    (tmp_path / "f").write_text("x")
    assert main(["data", "fetch", "--dest", str(tmp_path / "f")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_cli_unreachable_server_names_the_file(tmp_path, capsys, small_registry) -> None:
    argv = ["data", "fetch", "crows-pairs", "--dest", str(tmp_path / "d"), "--url-base", "http://127.0.0.1:9"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "crows_pairs/crows_pairs_anonymized.csv: cannot download http://127.0.0.1:9/" in err
    assert "EMBIAS_DATA_URL" in err


def test_cli_without_pooch_says_how_to_install(tmp_path, monkeypatch, capsys, small_registry) -> None:
    monkeypatch.setitem(sys.modules, "pooch", None)
    assert main(["data", "fetch", "crows-pairs", "--dest", str(tmp_path), "--url-base", "http://127.0.0.1:9"]) == 2
    assert "pip install 'embias-widgets[data]'" in capsys.readouterr().err


def test_cli_fetch_and_list_report_licences(tmp_path, server, small_registry) -> None:
    base, _, _ = server
    out = StringIO()
    assert main(["data", "fetch", "--dest", str(tmp_path / "d"), "--url-base", base], out=out) == 0
    text = out.getvalue()
    assert "3 downloaded, 0 already there, all verified" in text
    assert "licence of sent-bias: CC BY-NC 4.0: non-commercial use only" in text
    assert "licence of crows-pairs: CC BY-SA 4.0" in text
    out = StringIO()
    assert main(["data", "list"], out=out) == 0
    assert "stereoset" in out.getvalue() and "Nadeem et al. 2021" in out.getvalue()


def test_bbq_pins_are_the_upstream_blob_ids_and_the_shared_files_match_them(tmp_path, server, shared_data,
                                                                            monkeypatch) -> None:
    """Every BBQ file of the pinned commit is fetchable, checked by the blob id upstream-tree.txt lists; the ones
    the tests read are the shared files (served from loopback and verified); the other five categories, their
    predictions and the metadata are optional, so a data folder without them is still complete."""
    base, root, _ = server
    upstream = {}
    for line in (shared_data / "bbq" / "upstream-tree.txt").read_text().splitlines():
        _, _, blob, path = line.split(maxsplit=3)
        upstream[path] = blob
    items = [f for f in data.registry() if f.dataset.name == "bbq"]
    wanted = {p for p in upstream if p.startswith(("data/", "results/UnifiedQA/", "analysis_scripts/"))} - {
        "analysis_scripts/BBQ_results_metadata.R"}
    assert {f.path for f in items} == wanted | {"LICENSE"}
    assert all(f.checksum == f"git-blob:{upstream[f.path]}" for f in items if f.path != "LICENSE")
    assert sum(f.path.startswith("data/") for f in items) == 11
    required = [f for f in items if not f.optional]
    assert {f.dest for f in required} <= set(data.expected_files())
    assert not {f.dest for f in items if f.optional} & set(data.expected_files())
    assert "bbq/data/Gender_identity.jsonl" not in data.expected_files() and data.missing(shared_data) == []
    for item in required:
        _publish(root, item, (shared_data / item.dest).read_bytes())
    monkeypatch.setattr(data, "registry", lambda: tuple(required))
    status = fetch("bbq", dest=tmp_path / "d", url_base=base)
    assert set(status.values()) == {"downloaded"} and len(status) == len(required) == 14


def test_bbq_fetch_gets_optional_files_and_refuses_a_wrong_blob(tmp_path, server, monkeypatch) -> None:
    base, root, _ = server
    files = {"bbq/data/Age.jsonl": b'{"example_id": 0}\n', "bbq/data/SES.jsonl": b'{"example_id": 1}\n'}
    items = []
    for dest, content in files.items():
        blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
        item = DataFile(dest, f"git-blob:{blob}", "nyu-mll/BBQ", "1" * 40, dest.removeprefix("bbq/"),
                        optional=dest.endswith("SES.jsonl"))
        _publish(root, item, content)
        items.append(item)
    monkeypatch.setattr(data, "registry", lambda: tuple(items))
    assert fetch("bbq", dest=tmp_path / "d", url_base=base) == {"bbq/data/Age.jsonl": "downloaded",
                                                                "bbq/data/SES.jsonl": "downloaded"}
    assert data.expected_files() == ("bbq/data/Age.jsonl", data.STEREOSET_FLAT)
    served = root / "nyu-mll/BBQ" / ("1" * 40) / "data/SES.jsonl"
    served.write_bytes(b'{"example_id": 2}\n')  # upstream changed: refused, the kept copy stays as it was
    (tmp_path / "d/bbq/data/SES.jsonl").write_bytes(b"edited\n")
    with pytest.raises(DataFetchError, match=r"bbq/data/SES\.jsonl: .* git blob id [0-9a-f]{40}, not the pinned"):
        fetch("bbq", dest=tmp_path / "d", url_base=base)
    assert (tmp_path / "d/bbq/data/SES.jsonl").read_bytes() == b"edited\n"
    assert not list((tmp_path / "d").rglob("*.unverified"))
