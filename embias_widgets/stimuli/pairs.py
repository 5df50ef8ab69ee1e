"""Sentence pairs for likelihood tests, and readers for the formats they come in.

- CrowS-Pairs CSV (Nangia et al. 2020): ``sent_more, sent_less,
  stereo_antistereo, bias_type`` columns. ``sent_more`` is the *more
  stereotypical* sentence of the pair in both directions ("The man was highly
  skilled in CAD engineering." is ``sent_more`` of an ``antistereo`` row), so
  it becomes :attr:`SentencePair.stereo` and ``sent_less`` becomes
  :attr:`SentencePair.anti` whatever ``stereo_antistereo`` says; that column
  is kept as :attr:`SentencePair.direction` and only decides which sub-score
  (stereo / anti-stereo) the pair is reported under, as in CrowS-Pairs'
  ``metric.py``, which counts ``score(sent_more) > score(sent_less)`` in both
  directions. Read from a path, or from :data:`CROWS_PAIRS_URL` into a local
  cache.
- StereoSet (Nadeem et al. 2021): the official nested dev JSON
  (``data.intrasentence[].sentences[]`` with ``gold_label``) or a flat JSON
  Lines file with ``stereotype``, ``anti-stereotype`` and ``unrelated`` fields.
- SSSB (Zhou, Kaneko & Bollegala 2022, section 4): one sentence a line,
  ``sentence<TAB>[sense-type, sense-key, stereo|anti]``, blocks separated by
  blank lines; see :func:`sssb_pairs` for how sentences become pairs.

Every reader returns :class:`SentencePair` objects; a malformed file raises
:class:`PairFileError` naming the file, the line and what to fix.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import re
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .text_files import read_utf8

CROWS_PAIRS_URL = "https://raw.githubusercontent.com/nyu-mll/crows-pairs/master/data/crows_pairs_anonymized.csv"
"""The official CrowS-Pairs file (CC BY-SA 4.0)."""

FORMATS = ("crows", "stereoset", "sssb")


class PairFileError(ValueError):
    """A pairs file that cannot be read: names the file, the line and the fix."""


@dataclass(frozen=True)
class SentencePair:
    """A more and a less stereotypical sentence, with what is known about them.

    ``stereo`` is the more stereotypical sentence (CrowS-Pairs' ``sent_more``,
    StereoSet's stereotype, SSSB's ``stereo`` line) and ``anti`` the less
    stereotypical one (``sent_less``, the anti-stereotype, SSSB's ``anti``).
    ``direction`` is CrowS-Pairs' ``stereo_antistereo`` label: whether the
    pair's more stereotypical sentence expresses a stereotype about a
    disadvantaged group (``"stereo"``) or violates one about an advantaged
    group (``"antistereo"``). It never swaps the sentences; it only says which
    sub-score the pair counts under. ``unrelated`` is StereoSet's third
    option; ``sense_key`` is an SSSB WordNet sense key.
    """

    stereo: str
    anti: str
    bias_type: str = ""
    direction: str = "stereo"
    unrelated: str | None = None
    target: str = ""
    sense_key: str = ""
    pair_id: str = ""
    source: str = ""

    @property
    def sent_more(self) -> str:
        """CrowS-Pairs' name for the more stereotypical sentence (``stereo``), in both directions."""
        return self.stereo

    @property
    def sent_less(self) -> str:
        """CrowS-Pairs' name for the less stereotypical sentence (``anti``), in both directions."""
        return self.anti

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record, empty fields left out."""
        return {k: v for k, v in asdict(self).items() if v not in ("", None)}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any], *, where: str = "pair") -> SentencePair:
        """From ``{"stereo", "anti", ...}`` or CrowS names ``{"sent_more", "sent_less",
        "stereo_antistereo", ...}`` (``sent_more`` is ``stereo`` in both directions);
        raises ``ValueError`` naming ``where`` and the fix."""
        rec = dict(record)
        if "stereo" not in rec and "sent_more" in rec:
            direction = str(rec.get("stereo_antistereo", rec.get("direction", "stereo"))).strip()
            if direction not in ("stereo", "antistereo"):
                raise ValueError(f"{where}: stereo_antistereo must be 'stereo' or 'antistereo', got {direction!r}")
            rec = {**rec, "stereo": rec["sent_more"], "anti": rec.get("sent_less", ""), "direction": direction}
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(rec) - known - {"sent_more", "sent_less", "stereo_antistereo"})
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {unknown}; use {sorted(known)}")
        pair = cls(**{k: v for k, v in rec.items() if k in known})
        pair.check(where)
        return pair

    def check(self, where: str = "pair") -> None:
        """Raise ``ValueError`` if a sentence is empty or the direction unknown."""
        for role in ("stereo", "anti"):
            value = getattr(self, role)
            if not isinstance(value, str):
                raise ValueError(
                    f"{where}: the {role} sentence must be text, got {type(value).__name__} {value!r}; type a sentence"
                )
            if not value.strip():
                raise ValueError(f"{where}: the {role} sentence is empty; type a sentence")
        if self.direction not in ("stereo", "antistereo"):
            raise ValueError(f"{where}: direction must be 'stereo' or 'antistereo', got {self.direction!r}")


# -- fetching with a cache -----------------------------------------------------------------
def default_cache_dir() -> Path:
    """Where downloads are kept.

    ``$EMBIAS_CACHE``, else ``$XDG_CACHE_HOME/embias-widgets``, else
    ``~/.cache/embias-widgets``.
    """
    if os.environ.get("EMBIAS_CACHE"):
        return Path(os.environ["EMBIAS_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "embias-widgets"


MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024
"""Largest file :func:`fetch` downloads (CrowS-Pairs is 0.4 MB, StereoSet's dev.json 2.4 MB)."""
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def is_url(source: str | Path) -> bool:
    return isinstance(source, str) and "://" in source


def check_url(url: str) -> urllib.parse.ParseResult:
    """An https URL (plain http only to a loopback address, as tests serve files locally);
    ``ValueError`` naming the URL and what to give otherwise."""
    parts = urllib.parse.urlparse(url)
    if parts.scheme == "https" and parts.hostname:
        return parts
    if parts.scheme == "http" and parts.hostname in {h.strip("[]") for h in LOOPBACK_HOSTS}:
        return parts
    if parts.scheme == "http":
        raise ValueError(f"{url}: plain http is not allowed (only to this machine); use the https URL")
    raise ValueError(f"{url}: only https URLs (or a local file path) can be read, not {parts.scheme or '?'}://")


def cache_path(url: str, folder: Path) -> Path:
    """Where ``url`` is cached: a hash of the WHOLE URL (two URLs with one file name never share an
    entry) plus its sanitised file name for readability; never ``..`` or a path separator."""
    import hashlib

    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
    tail = urllib.parse.unquote(urllib.parse.urlparse(url).path.rstrip("/").rsplit("/", 1)[-1])
    name = re.sub(r"\.{2,}", ".", re.sub(r"[^A-Za-z0-9._-]", "_", tail)).strip("._") or "download"
    return folder / f"{digest}-{name[:80]}"


def fetch(
    url: str, *, cache_dir: str | Path | None = None, timeout: float = 30.0, max_bytes: int = MAX_DOWNLOAD_BYTES
) -> Path:
    """Download ``url`` once into ``cache_dir`` and return the local path.

    The cache key is a hash of the whole URL (:func:`cache_path`); a file
    already there is used as is (delete it to download again). Only https
    URLs are fetched (plain http to a loopback address only); a download
    larger than ``max_bytes`` is refused; a failed download leaves no partial
    file behind.
    """
    check_url(url)
    folder = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    target = cache_path(url, folder)
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            declared = response.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                raise ValueError(f"{url} is {int(declared):,} bytes, more than the {max_bytes:,} allowed")
            with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".part") as tmp:
                size = 0
                while chunk := response.read(1 << 16):
                    size += len(chunk)
                    if size > max_bytes:
                        raise ValueError(f"{url} is more than the {max_bytes:,} bytes allowed; download it yourself")
                    tmp.write(chunk)
        Path(tmp.name).replace(target)
    except (urllib.error.URLError, OSError) as err:
        raise ConnectionError(
            f"could not download {url} ({err}); download it yourself and pass the file's path"
        ) from err
    finally:
        if tmp is not None and Path(tmp.name).exists():
            Path(tmp.name).unlink()
    return target


def _local(source: str | Path, cache_dir: str | Path | None) -> Path:
    if is_url(source) and str(source).startswith("file://"):
        source = urllib.request.url2pathname(urllib.parse.urlparse(str(source)).path)
    elif is_url(source):
        return fetch(str(source), cache_dir=cache_dir)
    path = Path(source).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"no pairs file at {path}: give the path of an existing file or a URL")
    return path


# -- CrowS-Pairs --------------------------------------------------------------------------------
def read_crows_pairs(
    source: str | Path = CROWS_PAIRS_URL, *, cache_dir: str | Path | None = None
) -> list[SentencePair]:
    """CrowS-Pairs pairs from a CSV path or URL (downloaded once into ``cache_dir``).

    Needs ``sent_more`` and ``sent_less`` columns; ``stereo_antistereo``
    (default ``stereo``) and ``bias_type`` are used when present.
    """
    path = _local(source, cache_dir)
    pairs = []
    with io.StringIO(read_utf8(path, what="CrowS-Pairs CSV file"), newline="") as handle:
        reader = csv.DictReader(handle)
        missing = {"sent_more", "sent_less"} - set(reader.fieldnames or ())
        if missing:
            raise PairFileError(
                f"{path}: line 1 (header) lacks column(s) {sorted(missing)}; "
                f"found {reader.fieldnames}. "
                "A CrowS-Pairs CSV needs sent_more, sent_less (and stereo_antistereo, bias_type)"
            )
        start = reader.line_num + 1
        for row in reader:
            where = f"{path}: line {start}"
            start = reader.line_num + 1
            record = {
                "sent_more": (row.get("sent_more") or "").strip(),
                "sent_less": (row.get("sent_less") or "").strip(),
                "stereo_antistereo": (row.get("stereo_antistereo") or "stereo").strip(),
                "bias_type": (row.get("bias_type") or "").strip(),
                "pair_id": (row.get("") or row.get("id") or "").strip(),
                "source": where.rsplit(": ", 1)[1],
            }
            try:
                pairs.append(SentencePair.from_dict(record, where=where))
            except ValueError as err:
                raise PairFileError(str(err)) from None
    return pairs


# -- StereoSet ------------------------------------------------------------------------------------
STEREOSET_KINDS = ("intrasentence", "intersentence")
_GOLD = {"stereotype": "stereo", "anti-stereotype": "anti", "unrelated": "unrelated"}


def _stereoset_text(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise PairFileError(f"{where}: {key!r} must be a sentence (a string), got {type(value).__name__} {value!r}")
    return value.strip()


def _stereoset_pair(item: Mapping[str, Any], kind: str, where: str) -> SentencePair:
    sentences = {
        role: _stereoset_text(item, key, where)
        for key, role in (
            ("stereotype", "stereo"),
            ("anti-stereotype", "anti"),
            ("unrelated", "unrelated"),
        )
    }
    missing = [role for role, text in sentences.items() if not text]
    if missing:
        raise PairFileError(f"{where}: no {'/'.join(missing)} sentence; each item needs all three")
    if kind == "intersentence":  # score the context and its continuation as one text
        context = _stereoset_text(item, "context", where)
        sentences = {role: f"{context} {text}".strip() for role, text in sentences.items()}
    return SentencePair(
        stereo=sentences["stereo"],
        anti=sentences["anti"],
        unrelated=sentences["unrelated"],
        bias_type=str(item.get("bias_type", "")),
        target=str(item.get("target", "")),
        pair_id=str(item.get("id", "")),
        source=where.rsplit(": ", 1)[-1],
    )


def _official_items(data: Mapping[str, Any], path: Path, kind: str) -> Iterable[tuple[dict, str]]:
    if not isinstance(data.get("data"), Mapping) or kind not in data["data"]:
        raise PairFileError(
            f"{path}: not the official StereoSet layout (expected data.{kind}[]); "
            "give the official dev.json or the flat jsonl"
        )
    items = data["data"][kind]
    if not isinstance(items, list):
        raise PairFileError(f"{path}: data.{kind} must be a list of items, got {type(items).__name__}")
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise PairFileError(f"{path}: data.{kind}[{i}] must be an object, got {type(item).__name__} {item!r:.60}")
        where = f"{path}: data.{kind}[{i}] (id {item.get('id', '?')})"
        flat: dict[str, Any] = {k: item.get(k) for k in ("id", "target", "bias_type", "context")}
        sentences = item.get("sentences", ())
        if not isinstance(sentences, list) or not all(isinstance(s, Mapping) for s in sentences):
            raise PairFileError(f"{where}: 'sentences' must be a list of objects with 'sentence' and 'gold_label'")
        for sentence in sentences:
            label = sentence.get("gold_label")
            if label not in _GOLD:
                raise PairFileError(f"{where}: gold_label {label!r} is not one of {sorted(_GOLD)}")
            flat[{"stereo": "stereotype", "anti": "anti-stereotype"}.get(_GOLD[label], "unrelated")] = sentence.get(
                "sentence"
            )
        yield flat, where


def read_stereoset(path: str | Path, *, kind: str = "intrasentence") -> list[SentencePair]:
    """StereoSet items as pairs (with ``unrelated``), from the official JSON or the flat jsonl.

    ``kind="intersentence"`` joins each context and its candidate continuation
    into one text to score (StereoSet itself scores those with a next-sentence
    head, which masked-LM likelihood does not use).
    """
    if kind not in STEREOSET_KINDS:
        raise ValueError(f"`kind` must be one of {STEREOSET_KINDS}, got {kind!r}")
    path = _local(path, None)
    text = read_utf8(path, what="StereoSet file")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    pairs = []
    if isinstance(whole, Mapping) and "data" in whole:
        for item, where in _official_items(whole, path, kind):
            pairs.append(_stereoset_pair(item, kind, where))
        return pairs
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as err:
            raise PairFileError(f"{where}: not JSON ({err.msg} at column {err.colno})") from None
        if not isinstance(item, Mapping):
            raise PairFileError(f"{where}: expected a JSON object per line")
        if item.get("type", kind) != kind:
            continue
        pairs.append(_stereoset_pair(item, kind, where))
    return pairs


# -- SSSB ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SSSBSentence:
    """One labelled SSSB line: ``sentence<TAB>[sense_type, sense_key, label]``."""

    sentence: str
    sense_type: str
    sense_key: str
    label: str
    block: int
    line: int


_SSSB_LINE = re.compile(r"^(?P<sentence>.*?)\s*\[(?P<fields>[^\[\]]*)\]\s*$")


def read_sssb(path: str | Path) -> list[SSSBSentence]:
    """SSSB sentences with their sense type, WordNet sense key and stereo/anti label.

    Blank lines separate blocks (the generator writes one block per pair or per
    template and target); the block number is kept for :func:`sssb_pairs`.
    """
    path = _local(path, None)
    out: list[SSSBSentence] = []
    block = 0
    for number, raw in enumerate(read_utf8(path, what="SSSB file").splitlines(), start=1):
        if not raw.strip():
            block += 1
            continue
        where = f"{path}: line {number}"
        match = _SSSB_LINE.match(raw.strip())
        if not match or not match["sentence"]:
            raise PairFileError(
                f"{where}: expected 'sentence<TAB>[sense-type, sense-key, stereo|anti]', got {raw.strip()!r}"
            )
        fields = [f.strip() for f in match["fields"].split(",")]
        if len(fields) != 3 or not all(fields):
            raise PairFileError(f"{where}: the brackets need three fields (sense-type, sense-key, stereo|anti)")
        sense_type, sense_key, label = fields
        if label.lower() not in ("stereo", "anti"):
            raise PairFileError(f"{where}: label {label!r} must be 'stereo' or 'anti'")
        out.append(SSSBSentence(match["sentence"], sense_type, sense_key, label.lower(), block, number))
    return out


def sssb_pairs(sentences: Iterable[SSSBSentence], *, path: str | Path = "") -> list[SentencePair]:
    """Stereo/anti pairs from SSSB sentences, per sense.

    The paper (Zhou, Kaneko & Bollegala 2022, eq. 6) compares "sentence-pairs"
    without fixing how lines pair up; we read the generator's layout:

    1. a block (lines between blank lines) holding exactly one ``stereo`` and
       one ``anti`` sentence is a pair (the noun/verb gender examples:
       "He was a ... nurse." / "She was a ... nurse.");
    2. the remaining sentences are grouped by (sense type, sense key), and each
       stereo sentence is paired with each anti sentence of its group
       (nationality/language and ethnicity/colour: one block per attribute
       polarity);
    3. a sentence left without a partner (a verb template with a fixed
       pronoun) is not paired.

    ``bias_type`` of a pair is its sense type, so per-bias-type scores are the
    paper's per-sense-type scores.
    """
    items = list(sentences)
    pairs: list[SentencePair] = []
    leftover: list[SSSBSentence] = []
    for _, group in itertools.groupby(items, key=lambda s: s.block):
        block = list(group)
        labels = sorted(s.label for s in block)
        if labels == ["anti", "stereo"]:
            stereo = next(s for s in block if s.label == "stereo")
            anti = next(s for s in block if s.label == "anti")
            pairs.append(_sssb_pair(stereo, anti, path))
        else:
            leftover.extend(block)
    pools: dict[tuple[str, str], list[SSSBSentence]] = {}
    for s in leftover:
        pools.setdefault((s.sense_type, s.sense_key), []).append(s)
    for pool in pools.values():
        stereos = [s for s in pool if s.label == "stereo"]
        antis = [s for s in pool if s.label == "anti"]
        pairs.extend(_sssb_pair(st, an, path) for st in stereos for an in antis)
    return pairs


def _sssb_pair(stereo: SSSBSentence, anti: SSSBSentence, path: str | Path) -> SentencePair:
    return SentencePair(
        stereo=stereo.sentence,
        anti=anti.sentence,
        bias_type=stereo.sense_type,
        sense_key=stereo.sense_key,
        source=f"{path}: lines {stereo.line},{anti.line}".lstrip(": "),
    )


# -- any of them -----------------------------------------------------------------------------------
def guess_format(source: str | Path) -> str:
    """``crows`` for .csv, ``stereoset`` for .json/.jsonl, ``sssb`` for .txt/.tsv."""
    suffix = Path(str(source).split("?", 1)[0]).suffix.lower()
    formats = {
        ".csv": "crows",
        ".json": "stereoset",
        ".jsonl": "stereoset",
        ".txt": "sssb",
        ".tsv": "sssb",
    }
    if suffix not in formats:
        raise ValueError(
            f"cannot tell the format of {source} from its extension {suffix or '(none)'}: name it with one of {FORMATS}"
        )
    return formats[suffix]


def read_pairs(
    source: str | Path,
    *,
    format_in: str | None = None,
    limit: int | None = None,
    cache_dir: str | Path | None = None,
) -> list[SentencePair]:
    """Pairs from any supported file, at most ``limit``.

    The format is ``format_in`` (one of :data:`FORMATS`) or guessed from the
    extension (:func:`guess_format`).
    """
    fmt = format_in or guess_format(source)
    if fmt == "crows":
        pairs = read_crows_pairs(source, cache_dir=cache_dir)
    elif fmt == "stereoset":
        pairs = read_stereoset(_local(source, cache_dir))
    elif fmt == "sssb":
        local = _local(source, cache_dir)
        pairs = sssb_pairs(read_sssb(local), path=local)
    else:
        raise ValueError(f"unknown pairs format {fmt!r}: use one of {FORMATS}")
    if limit is not None:
        if limit < 1:
            raise ValueError(f"`limit` must be at least 1, got {limit}")
        pairs = pairs[:limit]
    return pairs
