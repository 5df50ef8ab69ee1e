"""Where a model runs and how much it reads: its input length, its device and the CPU threads.

One place for these facts, used by every transformers-backed adapter (sentence encoders, masked- and
causal-LM scorers, NLI cross-encoders). torch is imported only inside the functions that need it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: Model types whose position embeddings start after the padding index (``create_position_ids_from_input_ids``):
#: ``padding_idx + 1`` positions are reserved, so ``max_position_embeddings = 514`` leaves 512 tokens.
PADDING_OFFSET_MODEL_TYPES = (
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "roberta-prelayernorm",
    "data2vec-text",
    "longformer",
    "mpnet",
    "ibert",
)
#: Tokenizers write a huge number (``int(1e30)``) as ``model_max_length`` when they know no limit.
_NO_LIMIT = 1_000_000


def input_length(model: Any, tokenizer: Any = None) -> int | None:
    """The most tokens (special tokens included) one sequence may have for ``model`` and ``tokenizer``.

    The smaller of the model's position limit and the tokenizer's ``model_max_length``; ``None`` when
    neither says. The model's limit is ``config.max_position_embeddings`` (or GPT-2's ``n_positions``),
    less ``padding_idx + 1`` for the RoBERTa family (:data:`PADDING_OFFSET_MODEL_TYPES`; Liu et al. 2019's
    code numbers positions from ``padding_idx + 1``, so RoBERTa's 514 positions hold 512 tokens).
    """
    config = getattr(model, "config", None)
    limit = _positive_int(getattr(config, "max_position_embeddings", None)) or _positive_int(
        getattr(config, "n_positions", None)
    )
    if limit is not None and getattr(config, "model_type", "") in PADDING_OFFSET_MODEL_TYPES:
        padding = getattr(config, "pad_token_id", None)
        limit -= (padding if isinstance(padding, int) and padding >= 0 else 1) + 1
    candidates = [n for n in (limit, _positive_int(getattr(tokenizer, "model_max_length", None))) if n]
    return min(candidates) if candidates else None


def _positive_int(value: Any) -> int | None:
    """``value`` as a limit: a positive int below the "no limit" sentinel, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if 0 < value < _NO_LIMIT else None


def default_device(device: str | None = None) -> str:
    """``device`` as given, else ``"cuda"`` when torch sees a GPU, else ``"cpu"``."""
    if device is not None:
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def check_device(device: str | None) -> None:
    """``ValueError`` when ``device`` asks for CUDA (or MPS) that this machine does not have."""
    if device is None:
        return
    if not isinstance(device, str) or not device.strip():
        raise ValueError(f"--device must be a name such as cpu or cuda, got {device!r}")
    kind = device.split(":", 1)[0]
    import torch

    if kind == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"--device {device}: this machine has no CUDA device torch can use "
            f"(torch {torch.__version__}, CUDA build: {torch.version.cuda is not None}); use --device cpu"
        )
    if kind == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"--device {device}: MPS is not available here; use --device cpu")
    if kind not in ("cpu", "cuda", "mps", "xpu", "meta"):
        raise ValueError(f"--device {device!r} is not a device torch knows: use cpu or cuda (cuda:0, cuda:1, ...)")


def cpu_threads(requested: int | None = None) -> int:
    """Torch CPU threads for scoring: ``requested``, else the cores not already busy.

    The default is ``os.cpu_count()`` minus the 1-minute load average,
    rounded, at least 1 and at most torch's own default. Scoring is
    compute-bound matrix multiplies split across threads, and a batch waits
    for its slowest thread: on a shared 2-core machine under load 2 threads
    ran 3-6x slower than 1, while on an idle machine every core helps.
    """
    import torch

    if requested is not None:
        if int(requested) != requested or requested < 1:
            raise ValueError(f"--threads must be a whole number of at least 1, got {requested!r}")
        return int(requested)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        busy = round(os.getloadavg()[0])
    except OSError:  # no load average on this platform
        busy = 0
    return max(1, min(torch.get_num_threads(), cores - busy))


@contextmanager
def torch_threads(threads: int) -> Iterator[int]:
    """Run the block with ``torch.set_num_threads(threads)``, and torch's previous setting restored after it
    (the caller may be another program: tests, notebooks)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield threads
    finally:
        torch.set_num_threads(before)
