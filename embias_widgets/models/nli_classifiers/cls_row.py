"""A cross-encoder's logits with its last layer run at the ``[CLS]`` row only.

A sequence classifier reads one position of the last layer: BERT and ALBERT pool ``h[:, 0]`` (a dense layer
and tanh), RoBERTa-style heads take ``features[:, 0, :]``. So the last layer needs its queries, attention
output and feed-forward block at that row alone, with keys and values from every row
(:func:`~..language_models.head_split.run_last_layer_at`): about ``(1 - 1/6) / layers`` of the work is saved
(a sixth of the last layer remains for the keys and values). Used once the shortcut agrees with
``model(...).logits`` on a probe batch (within 1e-5), checked once per architecture and config in a process.
torch is imported inside the functions that run the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..language_models.head_split import last_layer, run_last_layer_at

#: Checks already made: (model class, config JSON) -> whether the shortcut agreed.
_CHECKS: dict[tuple[type, str], bool] = {}


def _head(model: Any) -> Callable[[Any], Any] | None:
    """The classification head as a function of the ``[CLS]`` hidden states ``(rows, width)``."""
    base, classifier = getattr(model, "base_model", None), getattr(model, "classifier", None)
    if base is None or classifier is None:
        return None
    name = type(model).__name__
    if name.startswith(("Roberta", "XLMRoberta", "Camembert")):
        return lambda h: classifier(h[:, None, :])
    if name.startswith("Albert") and getattr(base, "pooler", None) is not None:
        return lambda h: classifier(base.pooler_activation(base.pooler(h)))
    if name.startswith("Bert") and getattr(base, "pooler", None) is not None:
        return lambda h: classifier(base.pooler(h[:, None, :]))
    return None


def cls_row_logits(model: Any, probe_ids: list[list[int]], probe_types: list[list[int]] | None = None
                   ) -> Callable[..., Any] | None:
    """``logits(input_ids, **inputs)`` with the last layer at row 0 only, or None where it does not apply
    (no known head or last layer, or the check on ``probe_ids`` disagrees)."""
    base, head = getattr(model, "base_model", None), _head(model)
    layer = last_layer(base) if base is not None and head is not None else None
    if layer is None or head is None:
        return None

    def logits(input_ids: Any, **inputs: Any) -> Any:
        import torch

        rows = torch.arange(input_ids.shape[0], device=input_ids.device)
        return head(run_last_layer_at(base, layer, input_ids, rows, torch.zeros_like(rows), **inputs))

    try:
        key = (type(model), model.config.to_json_string())
    except Exception:  # a config that cannot say what it is: check every time
        key = None
    if key is None or key not in _CHECKS:
        agrees = _agrees(model, logits, probe_ids, probe_types)
        if key is None:
            return logits if agrees else None
        _CHECKS[key] = agrees
    return logits if _CHECKS[key] else None


def _agrees(model: Any, logits: Callable[..., Any], probe_ids: list[list[int]],
            probe_types: list[list[int]] | None) -> bool:
    import torch

    device = next(model.parameters()).device
    ids = torch.tensor(probe_ids, device=device)
    inputs: dict[str, Any] = {"attention_mask": torch.ones_like(ids)}
    if probe_types is not None:
        inputs["token_type_ids"] = torch.tensor(probe_types, device=device)
    with torch.inference_mode():
        try:
            full = model(input_ids=ids, **inputs).logits
            mine = logits(ids, **inputs)
        except Exception:
            return False
    return mine.shape == full.shape and bool(torch.allclose(mine, full, atol=1e-5, rtol=1e-5))
