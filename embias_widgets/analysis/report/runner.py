"""``Report(models=[...]).run()``: every section that applies to each model, saved as it finishes.

Sections are independent tasks, run in this process by default or on a Dask cluster (``workers=N`` or
``scheduler="tcp://..."``, the ``scale`` extra). Holm-Bonferroni runs once over every p-value of the report.
"""

from __future__ import annotations

import platform
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...metrics import DEFAULT_ALPHA, holm_bonferroni
from . import sections_bbq, sections_ceat, sections_lm
from .load_errors import ModelLoadError, load_failure
from .lock import folder_lock
from .plan import NotApplicableError, ReportInputError, SectionSpec, iv_report, iv_runtime, plan_sections
from .published import figures_for
from .result import SCHEMA, ReportResult
from .sections import TITLES, WHAT, run_debias, run_ripa, run_seat, run_sense_weat, run_weat
from .store import SectionStore, determines
from .verdicts import settle

_HOW_TO_GET = {
    "crows-pairs": "no CrowS-Pairs file: give --crows-pairs PATH|URL (crows_pairs_anonymized.csv), or run "
                   "'embias data fetch crows-pairs'",
    "stereoset": "no StereoSet file: give --stereoset PATH|URL (dev.json or the flat .jsonl), or run "
                 "'embias data fetch stereoset'",
    "bbq": "no BBQ data: give --bbq DIR (BBQ's data folder of <Category>.jsonl files), or run 'embias data fetch "
           "bbq'",
}


def runner(method: str) -> Callable[[SectionSpec], dict[str, Any]]:
    """The function that runs ``method``."""
    table = {"weat": run_weat, "ripa": run_ripa, "debias": run_debias, "seat": run_seat, "sense-weat": run_sense_weat,
             "crows-pairs": sections_lm.run_crows, "stereoset": sections_lm.run_stereoset,
             "sense-pairs": sections_lm.run_sense_pairs, "sssb": sections_lm.run_sssb, "ceat": sections_ceat.run_ceat,
             "bbq": sections_bbq.run_bbq}
    return table.get(method) or sections_lm.run_nli


_PRECISION_OF = {"seat": "vectors", "sense-weat": "vectors", "crows-pairs": "scores", "stereoset": "scores",
                 "sense-pairs": "scores", "sssb": "scores", "ceat": "vectors", "bbq": "scores"}


def precision_notes(spec: SectionSpec) -> list[str]:
    """A half precision's tolerance (:func:`~embias_widgets.models.runtime.precision_note`) for a section whose
    model runs on torch in it; nothing for float32, word vectors or a file of sense vectors."""
    from ...models.runtime import precision_note

    if spec.model.kind == "static" or (spec.model.kind == "sense" and not spec.model.name.startswith("gloss:")):
        return []
    note = precision_note(spec.options.get("dtype"), _PRECISION_OF.get(spec.method, "probabilities"))
    return [note] if note else []


REFUSED = (ValueError, KeyError, LookupError, OSError)
"""Errors by which an analysis refuses its model or input (as the CLI's bad input): the section fails with it."""


def run_section(spec: SectionSpec) -> tuple[dict[str, Any], float]:
    """Run one section (in this process or on a Dask worker): its outcome and seconds. A model that cannot be
    loaded is a :class:`ModelLoadError` (so the section fails with the reason and the others go on)."""
    start = time.perf_counter()
    try:
        result = runner(spec.method)(spec)
    except Exception as err:
        reason = load_failure(err)
        if reason is None:
            raise
        raise ModelLoadError(f"model {spec.model.name!r} could not be loaded ({reason}); check its files: a "
                             "damaged or partly copied weights or tokenizer file, or a config.json of another "
                             "model") from err
    result["notes"] = list(dict.fromkeys([*precision_notes(spec), *result.get("notes", [])]))
    return result, time.perf_counter() - start


CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a ``scheduler=`` address to answer."""


def _check_scheduler(address: Any) -> str:
    from ..nli.dask_runner import check_address
    from ..nli.resume import NliRunError

    try:
        return check_address(address)
    except NliRunError as err:
        raise ReportInputError(f"--scheduler: {err}") from None


def _local_data(data: dict[str, str | None]) -> dict[str, str | None]:
    from ...stimuli.pairs import fetch, is_url

    try:
        return {k: (str(fetch(v)) if v and is_url(v) else v) for k, v in data.items()}
    except ConnectionError as err:
        raise ReportInputError(str(err)) from None


def data_digest(path: str) -> str:
    """sha256 of a data file, or of a data folder (BBQ's): over each ``.jsonl`` file's relative path and sha256."""
    import hashlib

    from ...stimuli.fingerprints import file_digest

    folder = Path(path)
    if not folder.is_dir():
        return file_digest(folder)
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*.jsonl")):
        h.update(f"{f.relative_to(folder).as_posix()}\0{file_digest(f)}\n".encode())
    return h.hexdigest()


class Report:
    """An audit of one model or several across every method that applies (see :mod:`.plan` for the sections).

    Parameters
    ----------
    models
        Registered names, files, directories or cached hub names.
    out
        The folder for ``report.json``, ``report.html``, figures and saved sections (default ``embias-report``).
    quick
        Small sizes that finish in minutes (:data:`~.plan.QUICK_SIZES`); the default runs the full sizes.
    pairs
        SSSB files scored by every masked LM.
    crows_pairs, stereoset
        Paths or URLs of the published files (default: the folder ``embias data fetch`` fills; else skipped).
    bbq
        BBQ's data folder (or one of its files) for the language models' BBQ section (default: the folder
        ``embias data fetch bbq`` fills; else skipped); full reports only.
    seed, alpha
        Seed of every sampled test and sample; Holm-Bonferroni level over every p-value (May et al.: 0.01).
    level
        Confidence level of every interval (bootstrap, Wilson, t; default 0.95); another level joins every
        section's options, so saved sections of another level are never reused.
    workers, scheduler
        Run the sections on a local Dask cluster of N processes, or on this scheduler (``tcp://host:port``).
    device, dtype
        Where and in which precision every torch model runs (sentence encoders, gloss sense vectors, masked and
        causal LMs, NLI models; word vectors ignore both): as ``load_model``'s ``device=``/``dtype=``. Both are
        recorded in ``report.json`` and are part of the resume fingerprint; a half precision states its
        tolerance in the notes of the sections it changes.
    methods
        Run only these methods (report method names: ``weat``, ``crows-pairs``, ``nli`` for every NLI probe, ...);
        default every method that applies.
    baseline
        A report to compare each model with, paired item by item (:mod:`embias_widgets.analysis.compare`): a
        :class:`ReportResult`, or the path of a ``report.json`` (or its folder) whose ``sections/`` folder holds
        the per-item data. ``report.json`` then holds ``comparisons``.
    fresh
        Delete the saved sections in ``out`` once the run's checks have passed (otherwise a resume of the very
        same run, else refused). ``out`` is locked while the run writes: a second run on it is refused, naming
        the first (:mod:`.lock`).
    """

    def __init__(self, models: Sequence[str] | str, out: str | Path | None = None, quick: bool = False,
                 pairs: Sequence[str | Path] = (), *, crows_pairs: str | None = None, stereoset: str | None = None,
                 seed: int = 0, alpha: float = DEFAULT_ALPHA, workers: int | None = None, scheduler: str | None = None,
                 device: str | None = None, dtype: str | None = None, fresh: bool = False, progress: bool = True,
                 title: str | None = None, html: bool = True, level: float = 0.95, bbq: str | None = None,
                 methods: Sequence[str] | None = None, baseline: Any = None) -> None:
        self.models, self.out, self.data = iv_report(models, out, quick=quick, pairs=pairs, crows_pairs=crows_pairs,
                                                     stereoset=stereoset, seed=seed, alpha=alpha, level=level,
                                                     bbq=bbq)
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ReportInputError(f"`workers` must be a whole number >= 1, got {workers!r}")
        if scheduler is not None:
            scheduler = _check_scheduler(scheduler)
        self.runtime = iv_runtime(device, dtype)
        self.quick, self.seed, self.alpha, self.level = quick, seed, float(alpha), float(level)
        self.workers, self.scheduler, self.fresh, self.progress, self.html = workers, scheduler, fresh, progress, html
        self.title = title or f"embias report: {', '.join(m.name for m in self.models)}"
        self.sections = plan_sections(self.models, self.data, quick=quick, seed=seed, runtime=self.runtime,
                                      level=self.level)
        if methods is not None:
            from .plan import only_methods

            self.sections = only_methods(self.sections, methods)
        self.baseline = None
        self.comparisons: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
        """What fills ``report.json``'s ``comparisons`` from the report dict before it is written (a baseline's
        comparison; :class:`~embias_widgets.analysis.compare.Compare` pairs the report's own two models)."""
        if baseline is not None:
            from ..compare.baseline import baseline_comparisons, load_baseline

            self.baseline = load_baseline(baseline)
            self.comparisons = lambda report: baseline_comparisons(self.baseline, report, alpha=self.alpha,
                                                                   level=self.level, seed=self.seed)

    def describe(self) -> str:
        """The sizes of the methods that apply to these models (as report.html's header states them), the
        intervals' level, and the device and dtype when given: stated before the run starts."""
        from ..publish.page import sizes_line

        planned = {"quick": self.quick, "sections": [{"method": s.method} for s in self.sections]}
        level = {"intervals at": f"{self.level * 100:g}%"} if self.level != 0.95 else {}
        return sizes_line(planned) + "".join(f"; {k} {v}" for k, v in {**level, **self.runtime}.items())

    def _fingerprints(self) -> dict[str, str]:
        from ...models.fingerprints import FingerprintError, model_fingerprint

        out = {}
        for m in self.models:
            try:
                out[m.name] = model_fingerprint(m.name)
            except FingerprintError as err:
                raise ReportInputError(str(err)) from None
        return out

    def _client(self) -> Any:
        if self.workers is None and self.scheduler is None:
            return None
        try:
            from distributed import Client

            from ..nli.dask_runner import gpu_cluster, local_cluster, spread_gpus
        except ImportError:
            raise ReportInputError("--workers/--scheduler need dask.distributed: pip install "
                                   "'embias-widgets[scale]'") from None
        if self.scheduler:
            try:
                return Client(self.scheduler, timeout=f"{CONNECT_TIMEOUT}s")
            except (OSError, TimeoutError) as err:
                raise ReportInputError(
                    f"no Dask scheduler answers at {self.scheduler} within {CONNECT_TIMEOUT:g} s ({type(err).__name__}"
                    "); start one (dask scheduler) or use --workers N for a local cluster") from None
        # the NLI engine's workers: one thread, glibc's mmap threshold set; on CUDA each worker on its own GPU:
        # dask-cuda gives each its own CUDA_VISIBLE_DEVICES, else spread_gpus sets each one's current device
        cuda = str(self.runtime.get("device", "")).startswith("cuda")
        cluster, own_gpu = gpu_cluster(self.workers) if cuda else (local_cluster(self.workers), False)
        client = None
        try:
            client = Client(cluster)
            if cuda and not own_gpu:
                spread_gpus(client)
            return client
        except BaseException:
            if client is not None:
                client.close()
            cluster.close()
            raise

    def run(self) -> ReportResult:
        """Run (or resume) every section, correct every p-value, write the report files, return the result.

        The folder is locked for the run (:func:`~.lock.folder_lock`). Everything that can refuse the run (the
        data files, the models' fingerprints, another run's saved sections, the Dask scheduler) is checked
        before anything is deleted, so a refused run leaves the previous report as it was."""
        started = time.perf_counter()
        with folder_lock(self.out):
            data = _local_data(self.data)
            hashes = {k: data_digest(v) for k, v in data.items() if v}
            fps = self._fingerprints()
            store = SectionStore(self.out)
            records, todo = self._resume(store, data, hashes, fps)
            client = self._client()
            try:
                for name in ("report.json", "report.html"):  # an interrupted run leaves nothing looking complete
                    (self.out / name).unlink(missing_ok=True)
                if self.fresh:
                    store.clear()
                self._run_todo(todo, store, records, client)
            finally:
                _close(client, self.scheduler)
            ordered = [records[s.id] for s in self.sections]
            holm = _holm(ordered, self.alpha)
            settle(ordered, self.alpha, holm["n_tests"])  # association verdicts by the report's Holm decision
            report = self._report(ordered, fps, data, hashes, holm, time.perf_counter() - started, store.notes)
            if self.comparisons is not None:
                report["comparisons"] = self.comparisons(report)
            result = ReportResult(report, out_dir=self.out)
            result.write(html=self.html)
        return result

    def _resume(self, store: SectionStore, data: dict[str, str | None], hashes: dict[str, str],
                fps: dict[str, str]) -> tuple[dict[str, dict[str, Any]], list[tuple[SectionSpec, dict[str, Any]]]]:
        """The records of skipped and saved sections, and the sections to run with what determines each; refuses
        another run's saved sections (:class:`~.store.ReportRunError`) before anything is deleted."""
        records: dict[str, dict[str, Any]] = {}
        todo: list[tuple[SectionSpec, dict[str, Any]]] = []
        for spec in self.sections:
            spec = SectionSpec(spec.method, spec.model, spec.options, {k: data[k] for k in spec.data if data.get(k)})
            missing = [k for k in ("crows-pairs", "stereoset", "bbq") if spec.method == k and k not in spec.data]
            if missing:
                records[spec.id] = self._record(spec, {"status": "skipped", "reason": _HOW_TO_GET[missing[0]]})
                continue
            wanted = determines(spec.id, fps[spec.model.name], {k: hashes[k] for k in spec.data}, spec.options)
            saved = None if self.fresh else store.load(spec.id, wanted)
            if saved is not None:
                records[spec.id] = saved
            else:
                todo.append((spec, wanted))
        return records, todo

    def _run_todo(self, todo: list[tuple[SectionSpec, dict[str, Any]]], store: SectionStore,
                  records: dict[str, dict[str, Any]], client: Any) -> None:
        from tqdm.auto import tqdm

        unloadable: dict[str, str] = {}  # model name -> why it could not be loaded
        if client is None:
            for spec, wanted in todo:
                with tqdm(total=1, desc=spec.id, unit="section", disable=not self.progress, file=sys.stderr) as bar:
                    if spec.model.name in unloadable:  # the same files again: fail at once, with the same reason
                        records[spec.id] = self._record(spec, {"status": "failed",
                                                               "reason": unloadable[spec.model.name]})
                    else:
                        records[spec.id] = self._finish(spec, wanted, store, lambda s=spec: run_section(s), unloadable)
                    bar.update(1)
            return
        from distributed import as_completed

        futures = {client.submit(run_section, spec, pure=False): (spec, wanted) for spec, wanted in todo}
        bar = tqdm(total=len(futures), desc="sections", unit="section", disable=not self.progress, file=sys.stderr)
        for future in as_completed(futures):
            spec, wanted = futures[future]
            records[spec.id] = self._finish(spec, wanted, store, future.result, unloadable)
            bar.set_postfix_str(spec.id)
            bar.update(1)
        bar.close()

    def _finish(self, spec: SectionSpec, wanted: dict[str, Any], store: SectionStore, get: Any,
                unloadable: dict[str, str]) -> dict[str, Any]:
        try:
            outcome, seconds = get()
        except ModelLoadError as err:  # this model's files: its sections fail with the reason, the others go on
            unloadable[spec.model.name] = str(err)
            record = self._record(spec, {"status": "failed", "reason": str(err)})
        except NotApplicableError as err:  # the method does not apply to this model: nothing failed
            record = self._record(spec, {"status": "skipped", "reason": f"not applicable: {err}"})
        except REFUSED as err:  # the analysis refused this model or input
            record = self._record(spec, {"status": "failed", "reason": f"{type(err).__name__}: {err}"})
        else:
            record = self._record(spec, {"status": "done", "seconds": round(seconds, 3), **outcome})
            store.save(spec.id, wanted, record)
        record["notes"] = [*record["notes"], *store.section_notes.get(spec.id, [])]  # shown, not saved
        return record

    def _record(self, spec: SectionSpec, fields: dict[str, Any]) -> dict[str, Any]:
        table = fields.get("table") or {"columns": [], "rows": []}
        return {"id": spec.id, "title": TITLES[spec.method], "method": spec.method, "model": spec.model.name,
                "what": WHAT.get(spec.method, ""), "status": fields["status"], "reason": fields.get("reason"),
                "seconds": float(fields.get("seconds", 0.0)), "table": table,
                "published": figures_for(spec.method, spec.model.name, table), "tests": fields.get("tests", []),
                "notes": fields.get("notes", []), "chart": fields.get("chart"), "options": spec.options,
                **({"items": fields["items"]} if fields.get("items") else {})}

    def _report(self, sections: list[dict[str, Any]], fps: dict[str, str], data: dict[str, str | None],
                hashes: dict[str, str], holm: Any, seconds: float, notes: list[str]) -> dict[str, Any]:
        from ... import __version__

        return {
            "schema": SCHEMA, "title": self.title, "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "quick": self.quick,
            "provenance": {"package_version": __version__, "python": sys.version.split()[0],
                           "platform": platform.platform(), "seconds": round(seconds, 3),
                           "options": {"quick": self.quick, "seed": self.seed, "alpha": self.alpha, "level": self.level,
                                       "sizes": self.describe(), "workers": self.workers,
                                       "scheduler": self.scheduler, "device": self.runtime.get("device"),
                                       "dtype": self.runtime.get("dtype"), "notes": notes}},
            "models": [{"name": m.name, "kind": m.kind, "fingerprint": fps[m.name]} for m in self.models],
            "data_files": {k: {"source": self.data[k], "sha256": h} for k, h in hashes.items()},
            "sections": sections, "holm": holm,
        }


def _close(client: Any, scheduler: str | None) -> None:
    """Close the Dask client; and the cluster when it is ours (``workers=N``), not a scheduler's."""
    if client is not None:
        cluster = client.cluster
        client.close()
        if cluster is not None and scheduler is None:
            cluster.close()


def _holm(sections: list[dict[str, Any]], alpha: float) -> dict[str, Any]:
    """Holm-Bonferroni over every p-value of the report; fills each section's ``significance``."""
    import math

    tests = [(s, t) for s in sections for t in s.get("tests", []) if t["p"] is not None and not math.isnan(t["p"])]
    for s in sections:
        s["significance"] = []
    if tests:
        holm = holm_bonferroni([t["p"] for _, t in tests], alpha=alpha)
        for (s, t), adjusted, reject in zip(tests, holm.adjusted, holm.reject, strict=True):
            s["significance"].append({"label": t["label"], "p": float(t["p"]), "p_holm": float(adjusted),
                                      "significant": bool(reject)})
    return {"alpha": alpha, "n_tests": len(tests)}
