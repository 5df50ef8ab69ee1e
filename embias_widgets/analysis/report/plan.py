"""What a report runs: the kind of each model, the sections that apply to it, their sizes and data files.

The one validation function of the report layer is :func:`iv_report`: every model is known and of a known
kind, the output folder is writable, and every data file is what its name says. Each problem is one
:class:`ReportInputError` naming the item and the fix.

Sizes (``--quick`` / full) are stated here, in one table each (:data:`QUICK_SIZES`, :data:`FULL_SIZES`), and
printed before a run starts for the methods that apply (:meth:`.runner.Report.describe`).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...metrics.score_intervals import DEFAULT_LEVEL
from ...models.errors import ModelNotFoundError
from ...models.json_files import read_json_file
from ...models.names import check_name
from ...models.registry import BUILTIN_MODELS, registered_kind
from ...stimuli.pairs import is_url

KINDS = ("static", "sentence", "sense", "masked-lm", "causal-lm", "nli")
"""Model kinds a report knows; each has its own sections (:data:`SECTIONS_BY_KIND`)."""

SECTIONS_BY_KIND: dict[str, tuple[str, ...]] = {
    "static": ("weat", "ripa", "debias"),
    "sentence": ("seat", "sense-weat", "ceat"),
    "sense": ("sense-weat",),
    "masked-lm": ("crows-pairs", "stereoset", "sense-pairs", "sssb", "ceat", "bbq"),
    "causal-lm": ("crows-pairs", "stereoset", "bbq"),
    "nli": ("nli-gender-occupation", "nli-nationality-polarity", "nli-religion-polarity"),
}

CEAT_FULL_TESTS = ("weat1", "weat2", "weat3", "weat4", "weat5", "weat6", "weat7", "weat8", "weat9", "weat10",
                   "ceat11", "ceat12", "ceat13", "ceat14")
"""CEAT in a full report: Guo & Caliskan's C1-C10 (WEAT 1-10) and their intersectional tests 11-14, with the
bundled template contexts and the paper's 10,000 samples (quick: weat6, 200 samples)."""
WEAT_TESTS = ("weat1", "weat2", "weat3", "weat4", "weat5", "weat6", "weat7", "weat8", "weat9", "weat10",
              "weat3b", "weat5b", "weat6b", "weat7b", "weat8b")
"""Caliskan et al.'s WEAT 1-10 and May et al.'s group-term ``b`` variants."""

QUICK_SIZES: dict[str, Any] = {
    "permutations": 100_000, "seat_tests": ("sent-weat6",),
    "sense_tests": ("sense-weat1",), "debias_random": 1, "crows_pairs": 8, "stereoset_items": 8,
    "sense_pairs": 12, "nli_pairs": 48, "ceat_tests": ("weat6",), "ceat_samples": 200, "bbq_items": 0,
}
"""``--quick``: minutes on a laptop CPU. p as ``embias weat``, the widgets and a full report compute it (exact
over every split up to 100,000 of them, else 100,000 sampled splits, seed 0: one p per test and model on
every surface, a few seconds more than 10,000 splits would take); the first N data pairs; a seeded sample of N
pairs per NLI probe. BBQ is left out (``bbq_items`` 0): on the demo masked LM an item costs about a second of
CPU, and a few items per category would say nothing."""
FULL_SIZES: dict[str, Any] = {
    "permutations": 100_000, "seat_tests": "all", "sense_tests": "all", "debias_random": 8,
    "crows_pairs": None, "stereoset_items": None, "sense_pairs": None, "nli_pairs": 2_000,
    "ceat_tests": CEAT_FULL_TESTS, "ceat_samples": 10_000, "bbq_items": 200,
}
"""The default: every test and pair (``None`` = all), May et al.'s 100,000 permutations, Dev et al.'s 8 random
directions, a seeded sample of 2,000 pairs per NLI probe, at most 200 BBQ items per category spread over its templates
(``embias bbq`` scores every item)."""

_ARCHITECTURE_KINDS = (("ForMaskedLM", "masked-lm"), ("ForCausalLM", "causal-lm"),
                       ("LMHeadModel", "causal-lm"),  # GPT2LMHeadModel, OpenAIGPTLMHeadModel, CTRLLMHeadModel
                       ("ForSequenceClassification", "nli"), ("Model", "sentence"))
_REGISTRY_KINDS = {"static": "static", "sentence": "sentence", "sense": "sense", "language-model": "masked-lm",
                   "nli": "nli"}


class ReportInputError(ValueError):
    """A report that cannot start: the message names the model, folder or file and the fix."""


class NotApplicableError(ValueError):
    """A section whose method does not apply to this model after all (found when it is loaded: CEAT on a CBoW
    encoder, which has no token vectors): the section is *skipped* with the reason, not failed."""


SLUG_CHARS = 40
"""At most this many characters of a model's name in its id (the file names stay short for any path)."""


def model_id(name: str) -> str:
    """A model's id in section ids and file names: a readable slug and the first 8 hex digits of the sha256 of
    the name as given, e.g. ``glove-6b-50d-3a1e07c2``.

    The slug is the name's last path part with every character but ``A-Z a-z 0-9 _ -`` made ``_`` (no dots, so
    no ``.txt`` is taken for a suffix; no separators), cut to :data:`SLUG_CHARS`; the hash tells apart names the
    slug cannot (``m/a b.txt`` and ``m/a_b.txt``, ``Model`` and ``model`` on a case-blind file system). The
    hash is of the name, not of the model's files: the files' content is the section's fingerprint, which
    refuses a resume when it changed."""
    tail = re.split(r"[/\\]", name.rstrip("/\\"))[-1] or name
    slug = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_-]", "_", tail)).strip("_-")[:SLUG_CHARS].rstrip("_-")
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{slug or 'model'}-{digest}"


def section_id(method: str, model_name: str) -> str:
    """The id of ``method`` on the model named ``model_name`` (:func:`model_id`): the name of its saved file and
    figures."""
    return f"{method}--{model_id(model_name)}"


@dataclass(frozen=True)
class ModelSpec:
    """A model of the report: the name as given and its kind."""

    name: str
    kind: str

    @property
    def id(self) -> str:
        """:func:`model_id` of the name."""
        return model_id(self.name)


@dataclass(frozen=True)
class SectionSpec:
    """One independent task: a method on a model, with the options and data files that fix its numbers."""

    method: str
    model: ModelSpec
    options: dict[str, Any] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)  # data-file name -> path or URL

    @property
    def id(self) -> str:
        """:func:`section_id`: unique per method and model name, a short safe file name whatever the name."""
        return section_id(self.method, self.model.name)


def _config_kind(config_path: Path, name: str) -> str:
    try:
        config = read_json_file(config_path)
    except ValueError as err:  # names the file, the encoding or JSON problem with line and column, and the fix
        raise ReportInputError(f"model {name!r}: {err}") from None
    except OSError as err:
        raise ReportInputError(f"model {name!r}: its config.json cannot be read ({err}); give a model directory "
                               "with a readable config.json") from None
    if not isinstance(config, dict):
        raise ReportInputError(f"model {name!r}: {config_path} holds no JSON object of settings; save the model "
                               "again with save_pretrained(...)")
    architectures = config.get("architectures") or []
    for suffix, kind in _ARCHITECTURE_KINDS:
        if any(str(a).endswith(suffix) for a in architectures):
            return kind
    raise ReportInputError(f"model {name!r} is of unknown kind (architectures {architectures or 'not given'}): "
                           f"a report runs on {', '.join(KINDS)} models; give one of those")


def _file_kind(path: Path) -> str:
    if path.suffix == ".npz":
        return "sense"
    with open(path, "rb") as handle:
        first = handle.readline(4096).decode("utf-8", "replace").split()
    return "sense" if first and "%" in first[0] else "static"


def model_kind(name: str) -> str:
    """The kind of a model given by registered name, ``gloss:<encoder>``, file, directory or cached hub name."""
    try:
        check_name(name, registered=sorted(BUILTIN_MODELS))  # "" would be read as the folder "."
    except ModelNotFoundError as err:
        raise ReportInputError(str(err)) from None
    registered = registered_kind(name)
    if registered is not None:
        if registered not in _REGISTRY_KINDS:
            raise ReportInputError(f"model {name!r} is of unknown kind {registered!r}: a report runs on "
                                   f"{', '.join(KINDS)} models")
        return _REGISTRY_KINDS[registered]
    if name.startswith("gloss:"):
        return "sense"
    path = Path(name).expanduser()
    if path.is_file():
        return _file_kind(path)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ReportInputError(f"model {name!r}: the directory has no config.json; give a Hugging Face model "
                                   "directory or a vectors file")
        return _config_kind(path / "config.json", name)
    from ...models.fingerprints import _hub_snapshot

    snapshot = _hub_snapshot(name)
    if snapshot is not None and (snapshot / "config.json").is_file():
        return _config_kind(snapshot / "config.json", name)
    raise ReportInputError(
        f"unknown model {name!r}: not a registered name ({', '.join(sorted(BUILTIN_MODELS))}), a local file or "
        "directory, or a hub model in the local cache; check the spelling, or download it once so it is cached")


def _check_out(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".embias-write-test-"):  # a name of its own per run
            pass
    except OSError as err:
        raise ReportInputError(f"cannot write the report to {str(out)!r} ({err.strerror or err}); give a folder "
                               "you can write to with --out") from None


def _check_data_file(name: str, source: str) -> None:
    """A local data file must exist and read as its format (a CrowS-Pairs .csv, a StereoSet .json/.jsonl)."""
    if is_url(source):
        return  # checked when fetched (the readers refuse what is not the format)
    path = Path(source).expanduser()
    if not path.is_file():
        raise ReportInputError(f"{name} file {source!r} does not exist; give its path or URL, or run "
                               "'embias data fetch' to fetch it")
    from ...stimuli.pairs import read_pairs

    fmt = {"crows-pairs": "crows", "stereoset": "stereoset", "sssb": "sssb"}[name]
    try:
        read_pairs(str(path), format_in=fmt, limit=3)
    except (ValueError, KeyError, OSError, UnicodeDecodeError) as err:
        raise ReportInputError(f"{name} file {source!r} is not a {name} file ({str(err)[:200]}); give the "
                               f"published {name} file (embias data fetch {name})") from None


def _check_bbq(source: str) -> None:
    """A BBQ folder or file the loader reads (one item of each category is enough to tell)."""
    from ...stimuli.bbq import load_bbq

    try:
        load_bbq(source, limit=1)
    except (ValueError, OSError) as err:
        raise ReportInputError(f"BBQ data {source!r} cannot be read ({str(err)[:200]}); give BBQ's data folder "
                               "(embias data fetch bbq)") from None


def default_data(name: str) -> str | None:
    """The file ``embias data fetch`` put in the data folder for ``name``, or None."""
    from ...data import STEREOSET_FLAT, default_dest

    rel = {"crows-pairs": "crows_pairs/crows_pairs_anonymized.csv", "stereoset": STEREOSET_FLAT, "bbq": "bbq"}[name]
    path = default_dest() / rel
    return str(path) if path.is_file() or (name == "bbq" and path.is_dir()) else None


def iv_report(models: Any, out: Any, *, quick: Any, pairs: Any, crows_pairs: Any, stereoset: Any,
              seed: Any, alpha: Any, level: Any = DEFAULT_LEVEL,
              bbq: Any = None) -> tuple[list[ModelSpec], Path, dict[str, str | None]]:
    """Validate a report's input: models (kinds), output folder, data files; see the module docstring."""
    if isinstance(models, str | os.PathLike):
        models = [models]
    models = [str(m) for m in (models or [])]
    if not models:
        raise ReportInputError("give at least one model, e.g. Report(models=['glove-6b-50d']) or --model glove-6b-50d")
    if len(set(models)) != len(models):
        raise ReportInputError(f"model listed twice in {models}; give each model once")
    if not isinstance(quick, bool):
        raise ReportInputError(f"`quick` must be True or False, got {quick!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ReportInputError(f"`seed` must be a whole number >= 0, got {seed!r}")
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise ReportInputError(f"`alpha` must be a number between 0 and 1, got {alpha!r}")
    if isinstance(level, bool) or not (isinstance(level, float | int) and 0 < level < 1):
        raise ReportInputError(f"`level` must be a number strictly between 0 and 1 (e.g. 0.95), got {level!r}")
    specs = [ModelSpec(m, model_kind(m)) for m in models]
    out_dir = Path(out if out is not None else "embias-report").expanduser()
    _check_out(out_dir)
    data: dict[str, str | None] = {"crows-pairs": crows_pairs or default_data("crows-pairs"),
                                   "stereoset": stereoset or default_data("stereoset")}
    for name in ("crows-pairs", "stereoset"):
        if data[name] is not None and any(s.kind in ("masked-lm", "causal-lm") for s in specs):
            _check_data_file(name, str(data[name]))
    if not quick:  # BBQ runs in full reports only (QUICK_SIZES)
        data["bbq"] = str(bbq) if bbq else default_data("bbq")
    if bbq and not quick and any(s.kind in ("masked-lm", "causal-lm") for s in specs):
        _check_bbq(str(bbq))
    for i, path in enumerate(pairs or ()):
        _check_data_file("sssb", str(path))
        data[f"sssb-{i + 1}"] = str(path)
    return specs, out_dir, data


def iv_runtime(device: Any, dtype: Any) -> dict[str, str]:
    """``device`` and ``dtype`` as given (checked as every loader checks them), for the torch models' options."""
    from ...models.runtime import DTYPES, check_device

    if dtype is not None and dtype not in DTYPES:
        raise ReportInputError(f"`dtype` must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if device is not None:
        try:
            check_device(device)
        except ValueError as err:
            raise ReportInputError(str(err)) from None
    return {k: v for k, v in (("device", device), ("dtype", dtype)) if v is not None}


def sizes(quick: bool) -> dict[str, Any]:
    """The sizes of a ``quick`` or full report."""
    return dict(QUICK_SIZES if quick else FULL_SIZES)


def plan_sections(models: list[ModelSpec], data: dict[str, str | None], *, quick: bool, seed: int,
                  runtime: dict[str, str] | None = None, level: float = DEFAULT_LEVEL) -> list[SectionSpec]:
    """Every section of the report, in order: per model, the methods of its kind.

    ``runtime`` (``device``, ``dtype`` as given) joins the options of every model that runs on torch (all kinds
    but static word vectors), so it reaches each model load and the resume fingerprint. ``level`` (of every
    interval) joins every section's options when it is not the default 0.95, so saved sections of another level are
    never reused."""
    s = sizes(quick)
    out = []
    for model in models:
        for method in SECTIONS_BY_KIND[model.kind]:
            files = {"crows-pairs": {"crows-pairs": data["crows-pairs"]}, "stereoset": {"stereoset": data["stereoset"]},
                     "sssb": {k: v for k, v in data.items() if k.startswith("sssb-")}}.get(method, {})
            if method == "sssb" and not files:
                continue  # only when --pairs FILE gives SSSB files
            if method == "bbq":
                if not s["bbq_items"] and s["bbq_items"] is not None:
                    continue  # --quick: left out (see QUICK_SIZES)
                files = {"bbq": data.get("bbq")}
            key = "nli" if method.startswith("nli-") else method
            options = {"seed": seed, **{k: s[k] for k in _OPTIONS_OF[key]},
                       **({"level": level} if level != DEFAULT_LEVEL else {}),
                       **((runtime or {}) if model.kind != "static" else {})}
            out.append(SectionSpec(method, model, options, {k: str(v) for k, v in files.items() if v}))
    _check_unique(models)
    return out


def _check_unique(models: list[ModelSpec]) -> None:
    """Two models never share an id (so a section file or figure), not even on a case-blind file system."""
    seen: dict[str, str] = {}
    for m in models:
        other = seen.setdefault(m.id.casefold(), m.name)
        if other != m.name:
            raise ReportInputError(f"models {other!r} and {m.name!r} would share the id {m.id!r} (their names' "
                                   "hashes collide); rename one of them (a copy or a link under another name)")


_OPTIONS_OF = {
    "weat": ("permutations",), "ripa": (), "debias": ("permutations", "debias_random"),
    "seat": ("permutations", "seat_tests"), "sense-weat": ("permutations", "sense_tests"),
    "sense-pairs": ("sense_pairs",), "crows-pairs": ("crows_pairs",), "stereoset": ("stereoset_items",), "sssb": (),
    "nli": ("nli_pairs",), "ceat": ("ceat_tests", "ceat_samples"), "bbq": ("bbq_items",),
}


def only_methods(sections: list[SectionSpec], methods: Any) -> list[SectionSpec]:
    """The sections of ``methods`` (``nli`` stands for every NLI probe); ``ReportInputError`` naming an unknown
    method or a choice that leaves nothing to run."""
    known = sorted({m for ms in SECTIONS_BY_KIND.values() for m in ms} | {"nli"})
    wanted = [str(m) for m in ([methods] if isinstance(methods, str) else methods)]
    bad = [m for m in wanted if m not in known]
    if bad or not wanted:
        raise ReportInputError(f"unknown method(s) {bad or wanted}: give some of {', '.join(known)}")
    kept = [s for s in sections if s.method in wanted or ("nli" in wanted and s.method.startswith("nli-"))]
    if not kept:
        raise ReportInputError(f"none of the methods {wanted} applies to these models; they run "
                               f"{', '.join(dict.fromkeys(s.method for s in sections))}")
    return kept
