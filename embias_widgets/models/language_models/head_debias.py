"""A masked LM whose MLM head has a bias direction projected out of its output word embeddings.

A BERT-style MLM head scores token w at a position with hidden state ``h`` as ``logit_w = <E_w, h> + c_w``,
``E_w`` the decoder's row of w (tied to the input embeddings in BERT and the demo MLM). Following the
projection debiasing of Bolukbasi et al. (2016) and Dev et al. (2020, section 4) applied to those rows,
:func:`project_out_head_direction` replaces every row by ``E_w - <E_w, b> b`` with ``b`` the normalised
difference of the normalised rows of two words (``he`` and ``she`` by default, as Dev et al.'s BERT code):
the head can no longer tell two words apart by their component along ``b``. The decoder is untied from the
input embeddings, which stay as they were, so the encoder reads every sentence exactly as before: only the
predictions change. The copy saves with ``save_pretrained`` as a model of its own (``embias compare`` reads it
from its folder).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...metrics.projection import project_out

__all__ = ["head_direction", "project_out_head_direction"]


def head_direction(model: Any, tokenizer: Any, words: Sequence[str] = ("he", "she")) -> np.ndarray:
    """``b``: the normalised difference of the normalised decoder rows of ``words[0]`` and ``words[1]``."""
    if len(words) != 2:
        raise ValueError(f"give two words for a direction (e.g. ('he', 'she')), got {list(words)}")
    E = model.get_output_embeddings().weight.detach().cpu().numpy().astype(np.float64)
    rows = []
    for w in words:
        ids = tokenizer.convert_tokens_to_ids([w])
        if not ids or ids[0] == tokenizer.unk_token_id:
            raise ValueError(f"{w!r} is not one token of the tokenizer: give two words it has as single tokens")
        rows.append(E[ids[0]] / np.linalg.norm(E[ids[0]]))
    d = rows[0] - rows[1]
    if not np.linalg.norm(d) > 0:
        raise ValueError(f"{words[0]!r} and {words[1]!r} have the same direction: no bias direction between them")
    return d / np.linalg.norm(d)


def project_out_head_direction(pair: Any, words: Sequence[str] = ("he", "she")) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a copy of the masked LM ``pair`` (``(model, tokenizer)`` or the demo's ``DemoMLM``)
    whose decoder rows have the ``words`` direction projected out (see the module docstring)."""
    import torch

    model, tokenizer = pair[0], pair[1]
    if not hasattr(model, "get_output_embeddings") or model.get_output_embeddings() is None:
        raise TypeError(f"{type(model).__name__} has no MLM head (output embeddings) to debias: give a masked LM")
    b = head_direction(model, tokenizer, words)
    clone = copy.deepcopy(model)
    decoder = clone.get_output_embeddings()
    E = decoder.weight.detach().cpu().numpy().astype(np.float64)
    projected = torch.as_tensor(project_out(E, b[None, :]), dtype=decoder.weight.dtype)
    clone.config.tie_word_embeddings = False
    decoder.weight = torch.nn.Parameter(projected.clone())  # a tensor of its own: the input embeddings stay
    if getattr(decoder, "bias", None) is not None:  # untied, BERT's decoder bias is saved and read on its own
        decoder.bias = torch.nn.Parameter(decoder.bias.detach().clone())
    clone.config.embias_debiased_head = f"{words[0]}-{words[1]} direction projected out of the decoder rows"
    return clone.eval(), tokenizer
