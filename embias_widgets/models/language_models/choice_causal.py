"""Multiple choice by log-likelihood for causal LMs, each item's shared prefix run once.

The requests are lm-evaluation-harness's (``lm_eval/api/task.py``, ``Task.construct_requests`` for
``output_type: multiple_choice``; ``lm_eval/api/model.py``, ``TemplateLM._encode_pair``;
``lm_eval/models/huggingface.py``, ``HFLM.tok_encode`` and ``_loglikelihood_tokens``): for a context ``x`` and a
choice ``a`` the continuation is ``target_delimiter + a`` (a space); trailing spaces of ``x`` move to the
continuation; ``whole = enc(x + continuation)``, ``context = enc(x)``, ``continuation = whole[len(context):]``,
where ``enc`` is the tokenizer's ``encode`` with its own special tokens (lm-eval's default since ``add_bos_token``
became unset, 0.4.10), without them for a text that already starts with the begin-of-sequence text. The score is

    LL(a | x) = sum_m log P(c_m | context, c_<m)        (c = continuation tokens)

An item's choices share ``context``, so it is run once: one pass over the contexts of a batch of items (all of
one length, no padding) keeps its keys and values (``past_key_values``), copied once per choice
(``batch_repeat_interleave``), and one pass over the choices' tokens (right-padded: a causal model's token never
sees later positions, so padding changes nothing before it) gives the rest. ``log P(c_0)`` comes from the
context's last position. Only the scored rows go through the output head
(:class:`~.head_split.HeadSplit`). A model whose cache cannot be copied runs each (context, choice) whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..runtime import inference
from .batching import host_to

#: lm-evaluation-harness's ``target_delimiter`` (``TaskConfig``'s default): put between context and choice.
TARGET_DELIMITER = " "

Request = tuple[tuple[int, ...], list[tuple[int, ...]]]
"""One item as token ids: the context's, and each choice's continuation."""


def _prefix_text(tokenizer: Any) -> str | None:
    """The text of lm-eval's ``prefix_token_id`` (BOS, else EOS): a text starting with it gets no special tokens."""
    for token_id in (tokenizer.bos_token_id, tokenizer.eos_token_id):
        if token_id is not None:
            return tokenizer.decode([token_id])
    return None


def _encode_all(tokenizer: Any, texts: list[str]) -> list[list[int]]:
    """``HFLM.tok_encode`` of each text, in one tokenizer call per kind of text."""
    prefix = _prefix_text(tokenizer)
    starts = [bool(prefix) and t.startswith(prefix) for t in texts]
    bare = [k for k, s in enumerate(starts) if s]
    plain = [k for k, s in enumerate(starts) if not s]
    out: list[list[int]] = [[] for _ in texts]
    for keys, special in ((plain, True), (bare, False)):
        if keys:
            ids = tokenizer([texts[k] for k in keys], add_special_tokens=special)["input_ids"]
            for k, row in zip(keys, ids, strict=True):
                out[k] = list(row)
    return out


def check_no_trailing_tokens(tokenizer: Any, name: str) -> None:
    """ValueError when the tokenizer appends special tokens to a text (an end-of-sequence token): lm-eval's split
    of ``enc(context + continuation)`` at ``len(enc(context))`` would then score the context's end token."""
    with_special = tokenizer("a b", add_special_tokens=True)["input_ids"]
    without = tokenizer("a b", add_special_tokens=False)["input_ids"]
    if without and with_special[-len(without):] != without:
        raise ValueError(f"the tokenizer of {name} appends special tokens to every text ({with_special} for 'a b'): "
                         "multiple choice by log-likelihood needs a causal LM's tokenizer, which adds at most a "
                         "begin-of-sequence token")


def encode_requests(tokenizer: Any, contexts: Sequence[str], choices: Sequence[Sequence[str]], *,
                    max_length: int | None, delimiter: str = TARGET_DELIMITER) -> list[Request]:
    """lm-eval's ``(context_enc, continuation_enc)`` of every (context, choice), grouped by item."""
    pairs = []
    for x, item_choices in zip(contexts, choices, strict=True):
        for a in item_choices:
            continuation = delimiter + a
            n_spaces = len(x) - len(x.rstrip())
            ctx = x[: len(x) - n_spaces] if n_spaces else x
            pairs.append((ctx, x[len(ctx):] + continuation))
    firsts = list(dict.fromkeys(ctx for ctx, _ in pairs))
    encoded = _encode_all(tokenizer, firsts + [ctx + cont for ctx, cont in pairs])
    context_ids = dict(zip(firsts, encoded[: len(firsts)], strict=True))
    out: list[Request] = []
    k = 0
    for item, (x, item_choices) in enumerate(zip(contexts, choices, strict=True)):
        ctx_ids, conts = None, []
        for a in item_choices:
            ctx = pairs[k][0]
            ctx_enc, whole = context_ids[ctx], encoded[len(firsts) + k]
            if ctx_ids is not None and tuple(ctx_enc) != ctx_ids:  # pragma: no cover - one context per item
                raise ValueError(f"item {item}: its choices do not share one context")
            ctx_ids = tuple(ctx_enc)
            cont = tuple(whole[len(ctx_enc):])
            if not ctx_ids or not cont:
                raise ValueError(f"item {item} ({x[:40]!r}): the context or the choice {a!r} has no tokens")
            if max_length is not None and len(ctx_ids) + len(cont) - 1 > max_length:
                raise ValueError(f"item {item} ({x[:40]!r}) with the choice {a!r} has {len(ctx_ids) + len(cont)} "
                                 f"tokens but the model takes at most {max_length}: shorten the context")
            conts.append(cont)
            k += 1
        out.append((ctx_ids or (), conts))
    return out


def item_batches(requests: Sequence[Request], token_budget: int) -> list[list[int]]:
    """Items in batches of one context length, each with ``rows x choices x (context + longest choice) <=
    token_budget`` (the copied keys and values of the choice pass are the largest tensors); longer items alone."""
    order = sorted(range(len(requests)), key=lambda i: (len(requests[i][0]), max(map(len, requests[i][1]))))
    batches: list[list[int]] = []
    for i in order:
        ctx, conts = requests[i]
        cost = len(conts) * (len(ctx) + max(map(len, conts)))
        batch = batches[-1] if batches else None
        if (batch and len(requests[batch[0]][0]) == len(ctx) and len(requests[batch[0]][1]) == len(conts)
                and (len(batch) + 1) * cost <= token_budget):
            batch.append(i)
        else:
            batches.append([i])
    return batches


def _cache_copies(cache: Any, times: int) -> bool:
    """Copy every row of a cache ``times`` (in place); False when the cache cannot."""
    repeat = getattr(cache, "batch_repeat_interleave", None)
    if repeat is None:
        return False
    if times > 1:
        repeat(times)
    return True


def _cache_keyword(module: Any) -> str:
    """The name under which ``module.forward`` takes a cache: ``cache`` (transformers >= 5.2x), else the older
    ``past_key_values``."""
    import inspect

    try:
        parameters = inspect.signature(module.forward).parameters
    except (TypeError, ValueError):  # pragma: no cover - a forward without a signature
        return "past_key_values"
    return "cache" if "cache" in parameters else "past_key_values"


def _shared_prefix_batch(torch: Any, split: Any, device: str, requests: Sequence[Request], *,
                         copies: bool = True) -> Any | None:
    """Log-probabilities of every continuation token of ``requests`` (one context length), in order (row by row,
    token by token), from one pass over the contexts and one over the choices; None when the model's cache
    cannot be copied (``copies=False``: known from an earlier batch, so the context pass is not run in vain)."""
    conts = [c for _, cs in requests for c in cs]
    longest = max(map(len, conts))
    if not copies and longest > 1:
        return None
    module = split.base if split.split else split.model
    k = len(requests[0][1])
    prefix = host_to(torch, torch.tensor([ctx for ctx, _ in requests]), device)
    out = module(input_ids=prefix, use_cache=True)
    cache = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
    last = out[0][:, -1]  # predicts each choice's first token
    first_states = last.repeat_interleave(k, dim=0)
    targets = [c[0] for c in conts]
    if longest == 1:
        return split.log_probs(first_states, host_to(torch, torch.tensor(targets), device))
    if cache is None or not _cache_copies(cache, k):
        return None
    padded = torch.zeros((len(conts), longest - 1), dtype=torch.long)
    rest_rows: list[int] = []
    for r, c in enumerate(conts):
        if len(c) > 1:
            padded[r, : len(c) - 1] = torch.tensor(c[:-1])
            rest_rows.extend(r * (longest - 1) + m for m in range(len(c) - 1))
    ids = host_to(torch, padded, device)
    states = module(input_ids=ids, use_cache=False, **{_cache_keyword(module): cache})[0]
    flat = states.reshape(len(conts) * (longest - 1), -1)
    rest = flat.index_select(0, host_to(torch, torch.tensor(rest_rows), device))
    # order: row by row, token by token -> the first token's state, then the rest of the row's
    order, rest_at, first_at = [], len(conts), 0
    for c in conts:
        order.append(first_at)
        order.extend(range(rest_at, rest_at + len(c) - 1))
        first_at, rest_at = first_at + 1, rest_at + len(c) - 1
    every = torch.cat([first_states, rest]).index_select(0, host_to(torch, torch.tensor(order), device))
    wanted = [t for c in conts for t in c]
    return split.log_probs(every, host_to(torch, torch.tensor(wanted), device))


def _whole_batch(torch: Any, split: Any, device: str, requests: Sequence[Request]) -> Any:
    """The same values with every (context, choice) run whole, one sequence at a time (models without a cache)."""
    values = []
    for ctx, conts in requests:
        for c in conts:
            ids = host_to(torch, torch.tensor([list(ctx) + list(c[:-1])]), device)
            states = split.hidden(ids)[0][0, len(ctx) - 1:]
            values.append(split.log_probs(states, host_to(torch, torch.tensor(c), device)))
    return torch.cat(values)


def causal_choice_log_likelihoods(scorer: Any, requests: Sequence[Request]) -> tuple[np.ndarray, np.ndarray]:
    """``(LL, n_tokens)``, each ``(items, choices)``: the sum of each continuation's token log-probabilities
    given its item's context (float64), and its number of tokens, in batches under ``scorer.token_budget``."""
    import torch

    n = len(requests)
    k = len(requests[0][1]) if n else 0
    n_tokens = np.array([[len(c) for c in conts] for _, conts in requests], dtype=np.int64).reshape(n, k)
    totals = np.zeros((n, k))
    if not n:
        return totals, n_tokens
    split = scorer._head()
    budget = scorer.token_budget if split.split else max(1, scorer.token_budget // 8)
    pieces = []
    copies = True  # whether the model's cache can be copied (found out by the first batch that needs it)
    with inference(scorer.device, scorer.dtype):
        for batch in item_batches(requests, budget):
            chosen = [requests[i] for i in batch]
            values = _shared_prefix_batch(torch, split, scorer.device, chosen, copies=copies)
            if values is None:
                copies = False
                values = _whole_batch(torch, split, scorer.device, chosen)
            scorer.forward_passes += 1
            pieces.append((batch, values))
        for batch, values in pieces:  # one copy back per batch, after every batch was queued
            flat = values.double().cpu().numpy()
            lengths = n_tokens[batch].reshape(-1)
            sums = np.add.reduceat(flat, np.concatenate([[0], np.cumsum(lengths)[:-1]]))
            totals[batch] = sums.reshape(len(batch), k)
    return totals, n_tokens
