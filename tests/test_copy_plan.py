"""PLL's masked copies as arrays (:mod:`embias_widgets.models.language_models.copy_plan`): the same batches, ids,
masks, positions and further masked tokens as building every copy from its sentence and position in Python."""

from __future__ import annotations

import random

import pytest
import torch

from embias_widgets.models.language_models.batching import pack_by_length
from embias_widgets.models.language_models.copy_plan import CopyPlan


def _groups(seed: int, l2r: bool) -> list[tuple[tuple[int, ...], list[tuple]]]:
    """Sentences of 3-10 tokens, each with its copies ``(position,)`` or ``(position, also masked)``."""
    rng = random.Random(seed)
    groups = []
    for _ in range(12):
        ids = tuple([101] + [rng.randrange(5, 60) for _ in range(rng.randrange(1, 9))] + [102])
        rest = []
        for p in range(1, len(ids) - 1):
            more = tuple(range(p + 1, min(p + rng.randrange(1, 3), len(ids) - 1))) if l2r else ()
            rest.append((p, more) if more else (p,))
        groups.append((ids, rest))
    return groups


@pytest.mark.parametrize(("pad_to", "l2r"), [(None, False), (None, True), (4, False), (4, True)])
def test_copies_are_their_sentences_rows(pad_to, l2r) -> None:
    """Every batch: equal widths under the budget in ``pack_by_length``'s grouping, each row its sentence (padded
    with ``pad_id`` to the bucket, the mask marking the real tokens), its position, its further masks; the
    distinct sentences each once, in order of first appearance."""
    groups = _groups(1, l2r)
    keys = [(ids, r) for ids, rest in groups for r in rest]  # copy number -> (sentence, copy)
    width = [len(k[0]) if pad_to is None else -(-len(k[0]) // pad_to) * pad_to for k in keys]
    plan = CopyPlan(groups, budget=40, pad_to=pad_to, pad_id=0)
    assert [b.tolist() for b in plan.batches] == pack_by_length(width, 40)
    seen = 0
    for batch in plan.batches:
        copies = plan.copies(torch, batch, "cpu")
        here = [keys[k] for k in batch.tolist()]
        w = width[batch[0]]
        assert copies.ids.tolist() == [list(ids) + [0] * (w - len(ids)) for ids, _ in here]
        assert torch.equal(copies.sentences[copies.index], copies.ids)
        assert [tuple(r) for r in copies.sentences.tolist()] == list(dict.fromkeys(
            tuple(r) for r in copies.ids.tolist()))
        real = [[1] * len(ids) + [0] * (w - len(ids)) for ids, _ in here]
        assert (copies.mask is None and all(all(r) for r in real)) or copies.mask.tolist() == real
        assert copies.positions.tolist() == [r[0] for _, r in here]
        more = sorted((row, j) for row, (_, r) in enumerate(here) if len(r) > 1 for j in r[1])
        got = [] if copies.also is None else sorted(map(tuple, copies.also.t().tolist()))
        assert got == more
        seen += len(batch)
    assert seen == len(keys)
