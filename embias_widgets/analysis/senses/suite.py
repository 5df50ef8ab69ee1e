"""Sense runs in batch (the command line's ``embias weat`` with sense models): which runs are sense runs,
and every test on every sense model, one :meth:`SenseAssociationResult.to_dict` record each."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...metrics import DEFAULT_ALPHA
from ...models.registry import load_sense_model
from ...models.sense_vectors import SenseVectors, is_sense_file
from ...stimuli.sense_tests import is_sense_test, sense_test_names
from .study import SenseAssociationTest


def is_sense_model(spec: Any) -> bool:
    """Whether ``spec`` names a sense model: ``"gloss:<encoder>"``, a sense-vector file, or a loaded one."""
    if isinstance(spec, SenseVectors):
        return True
    if not isinstance(spec, str | Path):
        return False
    return str(spec).startswith("gloss:") or (Path(spec).expanduser().is_file() and is_sense_file(spec))


def uses_senses(tests: Iterable[str], models: Iterable[Any]) -> bool:
    """Whether a batch run is a sense run; mixing sense and word models or tests is an error."""
    models, tests = list(models), list(tests)
    sense_models = [is_sense_model(m) for m in models]
    if any(sense_models) and not all(sense_models):
        plain = [str(m) for m, s in zip(models, sense_models, strict=True) if not s]
        raise ValueError(f"cannot mix sense models with word/sentence models ({', '.join(plain)}): run them separately")
    sense_tests = [t for t in tests if is_sense_test(t)]
    if sense_tests and models and not any(sense_models):
        missing = [str(m) for m in models if isinstance(m, str | Path) and Path(str(m)).suffix.lower() in (
            ".npz", ".txt") and not Path(m).expanduser().exists()]
        if missing:
            raise ValueError(f"no sense-vector file at {missing[0]!r}: check the path ({', '.join(sense_tests)} "
                             "need a sense model: an LMMS .npz/.txt or ARES .txt file, or gloss:<encoder>)")
        raise ValueError(
            f"{', '.join(sense_tests)} need a sense model: --model gloss:all-MiniLM-L6-v2, gloss:<encoder>, "
            "or an LMMS .npz/.txt or ARES .txt file"
        )
    return bool(sense_tests) or any(sense_models)


def run_sense_suite(tests: Iterable[str], models: Iterable[Any], *, senses: str = "max",
                    model_options: dict[str, Any] | None = None, level: float = 0.95, n_resamples: int = 2_000,
                    robustness: bool = False, alpha: float = DEFAULT_ALPHA, k: int = 200,
                    interval_method: str = "BCa", resample: str = "all", **options: Any) -> list[dict]:
    """Every test on every sense model; one record per (test, model) as :meth:`SenseAssociationResult.to_dict`
    (``model_options``, e.g. ``device`` and ``dtype``, go to :func:`~embias_widgets.models.load_sense_model`;
    ``level``, ``n_resamples``, ``interval_method``, ``resample``: the sense level's bootstrap intervals of d and
    of ``mean_X s - mean_Y s`` (BCa over all four sets by default), none when ``n_resamples=0``; ``story``: one
    sentence when ``p < alpha`` and the interval of d disagree (else None); with
    ``robustness``, each record also holds the sense level's ``influence`` and ``stability`` (``k`` subsets),
    significant meaning ``p < alpha``, uncorrected)."""
    names = [n for t in tests for n in (sense_test_names() if t == "all" else [t])]
    rows = []
    for model in models:
        loaded = load_sense_model(model, **(model_options or {}))
        for name in names:
            # word tests read as lemmas leave out what WordNet lacks, as word tests leave out OOV words
            study = SenseAssociationTest(name, model=loaded, senses=senses, drop_unknown_lemmas=not is_sense_test(name),
                                         **options)
            result = study.run(confidence_interval=n_resamples > 0, level=level, n_resamples=max(n_resamples, 1),
                               interval_method=interval_method, resample=resample)
            row = result.to_dict()
            row["story"] = result.story(alpha=alpha)
            if robustness:
                row["influence"] = result.influence(alpha=alpha)
                row["influence_method"] = ("each item of each set left out in turn at the sense level (max over "
                                           f"sense pairs), every other choice kept; significant: p < {alpha:g}, "
                                           "no correction for multiple tests")
                row["stability"] = result.stability(k, alpha=alpha)
                row["templates"] = None
            rows.append(row)
    return rows
