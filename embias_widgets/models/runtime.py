"""Where a model runs and how much it reads: its input length, its device, its dtype, its batch size and the
CPU threads.

One place for these facts, used by every transformers-backed adapter (sentence encoders, masked- and
causal-LM scorers, NLI cross-encoders, and gloss sense vectors through their encoder): each loader calls
:func:`place_model` (device and dtype checked, the model moved) and :func:`token_budget` (tokens per batch:
as given, else sized from free GPU memory on CUDA, else the CPU default). torch is imported only inside the
functions that need it.
"""

from __future__ import annotations

import gc
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


# -- dtype ------------------------------------------------------------------------------------------------------
DTYPES = ("float32", "bfloat16", "float16")
"""Weights and activations: ``float32`` (the default: results as on any CPU), or a half precision."""
#: What a half precision changes, per kind of output, against float32: about twice the largest difference
#: ``bench/bench_dtype.py`` measured on the embedded models on a CPU (all-MiniLM-L6-v2's vectors: cosine
#: distance at most 4.5e-5 in bfloat16, 1e-6 in float16; the demo MLM's PLL: at most 0.10 per token in
#: bfloat16, median 0.013; 0.015 in float16); tests/test_dtype_device.py checks them on small models.
DTYPE_TOLERANCE = {
    "bfloat16": {"scores": 2e-1, "vectors": 1e-4, "probabilities": 2e-2},
    "float16": {"scores": 3e-2, "vectors": 2e-6, "probabilities": 5e-3},
}
_TOLERANCE_UNITS = {
    "scores": "log-probability per token",
    "vectors": "cosine distance per sentence vector",
    "probabilities": "probability per label",
}


def check_dtype(dtype: str | None, device: str = "cpu") -> str | None:
    """``dtype`` checked (``None`` stays ``None``: keep float32 weights as they are), or ``ValueError``.

    Half precisions are tried on ``device`` first (a matrix product, a layer norm, a softmax): a torch build
    that cannot run them there is refused with the message naming what to use instead.
    """
    if dtype is None:
        return None
    if dtype not in DTYPES:
        raise ValueError(f"--dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if dtype == "float32":
        return dtype
    import torch

    try:
        x = torch.ones(4, 4, dtype=getattr(torch, dtype), device=device)
        torch.nn.functional.layer_norm(x @ x, (4,)).softmax(-1)
    except (RuntimeError, TypeError, NotImplementedError) as err:
        raise ValueError(
            f"--dtype {dtype}: torch {torch.__version__} cannot run {dtype} on {device} ({err}); "
            "use --dtype float32" + (" or --dtype bfloat16" if dtype == "float16" else "")
        ) from None
    return dtype


def precision_note(dtype: str | None, what: str = "scores") -> str:
    """The options entry for a dtype: ``dtype=bfloat16 (scores agree with float32 to about 5e-02 ...)``;
    ``""`` for float32 (nothing to state). ``what``: ``"scores"``, ``"vectors"`` or ``"probabilities"``."""
    if dtype in (None, "float32"):
        return ""
    bound = DTYPE_TOLERANCE[dtype][what]
    return f"dtype={dtype} ({what} agree with float32 to about {bound:.0e} {_TOLERANCE_UNITS[what]})"


def place_model(model: Any, device: str | None = None, dtype: str | None = None) -> tuple[Any, str, str]:
    """Move ``model`` to ``device`` (checked; default CUDA when present) in ``dtype`` (checked).

    ``dtype=None`` keeps float32 and float64 weights as they are and brings half-precision weights (a
    checkpoint saved in float16) to float32, so results without ``dtype`` are float32 results.
    Returns ``(model in eval mode, device, dtype name)``.
    """
    import torch

    device = default_device(device or None)
    check_device(device)
    dtype = check_dtype(dtype, device)
    current = next((p.dtype for p in model.parameters()), torch.float32) if hasattr(model, "parameters") else None
    if dtype is None:
        dtype = "float32" if current in (torch.float16, torch.bfloat16) else str(current or "float32").split(".")[-1]
    model = model.to(device=device, dtype=getattr(torch, dtype))
    return model.eval(), device, dtype


# -- batch size -------------------------------------------------------------------------------------------------
#: Share of the free GPU memory (after the weights are loaded) one batch's activations may take.
GPU_MEMORY_SHARE = 0.4
#: Bounds of a memory-sized token budget: at least one full-length sequence, at most this many tokens.
MAX_GPU_TOKENS = 1 << 18


def bytes_per_token(model: Any, dtype: str = "float32") -> int:
    """A generous bound on the memory one token of a batch takes in a forward pass without gradients.

    One layer's activations live at a time: the residual stream, queries/keys/values, the feed-forward
    layer and (eager attention) one row of attention scores per head, in ``dtype``, twice over for
    temporaries; plus float32 logits and log-probabilities over the vocabulary (a causal LM's passes and the
    NLI head take one row per token).
    """
    config = getattr(model, "config", None)
    hidden = int(getattr(config, "hidden_size", 0) or getattr(config, "n_embd", 0) or 768)
    inner = int(getattr(config, "intermediate_size", 0) or getattr(config, "n_inner", 0) or 4 * hidden)
    heads = int(getattr(config, "num_attention_heads", 0) or getattr(config, "n_head", 0) or 12)
    length = input_length(model) or 512
    vocab = int(getattr(config, "vocab_size", 0) or 50_000)
    width = 2 if dtype in ("bfloat16", "float16") else 8 if dtype == "float64" else 4
    return 2 * width * (4 * hidden + inner + heads * length) + 2 * 4 * vocab


def token_budget(requested: int | None, model: Any, device: str, dtype: str = "float32", *,
                 cpu_default: int = 8192) -> int:
    """Most tokens (rows x length) in one forward batch.

    ``requested`` when given; on the CPU ``cpu_default`` (as before: CPU results do not change); on CUDA the
    free memory (``torch.cuda.mem_get_info``) times :data:`GPU_MEMORY_SHARE` over :func:`bytes_per_token`,
    at least one full-length sequence. Batches are sorted by length and capped at this many tokens, so a
    long sentence shares its batch with fewer others and none runs out of memory.
    """
    if requested is not None:
        if isinstance(requested, bool) or int(requested) != requested or requested < 1:
            raise ValueError(f"`token_budget` must be a positive number of tokens, got {requested!r}")
        return int(requested)
    if not str(device).startswith("cuda"):
        return cpu_default
    import torch

    free, _total = torch.cuda.mem_get_info(torch.device(device))
    fitted = int(free * GPU_MEMORY_SHARE) // bytes_per_token(model, dtype)
    return max(input_length(model) or 512, min(MAX_GPU_TOKENS, fitted))


@contextmanager
def inference(device: str, dtype: str | None = None) -> Iterator[None]:
    """``torch.inference_mode()`` for a forward loop; on CUDA in a half precision also without cuDNN's
    attention kernel (torch's flash, memory-efficient and math kernels stay), restored after the block.

    cuDNN builds a plan for every new (rows, length) shape, and batches of equal-length sequences come in
    many shapes: on an H200, BERT-base PLL in bfloat16 ran 130 sentences/s with it and 530 without, float32
    430 (``bench/bench_device.py``).
    """
    import torch

    with torch.inference_mode():
        if not (str(device).startswith("cuda") and dtype in ("bfloat16", "float16")):
            yield
            return
        from torch.nn.attention import SDPBackend, sdpa_kernel

        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
            yield


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the block, as it was after (objects are still freed by
    reference counting; only reference cycles wait for the collector).

    A full collection walks every tracked object in the process (380,000 with torch and transformers loaded,
    0.1-0.2 s each on a 2-core machine), and tokenising and scoring allocate enough containers (token lists,
    offsets, cache keys) to start one every few hundred sentences: without them a no-cost model's PLL pipeline
    ran 1.4-2x faster on 1,000 CrowS-Pairs sentences. The scoring paths make no reference cycles (a collection
    after scoring 1,000 sentences with every metric found none, and ``tests/test_gc_paused.py`` checks it), so
    nothing piles up while the collector is paused. As a decorator (``@gc_paused()``, contextlib's own), the
    scorers' public entry points run under it.
    """
    if not gc.isenabled():  # paused already (an outer call, or the user's choice): left as it is
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
