"""Debiasing before / after on an NLI probe (Dev et al. 2020, section 4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...models.nli_classifiers import is_nli_classifier, load_nli_model
from ...models.nli_classifiers.debias import debias_input_embeddings, random_control
from .study import NliProbe


def debias_comparison(pairs: Any, model: Any, *, words: Sequence[str] = ("he", "she"), random_seed: int = 0,
                      **probe_options: Any) -> Any:
    """NN/FN/T of a probe before debiasing, after projecting the ``words`` direction out of the model's input
    word embeddings, and after projecting out a random direction (Dev et al. 2020, section 4; the control of
    Tables 8, 12, 14). Tidy DataFrame: level, measure, model variant, value."""
    import pandas as pd

    clf = load_nli_model(model) if not is_nli_classifier(model) else model
    variants = {"before": clf, "debiased": debias_input_embeddings(clf, words=words),
                "random direction": random_control(clf, 1, seed=random_seed)}
    frames = []
    for variant, m in variants.items():
        frame = NliProbe(pairs, m, **probe_options).run().frame()
        frames.append(frame.assign(variant=variant)[["level", "measure", "variant", "value"]])
    return pd.concat(frames, ignore_index=True)
