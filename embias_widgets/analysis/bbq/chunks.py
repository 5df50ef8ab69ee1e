"""One chunk of a BBQ run (items ``start .. stop-1``): scored, saved to one ``.npz`` file, and resumed only into
the very same run.

A chunk keeps every answer's (pseudo-)log-likelihood and the numbers of tokens and characters that normalise it
(:class:`~embias_widgets.models.language_models.multiple_choice.ChoiceScores`), so the normalisation can change
without scoring again. A results directory holds a ``run.json`` manifest with a fingerprint of everything that
determines those numbers: the items' content (:attr:`~embias_widgets.stimuli.bbq.BbqItems.content_hash`), the
model's weights, config and tokenizer files (:mod:`embias_widgets.models.fingerprints`), the answer set, the chunk
size and the model options that change scores. A run resumes only from a manifest with its exact fingerprint
(:func:`open_chunks`); anything else is refused, naming what changed (``fresh=True`` starts over). A damaged chunk
file is named in a note, deleted and scored again (the checks shared with the NLI probe:
:mod:`embias_widgets.analysis.resumable_runs`).
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...models.language_models.multiple_choice import score_choices
from ..resumable_runs import MANIFEST, load_chunks, open_manifest, refusal, run_fingerprint
from .answer_sets import item_choices

FORMAT = 1
CHUNK_GLOB = "bbq_chunk_*.npz"


class BbqRunError(ValueError):
    """A run that cannot start or continue (a results directory of another run, no cluster)."""


@dataclass
class BbqChunk:
    """Items ``start .. stop-1``: ``(stop - start, answers)`` log-likelihoods, tokens and characters."""

    start: int
    stop: int
    log_likelihood: np.ndarray
    n_tokens: np.ndarray
    n_chars: np.ndarray
    seconds: float = 0.0
    worker: str = ""
    kind: str = ""  # "causal" or "masked": what the scores are

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file, then a rename)."""
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as handle:
            np.savez(handle, range=np.array([self.start, self.stop]), log_likelihood=self.log_likelihood,
                     n_tokens=self.n_tokens, n_chars=self.n_chars, seconds=np.array(self.seconds),
                     worker=np.array(self.worker), kind=np.array(self.kind))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> BbqChunk:
        """Read a chunk file (raises on a damaged one; :func:`open_chunks` turns that into a note)."""
        with np.load(path, allow_pickle=False) as z:
            start, stop = (int(x) for x in z["range"])
            return cls(start, stop, z["log_likelihood"], z["n_tokens"], z["n_chars"], float(z["seconds"]),
                       str(z["worker"]), str(z["kind"]))


def score_chunk(scorer: Any, items: Any, start: int, stop: int, answer_set: str) -> BbqChunk:
    """Score items ``start .. stop-1`` (the unit of work of both engines)."""
    t0 = time.perf_counter()
    part = items.subset(np.arange(start, stop))
    prompts, answers = item_choices(part, answer_set)
    scores = score_choices(scorer, prompts, answers)
    return BbqChunk(start, stop, scores.log_likelihood, scores.n_tokens, scores.n_chars, time.perf_counter() - t0,
                    f"{socket.gethostname()}:{os.getpid()}", scores.kind)


def chunk_path(results_dir: Path, start: int, stop: int) -> Path:
    """Where the chunk of items ``start .. stop-1`` is kept."""
    return results_dir / f"bbq_chunk_{start:09d}_{stop:09d}.npz"


_WHAT = {"items": "the items (their content changed: other categories, a limit, an edited file)",
         "model": "the model (its weights, config or tokenizer files, or its package version, changed)"}


def _foreign(old: Any) -> str | None:
    """Why a manifest is not a BBQ run's (None when it is)."""
    if not isinstance(old, dict) or old.get("kind") != "bbq" or not isinstance(old.get("determines"), dict):
        return f"its manifest {MANIFEST} is not a BBQ run's"
    return None


def _check(c: BbqChunk, answers: int) -> str | None:
    shape = (c.stop - c.start, answers)
    if c.log_likelihood.shape != shape or c.n_tokens.shape != shape or c.n_chars.shape != shape:
        return f"its arrays are not {shape}"
    if not np.all(np.isfinite(c.log_likelihood)):
        return "it holds log-likelihoods that are not finite"
    return None


def open_chunks(results_dir: Path, determines: dict[str, Any], about: dict[str, Any], *,
                ranges: Iterable[tuple[int, int]], answers: int, fresh: bool = False
                ) -> tuple[dict[int, BbqChunk], list[str]]:
    """The finished chunks of this very run in ``results_dir`` (start -> chunk) and notes on damaged ones.

    ``determines`` fixes the numbers (compared exactly, through its fingerprint); ``about`` is for people reading
    the manifest. ``fresh`` deletes the directory's chunks and manifest first. Raises :class:`BbqRunError` for
    another run's directory, or chunk files without a manifest."""
    view = json.loads(json.dumps(determines, default=str))
    manifest = {"format": FORMAT, "kind": "bbq", "fingerprint": run_fingerprint(view), "determines": view,
                "about": about}

    def refuse(why: str) -> Exception:
        return refusal(BbqRunError, results_dir, why, flag="embias bbq --fresh",
                       same=" (items, model files, answers, chunk size, model options)")

    files = open_manifest(results_dir, manifest, view, chunk_glob=CHUNK_GLOB, fresh=fresh, refuse=refuse,
                          foreign=_foreign, what=_WHAT, of_what="items and model")
    return load_chunks(results_dir, files, load=BbqChunk.load, check=lambda c: _check(c, answers),
                       chunk_path=chunk_path, ranges=ranges, redone="its items were scored again")
