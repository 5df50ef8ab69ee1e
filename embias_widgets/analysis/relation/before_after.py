"""WEAT effect sizes of the same tests under several models, side by side (e.g. before and after
debiasing, Dev et al. 2020; Ethayarajh et al. 2019 §3)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..association import AssociationTest


def weat_before_after(tests: Iterable[Any], models: Mapping[str, Any], **test_options: Any) -> Any:
    """WEAT effect sizes (and p-values) of each test under each model, side by side.

    ``models`` maps a column label to a model (``{"original": glove,
    "debiased": project_out_subspace(glove, ...)}``); ``tests`` are bundled
    names, files or specs for :class:`AssociationTest`; ``test_options`` go to
    it as well (``n_samples``, ``seed``, ...). Returns a DataFrame with one row
    per test: ``test``, one effect-size column per label, then ``p_<label>``.
    """
    import pandas as pd

    rows = []
    for test in tests:
        row: dict[str, Any] = {}
        for label, model in models.items():
            result = AssociationTest(test, model=model, **test_options).run()
            row["test"] = result.test
            row[label] = result.effect_size
            row[f"p_{label}"] = result.pvalue
        rows.append(row)
    columns = ["test", *models, *(f"p_{label}" for label in models)]
    return pd.DataFrame(rows, columns=columns)
